"""The composite GitHub Action (``action.yml``): its plain-shell steps run in order here, with GitHub's variables.

It installs tierlock from this working tree (the action's own ref) as a tool, arms the tiers in the project's
environment (created when missing), installs the pytest plugin there, runs ``tierlock admit`` and exports the
environment (``VIRTUAL_ENV``), the job's tier set (``TIERLOCK_TIERS``) and the gate's strictness
(``TIERLOCK_STRICT``), with the admit verdict as an output: ``pass`` for a tier it arms and for a damaged tier it
repairs; ``fail`` for a tier it cannot arm, failing the step unless ``strict`` is ``false``. The workflows the
README and the how-to guides show use it as written.

Offline: pip and uv read a local folder holding tierlock's dependencies, its build backend and the project's wheels.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.support import doctutorial
from tests.support.dist import ROOT, dependency_wheels
from tests.support.env import clean_env, site_packages
from tests.support.ghaction import ActionRun, run_action
from tests.support.repack import repack_closure
from tests.support.tierproject import build_wheelhouse, make_project, write_lock, write_pyproject
from tests.support.wheels import build_wheel

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def house(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """tierlock's dependencies (uv too), its build backend and the project's wheels, in one folder."""
    folder = tmp_path_factory.mktemp("action-house")
    dependency_wheels(folder)
    repack_closure(["hatchling"], folder)
    build_wheelhouse(folder)
    return folder


@pytest.fixture(scope="module")
def runner_temp(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One RUNNER_TEMP for the module: the action installs its tool there once, as on one runner."""
    return tmp_path_factory.mktemp("runner-temp")


def _env(links: Path, cache: Path) -> dict[str, str]:
    return clean_env(
        {
            "PIP_NO_INDEX": "1",
            "PIP_FIND_LINKS": str(links),
            "UV_OFFLINE": "1",  # uv has no variable for --no-index: offline, with a cache of this test's own
            "UV_FIND_LINKS": str(links),
            "UV_CACHE_DIR": str(cache),
            "PATH": os.pathsep.join(["/usr/bin", "/bin"]),
            "NO_COLOR": "1",
        }
    )


def _run(root: Path, links: Path, tmp_path: Path, runner_temp: Path, name: str, **inputs: str) -> ActionRun:
    return run_action(
        ROOT / "action.yml",
        inputs,
        cwd=root,
        env=_env(links, tmp_path / "uv-cache"),
        workdir=tmp_path / name,
        runner_temp=runner_temp,
    )


def _project(tmp_path: Path, house: Path) -> Path:
    root = make_project(tmp_path / "app", {p.name.split("-py3")[0]: p for p in house.glob("*.whl")})
    brain_tests = root / "tests" / "brain"
    brain_tests.mkdir(parents=True)
    (brain_tests / "test_core.py").write_text(
        "import corelib\n\n\ndef test_core():\n    assert corelib\n", encoding="utf-8"
    )
    return root


def test_an_armed_tier_passes_and_the_job_gets_its_environment_and_tier_set(
    house: Path, runner_temp: Path, tmp_path: Path
) -> None:
    root = _project(tmp_path, house)
    run = _run(root, house, tmp_path, runner_temp, "first", tier="brain")
    assert run.code == 0, run.log
    venv = root / ".venv"
    assert run.outputs["verdict"] == "pass", run.log
    assert run.outputs["environment"] == str(venv)
    assert run.outputs["tiers"] == "base brain"
    assert '"admitted":true' in run.outputs["admit"]
    assert run.env == {"TIERLOCK_TIERS": "base brain", "TIERLOCK_STRICT": "1", "VIRTUAL_ENV": str(venv)}
    assert run.path == [str(runner_temp / "tierlock-action" / "bin")]  # tierlock for the job's later steps
    assert "with the job's Python" not in run.log  # (the tool runs on the job's python3: tierlock makes the venv)
    installed = {p.name for p in site_packages(venv).glob("*.dist-info")}
    assert {"corelib-1.0.dist-info", "helper-1.0.dist-info", "basepkg-1.0.dist-info"} <= installed
    assert any(name.startswith("tierlock-") for name in installed)  # the pytest plugin, for the gate

    again = _run(root, house, tmp_path, runner_temp, "again", tier="brain")
    assert again.code == 0, again.log
    assert "already present" in again.log or "unchanged" in again.log


