"""A project whose own metadata uv refuses: install-tier says what and where, and its remedy arms the tier.

Seen on SQLAlchemy: its pyproject declares the extras ``mssql-pymssql`` and ``mssql_pymssql``, one name once
normalized (PEP 685). ``install-tier asyncio`` installed and verified the tier's packages, then uv refused to
install the project from its tree; the remedy was prose ("fix the cause shown above ... then run the same
install-tier command again, or skip the project with --no-install-project", ``remedy_argv`` null), and running the
same command again failed the same way. Another cause of a failed build of the project gets the same command.
Here the ``single`` layout of the remedy walker is made a package (an in-tree build backend) with two such extras;
real uv refuses it as it refuses SQLAlchemy.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.support.probe_env import BACKEND
from tests.support.remedyscene import Parts, scene_for
from tests.support.remedystates import State
from tests.support.remedywalk import Scene, present, run_remedy

BUILD = '[build-system]\nrequires = []\nbuild-backend = "backend"\nbackend-path = ["."]\n\n'


def _packaged_with_one_extra_twice(scene: Scene) -> None:
    pyproject = scene.root / "pyproject.toml"
    text = BUILD + pyproject.read_text(encoding="utf-8")
    text = text.replace(
        "[project.optional-dependencies]\n", '[project.optional-dependencies]\nms-sql = ["helper>=1"]\n'
    )
    text = text.replace("\n[tool.tierlock]", 'ms_sql = ["app[ms-sql]"]\n\n[tool.tierlock]')
    pyproject.write_text(text, encoding="utf-8")
    (scene.root / "backend.py").write_text(BACKEND.format(name="app", version="0.1.0"), encoding="utf-8")
    (scene.root / "src" / "app").mkdir(parents=True)
    (scene.root / "src" / "app" / "__init__.py").write_text("X = 1\n", encoding="utf-8")


def _lines_of(scene: Scene, *names: str) -> list[int]:
    lines = (scene.root / "pyproject.toml").read_text(encoding="utf-8").splitlines()
    return [next(i for i, line in enumerate(lines, start=1) if line.startswith(f"{name} =")) for name in names]


def test_a_project_uv_refuses_for_two_extras_of_one_normalized_name_is_named_and_the_printed_remedy_arms_the_tier(
    tmp_path: Path, walk_parts: Parts
) -> None:
    state = State("one extra twice", "single", _packaged_with_one_extra_twice, ("status", "brain"), present("brain"))
    scene = scene_for(state, tmp_path, walk_parts)
    failed = scene.run(["install-tier", "brain", *scene.where(), "--json"])
    assert failed.returncode == 3, failed.stdout + failed.stderr
    error = json.loads(failed.stdout)["error"]
    first, second = _lines_of(scene, "ms-sql", "ms_sql")
    assert (
        f"the extras ms-sql (pyproject.toml:{first}) and ms_sql (pyproject.toml:{second}) are one name"
        in (error["message"])
    ), error["message"]
    command = ["install-tier", "brain", *scene.where(), "--no-install-project"]
    assert error["remedy_argv"] == [command], error
    again = scene.run(["install-tier", "brain", *scene.where()])  # the same command again: the same refusal
    assert again.returncode == 3
    assert f"to fix: install-tier brain --python {scene.python} --no-install-project" in again.stderr, again.stderr
    run_remedy(scene, error["remedy_argv"])
    assert scene.receipt("brain") is not None
    assert "app" not in scene.installed()  # the project stays out, as said
    assert scene.probe_state("brain") == "present"
    status = json.loads(scene.tierlock("status", "brain", "--json").stdout)["tiers"][0]
    assert (status["state"], status["remedy"], status["without_project"]) == ("present", None, True)
    # a plain command tries the project again (as uv sync does after --no-install-project) and says the same
    plain = scene.run(["install-tier", "brain", *scene.where()])
    assert plain.returncode == 3, plain.stdout + plain.stderr
    assert f"to fix: install-tier brain --python {scene.python} --no-install-project" in plain.stderr
    run_remedy(scene, error["remedy_argv"])  # and the tier stays armed without it
    assert scene.probe_state("brain") == "present"


def test_a_project_tree_failure_of_another_cause_keeps_its_reason_and_its_remedy_leaves_the_project_out(
    tmp_path: Path, walk_parts: Parts
) -> None:
    """A build backend that fails for a reason of its own: no edit tierlock can name, so the message keeps the
    backend's reason and says that the plain command installs the project once its build is fixed; the remedy is
    the command that arms the tier without it (status then says so: nothing is hidden)."""

    def broken_backend(scene: Scene) -> None:
        _packaged_with_one_extra_twice(scene)
        pyproject = scene.root / "pyproject.toml"
        pyproject.write_text(pyproject.read_text(encoding="utf-8").replace('ms_sql = ["app[ms-sql]"]\n', ""), "utf-8")
        (scene.root / "backend.py").write_text("raise RuntimeError('no backend here')\n", encoding="utf-8")

    scene = scene_for(
        State("a backend that fails", "single", broken_backend, ("status",), present("brain")), tmp_path, walk_parts
    )
    failed = scene.run(["install-tier", "brain", *scene.where(), "--json"])
    assert failed.returncode == 3, failed.stdout + failed.stderr
    error = json.loads(failed.stdout)["error"]
    assert error["remedy_argv"] == [["install-tier", "brain", *scene.where(), "--no-install-project"]]
    assert "the tier's own packages are installed, the project app itself is not" in error["message"]
    assert "one name once normalized" not in error["message"]
