"""The project's own install in a venv moved or copied elsewhere: its console script still runs the old path's Python.

``install-tier`` installs a project that is a package editable from its tree, console scripts and all (as ``uv
sync`` does). Copied (``cp -a``) or moved (``mv``), the venv keeps the interpreter path the installer wrote into the
project's own script: it runs the old venv's Python and packages, or fails with "bad interpreter". Before, every
tier's verdict covered the locked packages only, so ``status``, ``probe`` and ``admit`` said present. Now the
project's install from its own folder is judged with its tier (a venv of another Python than tierlock's, armed by
uv and by pip), and the printed fix, run as printed, writes its script again for the venv it is in. A project left
out (``--no-install-project``) or installed from elsewhere is not judged.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tests.support.interpreters import interpreter
from tests.support.tierproject import offline_env, package_project
from tests.support.uvproject import tool

pytestmark = pytest.mark.slow

APP = "import sys\n\n\ndef main():\n    print(sys.prefix)\n"
#: The test backend's editable wheel, with the project's console script ``app`` (it prints the running prefix).
WITH_SCRIPT = """

def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    src = os.path.join(os.path.dirname(os.path.abspath(__file__)), "src")
    entry = f"{NAME}-{_version()}.dist-info/entry_points.txt"
    files = {f"_{NAME}_editable.pth": src + "\\n", entry: "[console_scripts]\\napp = app:main\\n"}
    return _wheel(wheel_directory, files)
"""


@pytest.fixture
def env(wheelhouse: dict[str, Path], tmp_path: Path) -> dict[str, str]:
    return offline_env(wheelhouse, tmp_path / "cache")


def _package(root: Path, wheelhouse: dict[str, Path]) -> Path:
    return package_project(root, wheelhouse, backend_extra=WITH_SCRIPT, init=APP)


def _armed(root: Path, env: dict[str, str], tmp_path: Path, backend: str, *extra: str) -> Path:
    built = tmp_path / "build" / "venv"
    subprocess.run([str(interpreter("3.12.1").python), "-m", "venv", str(built)], check=True, capture_output=True)
    python = str(built / "bin" / "python")
    armed = tool("install-tier", ["base", "--python", python, "--backend", backend, *extra], root, env)
    assert armed.returncode == 0, armed.stdout + armed.stderr
    return built


@pytest.mark.parametrize("backend", ["uv", "pip"])
@pytest.mark.parametrize("how", ["copied", "moved"])
def test_the_projects_own_script_in_a_moved_or_copied_venv_makes_its_tier_partial_and_the_fix_writes_it_again(
    wheelhouse: dict[str, Path], env: dict[str, str], tmp_path: Path, backend: str, how: str
) -> None:
    root = _package(tmp_path / "app", wheelhouse)
    built = _armed(root, env, tmp_path, backend)
    venv = tmp_path / "elsewhere" / "venv"
    venv.parent.mkdir()
    (shutil.copytree(built, venv, symlinks=True) if how == "copied" else shutil.move(built, venv))
    python = str(venv / "bin" / "python")

    status = tool("tierlock", ["status", "base", "--python", python], root, env)
    said = status.stdout + status.stderr
    assert "base: partial" in said, said
    assert f"app 0.1.0: console script {venv / 'bin' / 'app'} runs {built / 'bin'}" in said, said
    probed = tool("tierlock", ["probe", "base", "--python", python], root, env)
    assert probed.returncode == 1, probed.stdout + probed.stderr
    fix = next(line for line in said.splitlines() if "to fix: " in line).split("to fix: ", 1)[1]
    done = subprocess.run(fix, shell=True, cwd=root, env=env, capture_output=True, text=True, check=False)
    assert done.returncode == 0, fix + "\n" + done.stdout + done.stderr

    again = tool("tierlock", ["probe", "base", "--python", python], root, env)
    assert again.returncode == 0, again.stdout + again.stderr
    ran = subprocess.run([str(venv / "bin" / "app")], env=env, capture_output=True, text=True, check=False)
    assert ran.stdout.strip() == str(venv), ran.stderr


def test_a_project_left_out_of_the_venv_is_not_judged_when_the_venv_is_copied(
    wheelhouse: dict[str, Path], env: dict[str, str], tmp_path: Path
) -> None:
    root = _package(tmp_path / "app", wheelhouse)
    built = _armed(root, env, tmp_path, "uv", "--no-install-project")
    venv = tmp_path / "copy"
    shutil.copytree(built, venv, symlinks=True)
    probed = tool("tierlock", ["probe", "base", "--python", str(venv / "bin" / "python")], root, env)
    assert probed.returncode == 0, probed.stdout + probed.stderr