def test_a_damaged_tier_is_repaired_and_passes(house: Path, runner_temp: Path, tmp_path: Path) -> None:
    root = _project(tmp_path, house)
    assert _run(root, house, tmp_path, runner_temp, "arm", tiers="brain").code == 0
    compiled = next((site_packages(root / ".venv") / "corelib").glob("_core*"))
    compiled.unlink()  # a husk: the .dist-info stays, the compiled file is gone
    run = _run(root, house, tmp_path, runner_temp, "repair", tiers="brain")
    assert run.code == 0, run.log
    assert "brain: repaired" in run.log
    assert run.outputs["verdict"] == "pass"
    assert compiled.is_file()


def test_a_tier_that_cannot_be_armed_fails_the_step_with_the_verdict(
    house: Path, runner_temp: Path, tmp_path: Path
) -> None:
    root = _project(tmp_path, house)
    links = tmp_path / "without-corelib"
    shutil.copytree(house, links)
    for wheel in links.glob("corelib-*.whl"):
        wheel.unlink()  # the index lacks a package of the tier: it stays absent
    run = _run(root, links, tmp_path, runner_temp, "strict", tier="brain")
    assert run.code == 1, run.log
    assert run.outputs["verdict"] == "fail"
    assert run.steps["arm"]["armed"] == "false"
    assert "::error::install-tier:" in run.log
    assert '"admitted":false' in run.outputs["admit"]
    assert run.env["TIERLOCK_TIERS"] == "base brain"

    lenient = _run(root, links, tmp_path, runner_temp, "lenient", tier="brain", strict="false")
    assert lenient.code == 0, lenient.log
    assert lenient.outputs["verdict"] == "fail"
    assert lenient.env["TIERLOCK_STRICT"] == "0"


def test_a_tierlock_the_tiers_lock_stays_the_plugin_and_the_tier_passes(
    house: Path, runner_temp: Path, tmp_path: Path
) -> None:
    """A project that locks tierlock in a tier (`tierlock init` adds it to the test group): the plugin step keeps
    the locked one. The action's own version in its place made the tier partial (admit failed), and re-arming it,
    as admit's remedy said, was undone by the next run's plugin step."""
    links = tmp_path / "links"
    shutil.copytree(house, links)
    locked = build_wheel(links, "tierlock", "0.0.1")
    root = _project(tmp_path, house)
    write_pyproject(root, brain=("corelib>=1", "helper>=1", "tierlock>=0.0.1"))
    wheels = {p.name.split("-py3")[0]: p for p in links.glob("*.whl")}
    base = [("basepkg", "1.0", wheels["basepkg-1.0"])]
    write_lock(root, "base", base)
    brain = [("corelib", "1.0", wheels["corelib-1.0"]), ("helper", "1.0", wheels["helper-1.0"])]
    write_lock(root, "brain", [*base, *brain, ("tierlock", "0.0.1", locked)])
    for name in ("first", "again"):
        run = _run(root, links, tmp_path, runner_temp, name, tier="brain")
        assert run.code == 0, run.log
        assert run.outputs["verdict"] == "pass", run.log
        assert "pytest plugin: the project's locked tierlock 0.0.1 (tier brain), not the action's own" in run.log
        tierlock = [p.name for p in site_packages(root / ".venv").glob("tierlock-*.dist-info")]
        assert tierlock == ["tierlock-0.0.1.dist-info"]


def test_a_tier_the_project_does_not_declare_fails_the_step_with_the_error_not_a_traceback(
    house: Path, runner_temp: Path, tmp_path: Path
) -> None:
    root = _project(tmp_path, house)
    run = _run(root, house, tmp_path, runner_temp, "typo", tier="brian")
    assert run.code == 2, run.log
    assert "::error::unknown tier 'brian'; declared tiers: base, brain (did you mean 'brain'?)" in run.log
    assert "to fix: name a declared tier" in run.log
    assert "Traceback" not in run.log
    assert "arm" not in run.steps  # nothing armed for a tier set that could not be read


