"""A tier whose closure requires the project itself (fsspec's ``gs`` tier: gcsfs requires fsspec).

The project ``app`` (an in-tree build backend, so it installs editable
offline) has a ``gs`` tier whose root ``gcsfslike`` requires ``app>=0.2``,
locked as tierlock locks it (the project's pin left out, one comment line
saying so) and as another tool would (the project pinned from the index).
tierlock never installs the project from the index, so the verdict says
whether the project is installed in the target and whether its version
satisfies the requirement, with the command that installs it (uv's, as the
project's backend is uv). ``install-tier`` arms the project from its tree
(editable, as ``uv sync`` does); with ``--no-install-project`` it writes no
receipt until the project is there. Every printed command is run as printed.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.cli import cli_json
from tests.support.env import make_venv
from tests.support.probe_env import editable_project
from tests.support.tierproject import write_lock
from tests.support.verdicts import every_verdict, offline_env, run_remedy
from tests.support.wheels import build_wheel
from tierlock.installer import receipts

TIERS = """
requires-python = ">=3.9"
dependencies = []

[project.optional-dependencies]
gs = ["gcsfslike>=1"]

[tool.tierlock]
lock-dir = "lockfiles"
backend = "uv"

[tool.tierlock.tiers.gs]
"""


@pytest.fixture(scope="module")
def wheelhouse(tmp_path_factory: pytest.TempPathFactory) -> Path:
    house = tmp_path_factory.mktemp("itself-wheels")
    build_wheel(house, "gcsfslike", "1.0", requires=["app>=0.2"])
    build_wheel(house, "app", "0.2.0")  # what a resolver finds on the index; never installed by tierlock
    return house


@pytest.fixture(params=["itself", "pinned"])
def project(
    request: pytest.FixtureRequest, tmp_path: Path, wheelhouse: Path, monkeypatch: pytest.MonkeyPatch
) -> tuple[Path, Path, dict[str, str]]:
    """(project root, the venv's python, the offline settings): the gs tier locked, nothing installed."""
    root = editable_project(tmp_path / "app", name="app", version="0.2.0")
    pyproject = root / "pyproject.toml"
    pyproject.write_text(pyproject.read_text(encoding="utf-8") + TIERS, encoding="utf-8")
    write_lock(root, "base", [])
    gcsfslike = ("gcsfslike", "1.0", wheelhouse / "gcsfslike-1.0-py3-none-any.whl")
    if request.param == "itself":  # as tierlock locks it: the project's pin left out, a comment says so
        write_lock(root, "gs", [gcsfslike], itself="app")
    else:  # as another tool locks it: the project pinned from the index
        write_lock(root, "gs", [("app", "0.2.0", wheelhouse / "app-0.2.0-py3-none-any.whl"), gcsfslike])
    offline = offline_env(wheelhouse, tmp_path / "uv-cache")
    for key, value in offline.items():
        monkeypatch.setenv(key, value)
    return root, make_venv(tmp_path / "venv"), offline


def test_a_tier_that_needs_the_project_says_it_is_not_installed_and_its_remedy_installs_it(
    project: tuple[Path, Path, dict[str, str]], capsys: pytest.CaptureFixture[str]
) -> None:
    root, python, offline = project
    code, done = cli_json(
        capsys, "--project", str(root), "install", "gs", "--python", str(python), "--no-install-project"
    )
    assert code == 1, done
    error = done["error"]
    assert "the project itself" in error["message"]
    assert (
        f"app is not installed in this environment (gcsfslike 1.0 requires app>=0.2; its source is {root})"
        in (error["message"])
    )
    assert receipts.load(receipts.receipt_path(python.parent.parent, "gs")) is None

    broken = every_verdict(capsys, root, python, "gs")
    assert broken.states == ("partial", "partial", "partial", "fail")
    project_doc = broken.probe["project"]
    assert (project_doc["name"], project_doc["state"]) == ("app", "absent")
    assert project_doc["reasons"] == [
        f"the project app is not installed in this environment (gcsfslike 1.0 requires app>=0.2; its source is {root})"
    ]
    remedy = broken.probe["install_command"]
    assert remedy.endswith(f"pip install --python {python} --no-deps -e {root}")
    assert broken.status["remedy"] == broken.admit["probe"]["remedy"] == remedy
    assert error["remedy"] == f"{remedy} && install-tier --project {root} gs --python {python} --no-install-project"

    fixed = run_remedy(error["remedy"], cwd=root, env=offline)
    assert fixed.returncode == 0, fixed.stderr
    healed = every_verdict(capsys, root, python, "gs")
    assert healed.states == ("present", "present", "present", "pass")
    assert healed.probe["project"]["state"] == "present-editable"
    code, again = cli_json(
        capsys, "--project", str(root), "install", "gs", "--python", str(python), "--no-install-project"
    )
    assert (code, again["result"]) == (0, "unchanged")


def test_install_tier_arms_the_project_a_tier_needs_from_its_tree_and_every_verdict_agrees(
    project: tuple[Path, Path, dict[str, str]], capsys: pytest.CaptureFixture[str]
) -> None:
    root, python, _offline = project
    code, done = cli_json(capsys, "--project", str(root), "install", "gs", "--python", str(python))
    assert (code, done["result"]) == (0, "installed"), done
    assert [(s["name"], s["editable"]) for s in done["local_packages"]] == [("app", True)]
    armed = every_verdict(capsys, root, python, "gs")
    assert armed.states == ("present", "present", "present", "pass")
    assert armed.probe["project"]["state"] == "present-editable"
    receipt = receipts.load(receipts.receipt_path(python.parent.parent, "gs"))
    assert receipt is not None
    assert sorted(p["name"] for p in receipt.packages) == ["app", "gcsfslike"]
    code, again = cli_json(capsys, "--project", str(root), "install", "gs", "--python", str(python))
    assert (code, again["result"]) == (0, "unchanged"), again


def test_an_installed_project_older_than_the_tier_requires_is_partial_and_its_remedy_reinstalls_it(
    project: tuple[Path, Path, dict[str, str]], capsys: pytest.CaptureFixture[str]
) -> None:
    root, python, offline = project
    pyproject = root / "pyproject.toml"
    pyproject.write_text(pyproject.read_text(encoding="utf-8").replace('"0.2.0"', '"0.1.0"'), encoding="utf-8")
    old = run_remedy(f"uv pip install --python {python} --no-deps -e {root}", cwd=root, env=offline)
    assert old.returncode == 0, old.stderr
    pyproject.write_text(pyproject.read_text(encoding="utf-8").replace('"0.1.0"', '"0.2.0"'), encoding="utf-8")
    code, done = cli_json(
        capsys, "--project", str(root), "install", "gs", "--python", str(python), "--no-install-project"
    )
    assert code == 1, done

    broken = every_verdict(capsys, root, python, "gs")
    assert broken.states == ("partial", "partial", "partial", "fail")
    assert broken.probe["project"]["reasons"] == [
        "the project app is installed at 0.1.0, which does not satisfy app>=0.2 (required by gcsfslike 1.0) "
        "(an editable install of this source: installing it again reads its version anew; if that is still "
        "0.1.0, the lock chose packages for a newer app than this checkout)"
    ]
    fixed = run_remedy(broken.probe["install_command"], cwd=root, env=offline)
    assert fixed.returncode == 0, fixed.stderr
    assert every_verdict(capsys, root, python, "gs").states == ("present", "present", "present", "pass")
    code, armed = cli_json(
        capsys, "--project", str(root), "install", "gs", "--python", str(python), "--no-install-project"
    )
    assert (code, armed["result"]) == (0, "unchanged"), armed


def test_install_tier_rearms_an_editable_project_older_than_its_source_when_the_tier_needs_it(
    project: tuple[Path, Path, dict[str, str]], capsys: pytest.CaptureFixture[str]
) -> None:
    root, python, offline = project
    pyproject = root / "pyproject.toml"
    pyproject.write_text(pyproject.read_text(encoding="utf-8").replace('"0.2.0"', '"0.1.0"'), encoding="utf-8")
    old = run_remedy(f"uv pip install --python {python} --no-deps -e {root}", cwd=root, env=offline)
    assert old.returncode == 0, old.stderr
    pyproject.write_text(pyproject.read_text(encoding="utf-8").replace('"0.1.0"', '"0.2.0"'), encoding="utf-8")
    code, done = cli_json(capsys, "--project", str(root), "install", "gs", "--python", str(python))
    assert (code, done["result"]) == (0, "installed"), done
    assert every_verdict(capsys, root, python, "gs").states == ("present", "present", "present", "pass")
