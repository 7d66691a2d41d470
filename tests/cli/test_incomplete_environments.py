# ruff: noqa: F811  (pytest fixtures imported from test_install_cli are parameters here)
"""Incomplete project environments: recognised, named, and recreated by the printed command.

With no ``--python`` and no active venv, tierlock acts on the project's
``.venv``. When that is a dangling symlink, a folder without ``pyvenv.cfg``,
or what a killed ``uv venv`` / ``python -m venv`` leaves (no ``pyvenv.cfg``
yet; ``pyvenv.cfg`` but no site-packages; ``pyvenv.cfg`` but no
interpreter), ``uv venv`` itself refuses ("already exists"). ``install-tier``
and ``probe`` say what is wrong, and the command they print, run as printed,
recreates the environment and arms the tier.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.cli.test_install_cli import index_env, uv_cache, wheel_dir, wheels  # noqa: F401 - session fixtures
from tests.support.cli import cli_json
from tests.support.env import bin_dir, clean_env
from tests.support.tierproject import make_project
from tests.support.verdicts import run_remedy


def _uv_venv(venv: Path) -> None:
    subprocess.run([str(bin_dir() / "uv"), "venv", "-q", str(venv)], check=True, env=clean_env())


def dangling(venv: Path) -> None:
    venv.symlink_to(venv.parent / "gone" / "venv")


def no_cfg(venv: Path) -> None:
    _uv_venv(venv)
    (venv / "pyvenv.cfg").unlink()


def uv_killed_before_cfg(venv: Path) -> None:
    venv.mkdir()  # what uv venv writes first
    (venv / "CACHEDIR.TAG").write_text("Signature: 8a477f597d28d172789f06886806bc55\n", encoding="utf-8")
    (venv / ".gitignore").write_text("*\n", encoding="utf-8")


def uv_killed_after_cfg(venv: Path) -> None:
    _uv_venv(venv)  # pyvenv.cfg is written before lib/pythonX.Y/site-packages
    shutil.rmtree(venv / "lib")
    (venv / "lib64").unlink()


def venv_killed_before_python(venv: Path) -> None:
    subprocess.run(["python3", "-m", "venv", "--without-pip", str(venv)], check=True, env=clean_env())
    for exe in (venv / "bin").glob("python*"):  # pyvenv.cfg is written before the interpreter links
        exe.unlink()


STATES: dict[str, tuple[Callable[[Path], None], str]] = {
    "dangling symlink": (dangling, "is a symlink to {gone}, which does not exist"),
    "no pyvenv.cfg": (no_cfg, "has no pyvenv.cfg"),
    "uv venv killed before pyvenv.cfg": (uv_killed_before_cfg, "has no pyvenv.cfg"),
    "uv venv killed after pyvenv.cfg": (uv_killed_after_cfg, "has no site-packages folder"),
    "python -m venv killed before its interpreter": (venv_killed_before_python, "has no interpreter"),
}


@pytest.mark.parametrize("state", list(STATES))
def test_an_incomplete_project_environment_is_named_and_the_printed_command_recreates_it(  # noqa: PLR0917
    state: str,
    tmp_path: Path,
    wheels: dict[str, Path],
    wheel_dir: Path,
    uv_cache: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    root = make_project(tmp_path / "proj", wheels)
    venv = root / ".venv"
    make, words = STATES[state]
    make(venv)
    what = words.format(gone=venv.parent / "gone" / "venv")
    offline = index_env(wheel_dir, uv_cache)
    env = clean_env({"PATH": f"{bin_dir()}{os.pathsep}{os.environ.get('PATH', '')}", **offline})

    run = subprocess.run(["install-tier", "brain"], cwd=root, env=env, capture_output=True, text=True, check=False)
    assert run.returncode == 2, run.stderr
    assert f"the project environment .venv {what}" in run.stderr
    assert "already exists" not in run.stderr
    remedy = next(line for line in run.stderr.splitlines() if "to fix:" in line).split("to fix:", 1)[1].strip()
    assert remedy.endswith("&& install-tier brain")

    code, probed = cli_json(capsys, "--project", str(root), "probe", "brain")
    assert code == 2
    assert what in probed["error"]["message"]
    assert probed["error"]["remedy"] == remedy.replace(
        "&& install-tier brain", f"&& install-tier --project {root} brain"
    )

    fixed = run_remedy(remedy, cwd=root, env=offline)
    assert fixed.returncode == 0, fixed.stderr
    assert (venv / "pyvenv.cfg").is_file()
    code, probed = cli_json(capsys, "--project", str(root), "probe", "brain")
    assert (code, probed["tiers"][0]["state"]) == (0, "present")
    again = subprocess.run(["install-tier", "brain"], cwd=root, env=env, capture_output=True, text=True, check=False)
    assert again.returncode == 0, again.stderr
    assert "brain: already present" in again.stdout