def test_a_comma_separated_tier_list_is_read_name_by_name(house: Path, runner_temp: Path, tmp_path: Path) -> None:
    # Before: "base,brian" was one name, refused as "unknown tier 'base,brian'" whatever its parts.
    root = _project(tmp_path, house)
    run = _run(root, house, tmp_path, runner_temp, "commas", tiers="base,brian")
    assert run.code == 2, run.log
    assert "::error::unknown tier 'brian'; declared tiers: base, brain (did you mean 'brain'?)" in run.log


def test_a_job_on_a_python_the_plugin_does_not_support_arms_and_admits_its_tiers_and_says_pytest_runs_ungated(
    house: Path, runner_temp: Path, tmp_path: Path
) -> None:
    # before: the plugin step failed the job with uv's resolver error (tierlock requires Python >= 3.11)
    from tests.support.interpreters import interpreter, make_venv_with

    old = interpreter("3.10.13")
    root = _project(tmp_path, house)
    pyproject = root / "pyproject.toml"
    pyproject.write_text(pyproject.read_text(encoding="utf-8").replace('">=3.11"', '">=3.9"'), encoding="utf-8")
    wheels = {p.name.split("-py3")[0]: p for p in house.glob("*.whl")}
    write_lock(root, "base", [("basepkg", "1.0", wheels["basepkg-1.0"])])  # (locked again: requires-python moved)
    make_venv_with(old.python, root / ".venv")
    run = _run(root, house, tmp_path, runner_temp, "py310", tier="base")
    assert run.code == 0, run.log
    assert run.outputs["verdict"] == "pass", run.log
    assert (
        "::warning::pytest runs without tierlock's gate in this job: its environment runs Python 3.10.13 and "
        "tierlock's pytest plugin needs Python >=3.11; tierlock admit still gates the job's tiers"
    ) in run.log
    assert not list(site_packages(root / ".venv").glob("tierlock-*.dist-info"))
    shutil.rmtree(next(site_packages(root / ".venv").glob("basepkg-*.dist-info")))  # the tier lost: armed again
    again = _run(root, house, tmp_path, runner_temp, "py310-again", tier="base")
    assert (again.code, again.outputs["verdict"]) == (0, "pass"), again.log


def _workflow_steps(page: Path, path: str) -> list[dict[str, Any]]:
    """The steps of the workflow in the ``<!-- file: PATH -->`` block of a page (any job, or a bare ``steps:``)."""
    blocks = [
        s.content for s in doctutorial.parse(page.read_text(encoding="utf-8")) if s.kind == "file" and s.path == path
    ]
    assert len(blocks) == 1, f"{page}: one {path} block expected"
    doc = yaml.safe_load(blocks[0])
    jobs = doc["jobs"].values() if "jobs" in doc else [doc]
    return [step for job in jobs for step in job.get("steps", [])]


def _action_step(steps: list[dict[str, Any]]) -> dict[str, Any]:
    ours = [s for s in steps if str(s.get("uses", "")).startswith("OWNER/tierlock@")]
    assert len(ours) == 1
    return {"uses": ours[0]["uses"], "with": ours[0]["with"]}  # an `id:` is the job's own business


def test_the_documented_workflows_use_the_action_as_written(house: Path, runner_temp: Path, tmp_path: Path) -> None:
    """The how-to's job runs here: its `with:` are the action's inputs and its test step finds the environment."""
    howto = _workflow_steps(ROOT / "docs" / "howto" / "pre-commit-and-github-action.md", ".github/workflows/tests.yml")
    readme = _workflow_steps(ROOT / "README.md", ".github/workflows/tests.yml")
    matrix = _workflow_steps(ROOT / "docs" / "howto" / "ci-matrix.md", ".github/workflows/matrix.yml")
    step = _action_step(howto)
    assert _action_step(readme) == step
    assert _action_step(matrix) == {"uses": step["uses"], "with": {"tier": "${{ matrix.tier }}"}}
    assert howto[-1] == readme[-1] == matrix[-1] == {"run": "$VIRTUAL_ENV/bin/python -m pytest"}

    root = _project(tmp_path, house)
    run = _run(root, house, tmp_path, runner_temp, "howto", **step["with"])
    assert run.code == 0, run.log
    assert run.outputs["verdict"] == "pass"
    assert (Path(run.env["VIRTUAL_ENV"]) / "bin" / "python").is_file()  # what the test step runs


