"""The command that adds a package to tierlock's own environment (the "no lock backend" remedy)."""

from __future__ import annotations

import shlex
import sys

import pytest

from tierlock.errors import BackendError
from tierlock.selfinstall import NO_LOCK_BACKEND, install_command


def test_a_pipx_environment_gets_pipx_inject() -> None:
    command = install_command("uv", prefix="/home/me/.local/share/pipx/venvs/tierlock", executable="/x/python")
    assert command == "pipx inject tierlock uv"


def test_an_environment_with_pip_gets_its_own_interpreter_running_pip() -> None:
    command = install_command("uv", prefix="/work/.venv", executable="/work/my env/bin/python")
    assert command == "'/work/my env/bin/python' -m pip install uv"


def test_lock_without_any_backend_names_the_uv_extra_and_the_command(monkeypatch: pytest.MonkeyPatch) -> None:
    from tierlock.lockfiles import backends

    monkeypatch.setattr(backends, "_find", lambda _name: None)
    with pytest.raises(BackendError) as exc:
        backends.choose("auto")
    assert exc.value.message == NO_LOCK_BACKEND
    assert "tierlock[uv]" in exc.value.message
    assert exc.value.remedy == f"{shlex.quote(sys.executable)} -m pip install uv"
    assert exc.value.exit_code == 3
