"""One remedy, runnable where it is printed: the environment pytest runs in, and the smallest tier that fixes it.

pytest here runs in a real virtual environment of its own (a ``.pth`` file lends it this checkout's pytest and
tierlock) that is not the one ``install-tier`` picks by default (no active venv, no project ``.venv``): the remedy
then names it with ``--python``, and the printed command, run exactly as printed (the index options come from the
user's configuration, as pip and uv read it), arms the tier so that the next run passes. A root that an aggregate
tier also holds (``full``: ``brainpkg`` and ``otherpkg``) is fixed by the smallest tier providing it
(``brain``), the same in lenient and strict runs.
"""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

import pytest

from tests.support.lockproj import lock_offline
from tests.support.plugin_project import laptop, write_files
from tests.support.plugin_venv import locked_pyproject, offline, own_venv, remedy_of, run_printed
from tests.support.plugin_venv import run_pytest as run
from tests.support.wheels import build_wheel
from tierlock.pytest_plugin import EXIT_TIER_MISSING

PYPROJECT = locked_pyproject({"brain": ["brainpkg"], "full": ["brainpkg", "otherpkg"]}, ["brain", "full"])

COMPUTED_SKIP = """\
import pytest


def test_model():
    pytest.importorskip("brain" + "pkg")
"""


@pytest.fixture(scope="module")
def house(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("remedy-wheels")
    build_wheel(folder, "brainpkg", "1.0")
    build_wheel(folder, "otherpkg", "1.0")
    return folder


@pytest.fixture
def project(tmp_path: Path, house: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    laptop(monkeypatch)
    folder = lock_offline(tmp_path / "inner", house, PYPROJECT)
    write_files(folder, {"tests/test_model.py": COMPUTED_SKIP})
    return folder


def test_the_remedy_names_the_environment_pytest_runs_in_and_converges_when_run_as_printed(
    project: Path, tmp_path: Path, house: Path
) -> None:
    python = own_venv(tmp_path)
    first = run(python, project)
    assert first.returncode == 0, first.stdout + first.stderr
    printed = remedy_of(first.stdout, "to run them: ")
    assert printed == shlex.join(["install-tier", "brain", "--python", str(python)])
    armed = run_printed(printed, project, offline(house))
    assert armed.returncode == 0, armed.stdout + armed.stderr
    second = run(python, project, "-rs")
    assert second.returncode == 0, second.stdout
    assert "1 passed" in second.stdout


def test_without_another_default_environment_the_remedy_has_no_python(project: Path) -> None:
    result = run(Path(sys.executable), project, extra={"VIRTUAL_ENV": sys.prefix})
    assert remedy_of(result.stdout, "to run them: ") == "install-tier brain"


def test_lenient_and_strict_print_the_same_smallest_remedy(project: Path) -> None:
    env = {"VIRTUAL_ENV": sys.prefix}
    lenient = run(Path(sys.executable), project, "-rs", extra=env)
    strict = run(Path(sys.executable), project, extra={**env, "CI": "true"})
    assert strict.returncode == EXIT_TIER_MISSING
    assert remedy_of(lenient.stdout, "to run them: ") == "install-tier brain"
    assert remedy_of(lenient.stdout, "to run these tests: ") == "install-tier brain)"  # in the skip reason
    assert remedy_of(strict.stdout, "to fix: ") == "install-tier brain"
    assert "full" not in strict.stdout.split("needed it:")[1]
