"""A pip-tools lock (single-platform: made on tierlock's own Python) and a target of another Python: install-tier
refuses it, and its printed fix, run exactly as printed, makes a lock the target can install - in one step.

Before: the fix was ``tierlock lock brain``. With ``backend = "pip"`` in [tool.tierlock] that made the same 3.11-only
lock again (a loop); without it, uv locked brain alone on top of base's 3.11-only pins (uvicorn's ``standard``: uv
failed, ``click==8.5.1`` pinned for 3.11 fits no 3.9 of ``requires-python``), and base's own lock was refused next.
Real pip-tools and uv, offline (wheels written at test time), a real venv of Python 3.12 as the target.
"""

from __future__ import annotations

import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.cli.test_install_cli import index_env
from tests.support.env import bin_dir, clean_env
from tests.support.interpreters import interpreter, make_venv_with
from tests.support.tierproject import write_pyproject
from tests.support.wheels import build_wheel

pytestmark = pytest.mark.slow

#: Names no index this machine's pip configuration reaches holds (pip-compile reads that configuration).
NAMES = ("tlpbasepkg", "tlpcorelib", "tlphelper")


@pytest.fixture(scope="module")
def house(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("wheels")
    for name in NAMES:
        build_wheel(folder, name, "1.0")
    return folder


def _run(root: Path, env: dict[str, str], *argv: str) -> subprocess.CompletedProcess[str]:
    program = shutil.which(argv[0], path=str(bin_dir())) or argv[0]
    return subprocess.run([program, *argv[1:]], cwd=root, env=env, capture_output=True, text=True, check=False)


@pytest.mark.parametrize(
    "case",
    [
        ("pip", ("base", "brain"), "brain", "tierlock lock base brain --backend uv"),  # before: tierlock lock brain
        (None, ("base", "brain"), "brain", "tierlock lock base brain --backend uv"),  # before: brain, base, brain
        (None, ("brain",), "brain", "tierlock lock brain --backend uv"),  # base is universal already: kept
        ("pip", ("base",), "base", "tierlock lock base --backend uv"),  # before: tierlock lock base (a loop)
    ],
)
def test_the_printed_fix_of_a_lock_made_for_another_python_makes_one_the_target_installs(
    tmp_path: Path, house: Path, case: tuple[str | None, tuple[str, ...], str, str]
) -> None:
    """*case*: the backend [tool.tierlock] names, the tiers locked by pip-tools, the tier installed, its fix."""
    configured, single, tier, fix = case
    root = tmp_path / "proj"
    write_pyproject(root, base=[f"{NAMES[0]}>=1"], brain=[f"{NAMES[1]}>=1", f"{NAMES[2]}>=1"])
    if configured is not None:
        text = (root / "pyproject.toml").read_text()
        (root / "pyproject.toml").write_text(
            text.replace('lock-dir = "lockfiles"', f'lock-dir = "lockfiles"\nbackend = "{configured}"')
        )
    (root / "tests" / "brain").mkdir(parents=True)
    test = f"import {NAMES[1]}\n\n\ndef test_it():\n    assert {NAMES[1]}\n"
    (root / "tests" / "brain" / "test_core.py").write_text(test)
    env = clean_env({**index_env(house, tmp_path / "uv-cache"), "TIERLOCK_CACHE_DIR": str(tmp_path / "cache")})
    for name in ("base", "brain"):  # bottom first: brain is locked on base's lock
        backend = "pip" if name in single else "uv"
        locked = _run(root, env, "tierlock", "lock", name, "--backend", backend)
        assert locked.returncode == 0, locked.stdout + locked.stderr
    python = make_venv_with(interpreter("3.12.1").python, tmp_path / "venv")
    install = ["install-tier", tier, "--python", str(python)]

    refused = _run(root, env, *install)
    assert refused.returncode == 2, refused.stdout + refused.stderr
    assert "was locked for linux-x86_64/cpython-3.11 only" in refused.stderr or "cpython-3.11" in refused.stderr
    assert f"to fix: {fix}\n" in refused.stderr
    relocked = _run(root, env, *shlex.split(fix))  # exactly as printed
    assert relocked.returncode == 0, relocked.stdout + relocked.stderr

    armed = _run(root, env, *install)
    assert armed.returncode == 0, armed.stdout + armed.stderr
    assert f"{tier}: installed" in armed.stdout
    assert _run(root, env, "tierlock", "probe", tier, "--python", str(python)).returncode == 0
    checked = _run(root, env, "tierlock", "check")
    assert checked.returncode == 0, checked.stdout
