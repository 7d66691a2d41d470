"""The project's venv removed while it was active (``rm -rf .venv`` to make it again, the shell's ``VIRTUAL_ENV``
still naming it). Before, every command said "no interpreter at .../.venv" with "pass --python PATH to a python
executable", which is no command; now it is the project environment that does not exist, and ``install-tier``, the
printed fix, creates it there and arms the tier."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.cli.test_uv_project_environment import _run, links  # noqa: F401 (the wheels' fixture)
from tests.support.env import bin_dir
from tests.support.tierproject import tool_project

pytestmark = pytest.mark.slow


def test_the_removed_active_project_venv_is_created_again_by_the_printed_fix(tmp_path: Path, links: Path) -> None:  # noqa: F811
    root, env = tool_project(tmp_path, links)
    env["VIRTUAL_ENV"] = str(root / ".venv")
    status = _run([str(bin_dir() / "tierlock"), "status", "brain"], root, env)
    said = status.stdout + status.stderr
    assert status.returncode == 2, said
    assert "the project environment .venv does not exist" in said, said
    fix = next(line for line in said.splitlines() if "to fix: " in line).split("to fix: ", 1)[1].strip()
    assert fix == "install-tier brain", fix
    done = subprocess.run(fix, shell=True, cwd=root, env=env, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    assert (root / ".venv" / "pyvenv.cfg").is_file()
    probed = _run([str(bin_dir() / "tierlock"), "probe", "brain"], root, env)
    assert probed.returncode == 0, probed.stdout + probed.stderr
