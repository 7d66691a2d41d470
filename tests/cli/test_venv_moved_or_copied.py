"""A venv moved or copied to another path (``mv``, ``cp -a``, a container build's COPY): each console script still
runs the interpreter named in its first line, the old path's. Every file is there at its recorded size, so pip
and uv see nothing; the probe says which scripts run another environment's interpreter (or one that is gone), and
its printed fix, run as printed, writes them again for the venv they are in. A venv of another Python than
tierlock's, armed by uv and by pip."""

from __future__ import annotations

import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.support.env import bin_dir
from tests.support.interpreters import interpreter
from tests.support.tierproject import tool_project
from tests.support.wheels import build_wheel

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def links(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("script-wheels")
    build_wheel(folder, "basepkg", "1.0")
    build_wheel(
        folder,
        "tool",
        "1.0",
        files={
            "tool/__init__.py": "import sys\n\n\ndef main() -> None:\n    print(sys.prefix)\n",
            "tool-1.0.dist-info/entry_points.txt": "[console_scripts]\ntool = tool:main\n",
        },
    )
    return folder


def _tierlock(*args: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    argv = [str(bin_dir() / "tierlock"), *args]
    return subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, check=False)


def _run_fix(fix: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """The printed fix, exactly as printed (``install-tier`` and ``tierlock`` are the console scripts beside this
    interpreter, first on PATH)."""
    return subprocess.run(fix, shell=True, cwd=cwd, env=env, capture_output=True, text=True, check=False)


@pytest.mark.parametrize("backend", ["uv", "pip"])
@pytest.mark.parametrize("how", ["copied", "moved"])
def test_a_venv_moved_or_copied_elsewhere_is_partial_naming_the_script_and_the_printed_fix_writes_it_again(
    tmp_path: Path, links: Path, backend: str, how: str
) -> None:
    target = interpreter("3.12.1")
    root, env = tool_project(tmp_path, links)
    built = tmp_path / "build" / "venv"
    subprocess.run([str(target.python), "-m", "venv", str(built)], check=True, env=env, capture_output=True)
    arm = [str(bin_dir() / "install-tier"), "brain", "--python", str(built / "bin" / "python"), "--backend", backend]
    armed = subprocess.run(arm, cwd=root, env=env, capture_output=True, text=True, check=False)
    assert armed.returncode == 0, armed.stderr
    probed = _tierlock("probe", "brain", "--python", str(built / "bin" / "python"), cwd=root, env=env)
    assert probed.returncode == 0, probed.stdout + probed.stderr

    venv = tmp_path / "app" / "venv"
    venv.parent.mkdir()
    if how == "copied":
        shutil.copytree(built, venv, symlinks=True)
    else:
        shutil.move(built, venv)
    python = str(venv / "bin" / "python")
    try:
        ran = subprocess.run([str(venv / "bin" / "tool")], env=env, capture_output=True, text=True, check=False)
    except FileNotFoundError:  # its interpreter is gone: "bad interpreter"
        assert how == "moved"
    else:
        assert ran.stdout.strip() == str(built)  # the old path's interpreter, with its packages

    probed = _tierlock("probe", "brain", "--python", python, cwd=root, env=env)
    said = probed.stdout + probed.stderr
    assert probed.returncode != 0, said
    why = "another environment's interpreter" if how == "copied" else "which does not exist"
    assert f"console script {venv / 'bin' / 'tool'} runs {built / 'bin'}" in said, said
    assert why in said
    assert f"the environment was moved or copied from {built}" in said
    fix = next(line for line in said.splitlines() if "to fix: " in line).split("to fix: ", 1)[1]
    assert shlex.split(fix)[0] == "install-tier", fix
    done = _run_fix(fix.strip(), root, env)
    assert done.returncode == 0, done.stdout + done.stderr

    again = _tierlock("probe", "brain", "--python", python, cwd=root, env=env)
    assert again.returncode == 0, again.stdout + again.stderr
    ran = subprocess.run([str(venv / "bin" / "tool")], env=env, capture_output=True, text=True, check=False)
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.strip() == str(venv)
