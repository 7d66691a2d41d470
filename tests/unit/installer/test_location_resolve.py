"""Where a command that never creates the target acts (probe, status, admit, remove): located as install-tier
locates it, and refused with the command that creates or recreates the project's environment (files only)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tierlock.errors import UsageError
from tierlock.installer.location import Location, active_venv, quick_project_environment, resolve_existing
from tierlock.tiers import load_project

PYPROJECT = """\
[project]
name = "app"
version = "0.1"
dependencies = []

[project.optional-dependencies]
brain = ["corelib"]

[tool.tierlock.tiers.brain]
"""


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.delenv("VIRTUAL_ENV", raising=False)
    monkeypatch.delenv("TIERLOCK_PROJECT_ENVIRONMENT", raising=False)
    root = tmp_path / "app"
    root.mkdir()
    (root / "pyproject.toml").write_text(PYPROJECT)
    return root


def test_a_missing_project_environment_is_refused_with_the_command_that_creates_it(project: Path) -> None:
    loaded = load_project(project)
    with pytest.raises(UsageError, match=r"the project environment \.venv does not exist") as nothing:
        resolve_existing(None, loaded)
    assert nothing.value.remedy == "install-tier base"
    with pytest.raises(UsageError) as named:
        resolve_existing(None, loaded, ["brain"])
    assert named.value.remedy == "install-tier brain"


def test_an_incomplete_project_environment_is_refused_with_the_command_that_recreates_it(project: Path) -> None:
    (project / ".venv").mkdir()
    (project / ".venv" / "CACHEDIR.TAG").write_text("")
    with pytest.raises(UsageError, match=r"the project environment \.venv has no pyvenv\.cfg") as refused:
        resolve_existing(None, load_project(project), ["brain"])
    assert refused.value.remedy == f"rm -rf {project / '.venv'} && install-tier brain"


def test_an_interpreter_named_is_asked_whatever_the_project_environment_is(project: Path) -> None:
    (project / ".venv").mkdir()
    (project / ".venv" / "CACHEDIR.TAG").write_text("")  # incomplete, but not the one asked about
    target = resolve_existing(sys.executable, load_project(project))
    assert target.prefix == Path(sys.prefix)
    assert Location(sys.executable, "--python").missing is False
    assert Location(sys.executable, "--python").problem is None


def test_the_active_venv_counts_unless_it_is_the_one_running_tierlock(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("VIRTUAL_ENV", raising=False)
    assert active_venv() is None
    monkeypatch.setenv("VIRTUAL_ENV", sys.prefix)
    assert active_venv() is None
    monkeypatch.setenv("VIRTUAL_ENV", "/elsewhere/venv")
    assert active_venv() == "/elsewhere/venv"


def test_a_pyproject_that_cannot_be_read_leaves_the_project_environment_to_the_full_path(project: Path) -> None:
    (project / ".venv").mkdir()
    (project / ".venv" / "pyvenv.cfg").write_text("home = /usr/bin\n")
    assert quick_project_environment(str(project / "pyproject.toml")) == str(project / ".venv")
    (project / "pyproject.toml").write_bytes(b"\xff\xfe not utf-8")
    assert quick_project_environment(str(project / "pyproject.toml")) is None
    assert quick_project_environment(str(project / "no-such-pyproject.toml")) is None


def test_uv_project_environment_is_the_project_environment_after_tierlocks_own_variable(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tierlock.installer.location import project_environment

    monkeypatch.delenv("UV_PROJECT_ENVIRONMENT", raising=False)
    assert project_environment(project, None) == str(project / ".venv")
    assert project_environment(project, "env") == str(project / "env")
    monkeypatch.setenv("UV_PROJECT_ENVIRONMENT", "../opt/venv")  # relative to the project, as uv reads it
    assert project_environment(project, None) == str(project.parent / "opt" / "venv")
    assert project_environment(project, "env") == str(project.parent / "opt" / "venv")
    monkeypatch.setenv("UV_PROJECT_ENVIRONMENT", "")  # set but empty: as unset
    assert project_environment(project, "env") == str(project / "env")
    monkeypatch.setenv("UV_PROJECT_ENVIRONMENT", "/opt/uv")
    monkeypatch.setenv("TIERLOCK_PROJECT_ENVIRONMENT", "/opt/own")
    assert project_environment(project, "env") == "/opt/own"


def test_the_fast_path_finds_the_uv_project_environment_without_reading_the_declared_one(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    synced = project.parent / "synced"
    (synced / "bin").mkdir(parents=True)
    (synced / "pyvenv.cfg").write_text("home = /usr/bin\n")
    (project / "pyproject.toml").write_text(PYPROJECT + '\n[tool.tierlock]\nvenv = "env"\n')
    assert quick_project_environment(str(project / "pyproject.toml")) is None  # the full path reads `venv`
    monkeypatch.setenv("UV_PROJECT_ENVIRONMENT", str(synced))
    assert quick_project_environment(str(project / "pyproject.toml")) == str(synced)


def test_an_active_venv_that_is_the_project_environment_removed_is_the_project_environment_to_create(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # `rm -rf .venv` while it was active: VIRTUAL_ENV still names it. Before, "no interpreter at .../.venv" with
    # "pass --python PATH to a python executable" (no command); install-tier creates the project environment.
    from tierlock.installer.location import locate

    loaded = load_project(project)
    monkeypatch.setenv("VIRTUAL_ENV", str(project / ".venv"))
    where = locate(None, loaded)
    assert (where.source, where.folder, where.missing) == ("project", str(project / ".venv"), True)
    with pytest.raises(UsageError) as refused:
        resolve_existing(None, loaded, ["brain"])
    assert str(refused.value).startswith(
        "the project environment .venv does not exist (no --python given and it was the active virtual environment)"
    )
    assert refused.value.remedy == "install-tier brain"
    monkeypatch.setenv("VIRTUAL_ENV", str(project / "other"))  # another venv removed: still the active one
    assert locate(None, loaded).source == "VIRTUAL_ENV"
    (project / ".venv").mkdir()  # there (even half-made): the active one, as before
    monkeypatch.setenv("VIRTUAL_ENV", str(project / ".venv"))
    assert locate(None, loaded).source == "VIRTUAL_ENV"
    monkeypatch.delenv("VIRTUAL_ENV")
    with pytest.raises(UsageError, match=r"no virtual environment active\); install-tier creates it"):
        resolve_existing(None, loaded)
