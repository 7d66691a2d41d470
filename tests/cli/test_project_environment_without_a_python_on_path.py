# ruff: noqa: F811  (pytest fixtures imported from test_install_cli are parameters here)
"""The project environment to create when no Python on PATH satisfies the project's ``requires-python``: the fix
printed is a command that runs (uv finds or fetches one), never a placeholder such as ``python3.X``."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

from tests.cli.test_install_cli import (  # noqa: F401 - the shared session fixtures
    index_env,
    uv_cache,
    wheel_dir,
    wheels,
)
from tests.support.env import bin_dir, clean_env, site_packages
from tests.support.interpreters import interpreter
from tests.support.tierproject import write_lock, write_pyproject
from tierlock.installer import creation, receipts


def _managed_pythons(folder: Path, version: str) -> Path:
    """A uv-managed Python folder holding the pyenv *version* (uv's own layout, its parts linked)."""
    source = interpreter(version).python.parent.parent
    made = folder / f"cpython-{version}-linux-x86_64-gnu"
    made.mkdir(parents=True)
    for part in ("bin", "lib", "include"):
        (made / part).symlink_to(source / part)
    return folder


def test_with_no_python_on_path_for_requires_python_the_printed_uv_venv_makes_it_and_the_install_runs(
    tmp_path: Path, wheels: dict[str, Path], wheel_dir: Path, uv_cache: Path
) -> None:
    root = tmp_path / "proj"
    pyproject = write_pyproject(root)
    text = re.sub(r"(?m)^requires-python = .*$", 'requires-python = ">=3.12"', pyproject.read_text(encoding="utf-8"))
    pyproject.write_text(text, encoding="utf-8")
    write_lock(root, "base", [("basepkg", "1.0", wheels["basepkg-1.0"])])
    env = clean_env(index_env(wheel_dir, uv_cache))
    env["PATH"] = os.pathsep.join([str(bin_dir()), "/usr/bin", "/bin"])  # tierlock's 3.11 and the system's only
    env["UV_PYTHON_INSTALL_DIR"] = str(_managed_pythons(tmp_path / "uv-pythons", "3.12.1"))
    env["UV_PYTHON_DOWNLOADS"] = "never"

    run = subprocess.run(
        [str(bin_dir() / "install-tier"), "base", "--backend", "pip"],
        cwd=root, env=env, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert run.returncode == 2, run.stderr
    assert "no Python satisfying requires-python '>=3.12' was found on PATH" in run.stderr
    assert "python3.X" not in run.stderr
    fix = next(line for line in run.stderr.splitlines() if line.strip().startswith("to fix:"))
    command = fix.split("to fix:", 1)[1].strip()
    assert command.endswith("&& install-tier base --backend pip"), command
    assert not (root / ".venv").exists()

    again = subprocess.run(command, shell=True, cwd=root, env=env, capture_output=True, text=True, check=False)
    assert again.returncode == 0, again.stderr
    assert "Python 3.12.1" in (root / ".venv" / "pyvenv.cfg").read_text(encoding="utf-8").replace("= ", "Python ")
    assert (site_packages(root / ".venv") / "basepkg-1.0.dist-info").is_dir()
    assert receipts.load(receipts.receipt_path(root / ".venv", "base")) is not None


def test_a_python_named_python3_only_on_path_is_asked_and_taken_when_it_satisfies(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "python3").symlink_to(interpreter("3.12.1").python)
    monkeypatch.setenv("PATH", str(tmp_path))
    assert creation.choose_interpreter(">=3.12") == str(tmp_path / "python3")
    assert creation.choose_interpreter(">=3.13") is None
