"""The pytest plugin in a test environment whose Python the project's ``requires-python`` excludes: it says so, and
the fix it prints makes the venv again with a Python that satisfies it, then arms the tier; run as printed, the next
strict run passes.

Before, a strict run printed ``to fix: install-tier brain --python VENV``: the lock, resolved for ``>=3.13``, has
no wheel for the run's 3.12, so that install failed (exit 3) and printed another fix only then. ``probe``,
``status`` and ``admit`` print the full fix first time (remedy9); the plugin now does too.

pytest runs in a real venv of Python 3.12 (tierlock runs on 3.11); pytest and this checkout's tierlock are lent to it
on ``PYTHONPATH`` (pure Python), as they are to the venv made again (3.13, from a ``python3.13`` on ``PATH``).
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sysconfig
from pathlib import Path

import pytest

from tests.support.env import clean_env
from tests.support.interpreters import interpreter
from tests.support.lockproj import lock_offline
from tests.support.plugin_project import laptop, write_files
from tests.support.plugin_venv import locked_pyproject, offline, remedy_of, run_pytest
from tests.support.verdicts import run_remedy
from tests.support.wheels import build_wheel
from tierlock.pytest_plugin import EXIT_TIER_MISSING

pytestmark = pytest.mark.slow

TESTS = {"tests/test_brain.py": "import brainpkg\n\n\ndef test_brain():\n    assert brainpkg.__version__ == '1.0'\n"}
_SRC = Path(__file__).resolve().parents[2] / "src"


def test_a_strict_run_on_a_python_below_requires_python_prints_the_fix_that_remakes_the_venv_and_it_converges(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    laptop(monkeypatch)
    old, new = interpreter("3.12.1"), interpreter("3.13.0")
    house = tmp_path / "wheels"
    build_wheel(house, "brainpkg", "1.0", tag="cp313-none-any")  # for 3.13 only: no wheel for the run's 3.12
    text = locked_pyproject({"brain": ["brainpkg"]}, ["brain"]).replace(">=3.11", ">=3.13")
    project = lock_offline(tmp_path / "inner", house, text)
    write_files(project, TESTS)
    on_path = tmp_path / "on-path"
    on_path.mkdir()
    (on_path / "python3.13").symlink_to(new.python)
    venv = tmp_path / "venv"
    subprocess.run([str(old.python), "-m", "venv", "--without-pip", str(venv)], check=True, env=clean_env())
    python = venv / "bin" / "python"
    lent = {"PYTHONPATH": os.pathsep.join([sysconfig.get_paths()["purelib"], str(_SRC)]), "CI": "true"}
    monkeypatch.setenv("PATH", f"{on_path}{os.pathsep}{os.environ['PATH']}")  # the user's PATH: python3.13 runs

    first = run_pytest(python, project, "tests", extra=lent)
    assert first.returncode == EXIT_TIER_MISSING, first.stdout + first.stderr
    said = first.stdout + first.stderr
    assert f"the target {venv} runs Python 3.12.1, which the project's requires-python '>=3.13' excludes" in said
    printed = remedy_of(said, "to fix: ")
    remake = f"{on_path / 'python3.13'} -m venv {venv}"
    assert printed.endswith(f" && {remake} && {shlex.join(['install-tier', 'brain', '--python', str(venv)])}"), said

    plain = run_pytest(python, project, "tests", extra={**lent, "CI": ""})  # a laptop's run: the same fix
    assert plain.returncode == 5, plain.stdout + plain.stderr  # (its one test file not collected: no tests ran)
    assert f"tierlock: the target {venv} runs Python 3.12.1" in plain.stdout + plain.stderr
    assert remedy_of(plain.stdout + plain.stderr, "to run them: ") == printed

    fixed = run_remedy(printed, cwd=project, env=offline(house))  # exactly as printed, by a shell
    assert fixed.returncode == 0, fixed.stdout + fixed.stderr
    second = run_pytest(python, project, "tests", extra=lent)
    assert second.returncode == 0, second.stdout + second.stderr
    assert "1 passed" in second.stdout
    ran = subprocess.run([str(python), "-V"], capture_output=True, text=True, check=True)
    assert ran.stdout.strip() == "Python 3.13.0"