def _only(folder: Path, *names: str) -> Path:
    """A folder of links to the commands a job's shell needs and nothing else (no Python among them)."""
    folder.mkdir(parents=True)
    for name in names:
        target = shutil.which(name, path="/usr/bin:/bin")
        assert target is not None, name
        (folder / name).symlink_to(target)
    return folder


def _runner_with(path: list[Path], root: Path, links: Path, tmp_path: Path, name: str, **inputs: str) -> ActionRun:
    """The action on a runner whose PATH is *path* (as ``actions/setup-python`` leaves it), in a RUNNER_TEMP of its
    own (the tool is installed afresh)."""
    env = {**_env(links, tmp_path / "uv-cache"), "PATH": os.pathsep.join(str(p) for p in path)}
    runner = tmp_path / f"runner-{name}"
    runner.mkdir()
    return run_action(ROOT / "action.yml", inputs, cwd=root, env=env, workdir=tmp_path / name, runner_temp=runner)


def test_a_runner_whose_python3_is_older_than_tierlocks_installs_the_tool_with_a_newer_python_on_path(
    house: Path, tmp_path: Path
) -> None:
    """``actions/setup-python`` with ``python-version: 3.10`` (or ubuntu-22.04's own python3): python3 is 3.10, and
    tierlock needs 3.11. Before: the install step made the tool's venv with it, pip refused tierlock, and the job
    failed before arming anything; a newer Python on PATH (``python3.12``) was never tried."""
    from tests.support.interpreters import PYENV, interpreter

    interpreter("3.10.13")
    interpreter("3.12.1")
    tools = _only(tmp_path / "tools", "bash", "cat", "tr", "env", "uname", "sed")
    root = _project(tmp_path, house)
    pyproject = root / "pyproject.toml"
    pyproject.write_text(pyproject.read_text(encoding="utf-8").replace('">=3.11"', '">=3.10"'), encoding="utf-8")
    wheels = {p.name.split("-py3")[0]: p for p in house.glob("*.whl")}
    write_lock(root, "base", [("basepkg", "1.0", wheels["basepkg-1.0"])])
    # the how-to's workflow: setup-python puts both on PATH, the last one listed first (python3)
    steps = _workflow_steps(ROOT / "docs" / "howto" / "pre-commit-and-github-action.md", ".github/workflows/py310.yml")
    assert steps[1]["with"]["python-version"].split() == ["3.12", "3.10"]
    assert _action_step(steps)["with"] == {"tier": "base"}
    path = [PYENV / "3.10.13" / "bin", PYENV / "3.12.1" / "bin", tools]
    run = _runner_with(path, root, house, tmp_path, "py310-first", **_action_step(steps)["with"])
    assert run.code == 0, run.log
    assert run.outputs["verdict"] == "pass", run.log
    tool = Path(run.path[0]).parent
    assert (tool / "pyvenv.cfg").read_text(encoding="utf-8").count("3.12.1") >= 1, run.log
    # the job's own environment is the job's Python (python3 on PATH), not the tool's
    assert "version = 3.10.13" in (root / ".venv" / "pyvenv.cfg").read_text(encoding="utf-8")
    assert "created the project environment" in run.log
    assert "with the job's Python 3.10.13" in run.log
    ungated = "::warning::pytest runs without tierlock's gate in this job: its environment runs Python 3.10.13"
    assert ungated in run.log
    assert next(site_packages(root / ".venv").glob("basepkg-1.0.dist-info"))


def test_a_runner_with_no_python_tierlock_runs_on_fails_the_install_step_with_the_workflow_fix(
    house: Path, tmp_path: Path
) -> None:
    from tests.support.interpreters import PYENV, interpreter

    interpreter("3.10.13")
    tools = _only(tmp_path / "tools", "bash", "cat", "tr", "env", "uname", "sed")
    root = _project(tmp_path, house)
    run = _runner_with([PYENV / "3.10.13" / "bin", tools], root, house, tmp_path, "py310-only", tier="base")
    assert run.code == 1, run.log
    assert (
        "::error::tierlock needs Python >=3.11 and this runner's PATH has none (python3 is Python 3.10.13)" in run.log
    )
    assert (
        "to fix: add the Python tierlock runs on to actions/setup-python, listed before the job's own: "
        'python-version: "3.12\\n3.10" (one per line; the last one listed is the job\'s python3)'
    ) in run.log
    assert "Traceback" not in run.log
    assert list(run.steps) == ["install"]
