"""The Python of the interpreter chosen to make the project environment: whether tierlock's own pip runs there."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests.support.interpreters import interpreter
from tierlock import load_project
from tierlock.errors import BackendError
from tierlock.installer import backends, creation

if TYPE_CHECKING:
    from tierlock.tiers import Project


def test_the_interpreter_running_tierlock_is_its_own_version_and_a_python3_n_on_path_is_its_minor() -> None:
    assert creation.version_of(creation.base_interpreter()) == tuple(sys.version_info[:3])
    assert creation.version_of("/usr/bin/python3.9") == (3, 9, 0)
    assert creation.version_of("/opt/bin/python3.13") == (3, 13, 0)
    assert creation.version_of("/opt/bin/python3.13-config") == tuple(sys.version_info[:3])  # not a python3.N


def test_an_interpreter_that_runs_is_asked_its_version_whatever_its_name_says(tmp_path: Path) -> None:
    """A ``python3.9`` on PATH that is 3.12.1 (a link by another name): the version is the one it says it is."""
    (tmp_path / "python3.9").symlink_to(interpreter("3.12.1").python)
    assert creation.version_of(str(tmp_path / "python3.9")) == (3, 12, 1)
    (tmp_path / "python3.13").write_text("#!/bin/sh\nexit 127\n")
    (tmp_path / "python3.13").chmod(0o755)
    assert creation.version_of(str(tmp_path / "python3.13")) == (3, 13, 0)  # does not run: its name's minor


def test_choosing_asks_each_candidate_and_remembers_what_the_chosen_one_said(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "python3.13").write_text("#!/bin/sh\necho 3.13.0\nexit 1\n")  # says a version, but fails
    (tmp_path / "python3.13").chmod(0o755)
    (tmp_path / "python3.12").symlink_to(interpreter("3.12.1").python)
    monkeypatch.setenv("PATH", str(tmp_path))
    chosen = creation.choose_interpreter(">=3.12")
    assert chosen == str(tmp_path / "python3.12")
    assert creation._ASKED[chosen] == (3, 12, 1)
    assert creation.choose_interpreter(">=3.12.2") is None
    own = f"=={sys.version_info[0]}.{sys.version_info[1]}.*"
    assert creation.choose_interpreter(own) == creation.base_interpreter()


def test_a_requires_python_that_is_no_specifier_rules_no_python_out() -> None:
    """(The project's own check reports it; the interpreter running tierlock is taken.)"""
    assert creation.choose_interpreter("not a specifier") == creation.base_interpreter()
    assert creation.choose_interpreter(None) == creation.base_interpreter()


def _project(folder: Path, requires_python: str) -> Project:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "pyproject.toml").write_text(
        f'[project]\nname = "p"\nrequires-python = "{requires_python}"\n\n[tool.tierlock]\n', encoding="utf-8"
    )
    return load_project(folder)


def test_the_base_interpreter_is_the_one_tierlocks_venv_was_made_from_not_the_venvs_own() -> None:
    base = getattr(sys, "_base_executable", None)
    assert base
    assert creation.base_interpreter() == base
    if sys.prefix != sys.base_prefix:  # the suite runs in a venv: its own python is not its base
        assert creation.base_interpreter() != sys.executable


def test_with_pip_the_project_environment_is_made_without_pip_when_tierlocks_pip_runs_there(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    own = f">={sys.version_info[0]}.{sys.version_info[1]}"
    project = _project(tmp_path / "proj", own)
    folder = str(project.root / ".venv")
    notes: list[str] = []
    monkeypatch.setenv("PATH", os.defpath)
    creation.create(folder, project=project, backend="pip", again="install-tier base", note=notes.append)
    assert (project.root / ".venv" / "pyvenv.cfg").is_file()
    assert backends.own_pip_sites(sys.version_info[:3])  # so the venv was made --without-pip
    assert not list((project.root / ".venv").glob("lib/python*/site-packages/pip"))
    assert notes == [f"created the project environment .venv with python -m venv ({creation.base_interpreter()})"]


def test_a_uv_that_cannot_be_started_is_said_with_the_uv_venv_the_person_can_run_instead(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = _project(tmp_path / "proj", f">={sys.version_info[0]}.{sys.version_info[1]}")
    broken = tmp_path / "uv"
    broken.write_text("#!/nonexistent/interpreter\n")
    broken.chmod(0o755)
    monkeypatch.setenv(backends.UV_ENV, str(broken))
    folder = str(project.root / ".venv")
    with pytest.raises(BackendError) as raised:
        creation.create(folder, project=project, backend="uv", again="install-tier base", note=lambda _: None)
    assert raised.value.remedy == f"create it yourself (uv venv {folder}), then run: install-tier base"
    assert not (project.root / ".venv" / "pyvenv.cfg").exists()


def _uv_script(folder: Path, body: str) -> Path:
    script = folder / "uv"
    script.write_text(f"#!/bin/sh\n{body}\n")
    script.chmod(0o755)
    return script


@pytest.mark.parametrize(
    ("body", "exit_code"),
    [("exit 0", 0), ('mkdir -p "$2" && touch "$2/pyvenv.cfg" && exit 1', 1)],
    ids=["exits-0-without-pyvenv-cfg", "makes-pyvenv-cfg-but-fails"],
)
def test_a_uv_venv_that_fails_or_makes_no_venv_is_a_backend_error_naming_its_exit_and_the_install_to_rerun(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, body: str, exit_code: int
) -> None:
    project = _project(tmp_path / "proj", f">={sys.version_info[0]}.{sys.version_info[1]}")
    monkeypatch.setenv(backends.UV_ENV, str(_uv_script(tmp_path, body)))
    notes: list[str] = []
    with pytest.raises(BackendError) as raised:
        creation.create(
            str(project.root / ".venv"), project=project, backend="uv", again="install-tier base", note=notes.append
        )
    assert f"creating the project environment .venv failed (exit {exit_code})" in str(raised.value)
    assert raised.value.remedy == f"create it yourself (uv venv {project.root / '.venv'}), then run: install-tier base"
    assert notes == []


def test_uv_is_handed_the_interpreter_chosen_else_the_requires_python_specifier(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """uv is told which Python: the one found that satisfies requires-python, else the specifier itself."""
    said = tmp_path / "argv"
    makes = '/bin/mkdir -p "$2" && /usr/bin/touch "$2/pyvenv.cfg"'
    monkeypatch.setenv(backends.UV_ENV, str(_uv_script(tmp_path, f'echo "$@" > {said}\n{makes}')))
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "python3.12").symlink_to(interpreter("3.12.1").python)
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))
    found = _project(tmp_path / "found", ">=3.12")
    creation.create(
        str(found.root / ".venv"), project=found, backend="uv", again="install-tier base", note=lambda _: None
    )
    assert said.read_text().split() == [
        "venv",
        str(found.root / ".venv"),
        "--python",
        str(tmp_path / "bin" / "python3.12"),
    ]
    missing = _project(tmp_path / "missing", ">=3.99")
    notes: list[str] = []
    creation.create(
        str(missing.root / ".venv"), project=missing, backend="uv", again="install-tier base", note=notes.append
    )
    assert said.read_text().split() == ["venv", str(missing.root / ".venv"), "--python", ">=3.99"]
    assert notes == ["created the project environment .venv with uv venv (>=3.99)"]
