"""Installing tierlock: the wheel ``make dist`` builds installs into a fresh venv and runs; the ``uv`` extra
makes ``tierlock lock`` work after one command; without any lock backend, ``lock`` names the command that
installs one, and that command, run as printed, fixes it.

Everything is offline: the fresh venvs install from a local folder holding the built wheel and tierlock's
dependencies repacked from this environment (uv included), through pip's own environment variables.
"""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from tests.support.dist import dependency_wheels, make_dist
from tests.support.env import clean_env
from tests.support.lockproj import build_wheel_dir, write_project
from tierlock._version import __version__

pytestmark = pytest.mark.slow

PROJECT = """\
[project]
name = "proj"
version = "0.1.0"
requires-python = ">=3.11"
dependencies = ["alpha>=1"]
"""


@pytest.fixture(scope="module")
def wheelhouse(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The built sdist and wheel plus every dependency wheel (uv too), in one folder."""
    folder = tmp_path_factory.mktemp("wheelhouse")
    make_dist(folder)
    dependency_wheels(folder)
    return folder


def _venv(path: Path) -> Path:
    subprocess.run([sys.executable, "-m", "venv", str(path)], check=True, env=clean_env())
    return path / "bin"


def _offline_env(wheelhouse: Path, bin_dir: Path) -> dict[str, str]:
    """pip reads its options from the environment: no index, only the wheelhouse; PATH without any uv."""
    return clean_env(
        {
            "PIP_NO_INDEX": "1",
            "PIP_FIND_LINKS": str(wheelhouse),
            "PATH": os.pathsep.join([str(bin_dir), "/usr/bin", "/bin"]),
        }
    )


def _run(argv: list[str], env: dict[str, str], cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, env=env, cwd=cwd, capture_output=True, text=True, check=False)


def test_make_dist_builds_an_sdist_and_a_wheel_with_the_console_scripts_and_the_plugin(wheelhouse: Path) -> None:
    assert (wheelhouse / f"tierlock-{__version__}.tar.gz").is_file()
    wheel = wheelhouse / f"tierlock-{__version__}-py3-none-any.whl"
    with zipfile.ZipFile(wheel) as zf:
        names = zf.namelist()
        entry_points = zf.read(f"tierlock-{__version__}.dist-info/entry_points.txt").decode()
        metadata = zf.read(f"tierlock-{__version__}.dist-info/METADATA").decode()
    assert "tierlock/py.typed" in names
    assert "tierlock/validators/runtime-config.schema.json" in names
    assert "tierlock = tierlock._entry:tierlock" in entry_points
    assert "install-tier = tierlock._entry:install_tier" in entry_points
    assert "[pytest11]" in entry_points
    assert "Provides-Extra: uv" in metadata
    assert "Requires-Dist: uv>=0.5; extra == 'uv'" in metadata


def test_a_fresh_venv_installs_the_wheel_and_lock_names_the_command_that_brings_a_backend(
    wheelhouse: Path, tmp_path: Path
) -> None:
    bin_dir = _venv(tmp_path / "venv")
    env = _offline_env(wheelhouse, bin_dir)
    installed = _run([str(bin_dir / "python"), "-m", "pip", "install", "tierlock"], env)
    assert installed.returncode == 0, installed.stderr
    version = _run([str(bin_dir / "tierlock"), "--version"], env)
    assert version.stdout == f"tierlock {__version__}\n"

    project = write_project(tmp_path / "proj", PROJECT)
    wheels = build_wheel_dir(tmp_path / "wheels")
    lock = [str(bin_dir / "tierlock"), "lock", "--no-index", "--find-links", str(wheels)]
    failed = _run(lock, env, cwd=project)
    assert failed.returncode == 3, failed.stderr
    assert "no lock backend" in failed.stderr
    assert "tierlock[uv]" in failed.stderr
    remedy = failed.stderr.split("to fix: ", 1)[1].strip()
    assert remedy == f"{bin_dir / 'python'} -m pip install uv"
    fixed = _run(["sh", "-c", remedy], env)  # exactly as printed
    assert fixed.returncode == 0, fixed.stderr

    locked = _run(lock, env, cwd=project)
    assert locked.returncode == 0, locked.stderr
    assert "locked 1 tier(s) with uv" in locked.stdout
    assert "alpha==1.1" in (project / "lockfiles" / "base.txt").read_text()


def test_the_uv_extra_makes_lock_work_after_one_install(wheelhouse: Path, tmp_path: Path) -> None:
    bin_dir = _venv(tmp_path / "venv")
    env = _offline_env(wheelhouse, bin_dir)
    installed = _run([str(bin_dir / "python"), "-m", "pip", "install", "tierlock[uv]"], env)
    assert installed.returncode == 0, installed.stderr
    assert (bin_dir / "uv").is_file()

    project = write_project(tmp_path / "proj", PROJECT)
    wheels = build_wheel_dir(tmp_path / "wheels")
    locked = _run([str(bin_dir / "tierlock"), "lock", "--no-index", "--find-links", str(wheels)], env, cwd=project)
    assert locked.returncode == 0, locked.stderr
    assert "with uv" in locked.stdout
    assert "# backend: uv " in (project / "lockfiles" / "base.txt").read_text()


def test_a_uv_tool_install_of_the_wheel_with_the_uv_extra_locks_with_its_own_uv(
    wheelhouse: Path, tmp_path: Path
) -> None:
    """The README's recommended install: an isolated tool whose uv comes along (no uv on PATH)."""
    uv = Path(sys.executable).parent / "uv"
    tools, bin_dir = tmp_path / "tools", tmp_path / "bin"
    env = _offline_env(wheelhouse, bin_dir)
    env.update({"UV_TOOL_DIR": str(tools), "UV_TOOL_BIN_DIR": str(bin_dir)})
    wheel = wheelhouse / f"tierlock-{__version__}-py3-none-any.whl"
    argv = [str(uv), "tool", "install", "--no-index", "--find-links", str(wheelhouse), f"{wheel}[uv]"]
    installed = _run(argv, env)
    assert installed.returncode == 0, installed.stderr
    assert _run([str(bin_dir / "tierlock"), "--version"], env).stdout == f"tierlock {__version__}\n"

    project = write_project(tmp_path / "proj", PROJECT)
    wheels = build_wheel_dir(tmp_path / "wheels")
    locked = _run([str(bin_dir / "tierlock"), "lock", "--no-index", "--find-links", str(wheels)], env, cwd=project)
    assert locked.returncode == 0, locked.stderr
    assert "with uv" in locked.stdout
