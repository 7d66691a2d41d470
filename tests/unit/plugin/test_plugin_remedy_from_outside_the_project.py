"""The plugin's remedy names the project when pytest ran outside it, and converges run as printed from there.

``pytest services/api/tests`` from a monorepo's root (whose own pyproject.toml, if any, is not the project's) or
``pytest --rootdir services/api ...``: the printed ``install-tier brain`` run from that root finds another
project or none. The remedy now says ``install-tier --project services/api brain ...`` (the project's folder
relative to where pytest ran, absolute when it is not below it) whenever the folder pytest ran in does not
resolve to the project by itself, and nothing more when it does.
"""

from __future__ import annotations

import shlex
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.support.lockproj import lock_offline
from tests.support.plugin_project import laptop, write_files
from tests.support.plugin_venv import locked_pyproject, offline, own_venv, remedy_of, run_printed
from tests.support.plugin_venv import run_pytest as run
from tests.support.wheels import build_wheel
from tierlock.pytest_plugin.startup import given_project

PYPROJECT = locked_pyproject({"brain": ["brainpkg"]}, ["brain"])

NEEDS_BRAIN = """\
import pytest


def test_model():
    pytest.importorskip("brain" + "pkg")
"""


@pytest.fixture(scope="module")
def house(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("outside-wheels")
    build_wheel(folder, "brainpkg", "1.0")
    return folder


@pytest.fixture
def monorepo(tmp_path: Path, house: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """``mono/`` with a pyproject.toml of its own (no tiers) and the project at ``mono/services/api``."""
    laptop(monkeypatch)
    top = tmp_path / "mono"
    folder = lock_offline(top / "services" / "api", house, PYPROJECT)
    write_files(folder, {"tests/test_model.py": NEEDS_BRAIN})
    (top / "pyproject.toml").write_text('[project]\nname = "mono"\nversion = "0"\n', encoding="utf-8")
    return top


@pytest.mark.parametrize(
    "args",
    [("services/api/tests",), ("--rootdir", "services/api", "services/api/tests")],
    ids=["selected path", "--rootdir"],
)
def test_a_remedy_printed_by_pytest_run_above_the_project_arms_it_when_run_as_printed_from_there(
    monorepo: Path, tmp_path: Path, house: Path, args: tuple[str, ...]
) -> None:
    python = own_venv(tmp_path)
    first = run(python, monorepo, *args, "-rs")
    assert first.returncode == 0, first.stdout + first.stderr
    printed = remedy_of(first.stdout, "to run them: ")
    assert printed == shlex.join(["install-tier", "--project", "services/api", "brain", "--python", str(python)])
    reason = remedy_of(first.stdout, "to run these tests: ")  # the skip reason says the same
    assert reason.startswith(printed), reason
    armed = run_printed(printed, monorepo, offline(house))
    assert armed.returncode == 0, armed.stdout + armed.stderr
    second = run(python, monorepo, *args, "-rs")
    assert second.returncode == 0, second.stdout
    assert "1 passed" in second.stdout


def test_strict_from_above_the_project_names_it_in_the_fix(monorepo: Path, tmp_path: Path, house: Path) -> None:
    python = own_venv(tmp_path)
    strict = run(python, monorepo, "services/api/tests", extra={"CI": "true"})
    assert strict.returncode != 0, strict.stdout
    printed = remedy_of(strict.stdout, "to fix: ")
    assert printed == shlex.join(["install-tier", "--project", "services/api", "brain", "--python", str(python)])
    assert run_printed(printed, monorepo, offline(house)).returncode == 0
    assert run(python, monorepo, "services/api/tests", extra={"CI": "true"}).returncode == 0


def test_run_inside_the_project_the_remedy_names_no_project(monorepo: Path, tmp_path: Path) -> None:
    python = own_venv(tmp_path)
    inside = run(python, monorepo / "services" / "api" / "tests", "-rs")
    assert remedy_of(inside.stdout, "to run them: ") == shlex.join(["install-tier", "brain", "--python", str(python)])


def test_the_project_named_is_relative_below_the_folder_and_absolute_elsewhere(tmp_path: Path) -> None:
    project = tmp_path / "a" / "prj"
    (project / "tests").mkdir(parents=True)
    (project / "pyproject.toml").write_text("", encoding="utf-8")
    (tmp_path / "b").mkdir()
    pyproject = project / "pyproject.toml"
    assert given_project(tmp_path / "a", pyproject) == "prj"
    assert given_project(tmp_path / "b", pyproject) == str(project.resolve())
    assert given_project(project / "tests", pyproject) is None
    assert given_project(project, pyproject) is None
    (project / "tests" / "pyproject.toml").write_text("", encoding="utf-8")  # a nearer one is another project
    assert given_project(project / "tests", pyproject) == str(project.resolve())


def test_pytester_above_the_project_prints_the_remedy_naming_it_and_inside_names_none(
    pytester: pytest.Pytester, house: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same rule through pytester (pytest run in a subprocess from pytester's folder, the monorepo's root):
    install-tier's default environment is the one pytest runs in, so only the project is named."""
    laptop(monkeypatch)
    monkeypatch.setenv("VIRTUAL_ENV", sys.prefix)
    folder = lock_offline(pytester.path / "services" / "api", house, PYPROJECT)
    write_files(folder, {"tests/test_model.py": NEEDS_BRAIN})
    (pytester.path / "pyproject.toml").write_text('[project]\nname = "mono"\nversion = "0"\n', encoding="utf-8")
    above = pytester.runpytest_subprocess("services/api/tests", "-rs")
    above.stdout.fnmatch_lines(["*; to run them: install-tier --project services/api brain"])
    above.stdout.fnmatch_lines(["*to run these tests: install-tier --project services/api brain*"])
    monkeypatch.chdir(folder)
    inside = pytester.runpytest_subprocess("tests", "-rs")
    inside.stdout.fnmatch_lines(["*; to run them: install-tier brain"])


def test_a_decision_given_a_project_names_it_in_every_remedy_it_words() -> None:
    from tierlock.pytest_plugin.decision import Gate

    fields: dict[str, Any] = {"root": "/mono/api", "strict": False, "why": "not CI", "gated": {}, "broken": {}}
    states = {"base": "present", "brain": "absent", "gpu": "absent"}
    install = {"brain": "tierlock lock brain && install-tier brain", "gpu": "install-tier gpu"}
    gate = Gate(**fields, states=states, install=install, job=["base", "brain"], project="api")
    assert gate.remedy(["brain"]) == "tierlock --project api lock brain && install-tier --project api brain"
    assert gate.reason("gpu").endswith("; to run these tests: tierlock --project api matrix")
    fix = "tierlock --project api lock brain && install-tier --project api brain"
    assert gate.reason("brain") == f"tier brain is absent; to run these tests: {fix}"
    here = Gate(**fields, states=states, install=install)
    assert here.remedy(["brain"]) == "tierlock lock brain && install-tier brain"
