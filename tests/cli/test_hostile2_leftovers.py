# ruff: noqa: F811  (pytest fixtures imported from the installer's end-to-end tests are redefined as parameters)
"""An arming whose backend started early leaves nothing in the temporary folder, whatever ends it.

Real ``install-tier`` processes, a real uv behind the hostile tests' wrapper (``hold``: it waits before installing),
each world with a temporary folder of its own (``TMPDIR``): listed after every case. A SIGTERM at any moment after the
early start (the backend stopped with its grace, its requirements file removed); a SIGKILL leaves its file (nothing
runs), and a later arming's early start removes the file of that dead process once it is a minute old; an exception
out of the command after an early start stops the backend and removes the file; a process that ends without
:func:`tierlock.earlyarm.finish` once its backend has ended leaves no file either.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.cli.test_install_cli import Kit, empty_venv, index_env, kit, uv_cache, wheel_dir, wheels  # noqa: F401
from tests.cli.test_install_early import venv_told  # noqa: F401
from tests.cli.test_install_early_hostile import Hostile
from tests.support.kept import backdate

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory, kit: Kit, venv_told: Path) -> Hostile:
    """One world (uv), its plan kept once; each case arms a fresh venv (:meth:`Hostile.next_case`)."""
    backdate(kit.empty_venv)
    world = Hostile(tmp_path_factory.mktemp("leftovers"), kit, "uv", told=venv_told)
    try:
        world.ready(True)
    except AssertionError:  # (no plan kept while the other worker wrote what the plan rests on: once more)
        for name in ("warm", "warm2", "first", "again"):
            shutil.rmtree(world.root / name, ignore_errors=True)
        world.ready(True)
    return world


@pytest.fixture
def case(hostile: Hostile) -> Iterator[Hostile]:
    yield hostile
    for name in ("hold", "slow"):
        hostile.flag(name, on=False)
    _stop_backend(hostile)
    for path in hostile.tmp.glob("tierlock-*"):  # (what a case that failed left: not the next case's)
        path.unlink()


def _left(world: Hostile) -> list[str]:
    return sorted(p.name for p in world.tmp.iterdir() if p.name.startswith("tierlock-"))


def _wait_for(path: Path) -> None:
    deadline = time.monotonic() + 60
    while not path.exists() and time.monotonic() < deadline:
        time.sleep(0.02)
    assert path.exists(), f"the backend never reached {path.name}"


def _stop_backend(world: Hostile) -> None:
    """The wrapper's process group gone (a backend a killed tierlock left running)."""
    pid_file = world.root / "uv.log.pid"
    if pid_file.exists():
        with contextlib.suppress(ProcessLookupError, ValueError):
            os.killpg(int(pid_file.read_text(encoding="utf-8")), signal.SIGKILL)
        pid_file.unlink()


@pytest.mark.parametrize("delay", [0.0, 0.02, 0.06, 0.15])
def test_a_sigterm_right_after_the_early_start_leaves_no_file_in_the_temporary_folder(
    case: Hostile, delay: float
) -> None:
    venv = case.next_case(True)
    case.flag("hold")
    proc = subprocess.Popen(case.argv(venv), env=case.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    _wait_for(case.root / "uv.log.waiting")  # the early backend runs (the wrapper holds before uv)
    time.sleep(delay)
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert json.loads(out)["error"]["exit_code"] == 130
    assert _left(case) == []


def test_the_file_a_killed_arming_left_is_removed_by_a_later_early_start_once_it_is_old(case: Hostile) -> None:
    venv = case.next_case(True)
    case.flag("hold")
    proc = subprocess.Popen(case.argv(venv), env=case.env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _wait_for(case.root / "uv.log.waiting")
    proc.kill()
    proc.wait()
    _stop_backend(case)
    left = _left(case)
    assert len(left) == 1
    assert left[0].startswith(f"tierlock-early-{proc.pid}-")  # nothing ran: left
    young = case.tmp / left[0]
    case.flag("hold", on=False)
    mine = case.tmp / f"tierlock-early-{os.getpid()}-000000000000.txt"  # a live process's: never removed
    mine.write_bytes(b"x")
    other = case.tmp / "tierlock-early-notes.txt"  # not of the form: never removed
    other.write_bytes(b"x")
    code, _doc, runs = case.arm(case.next_case(True))
    assert (code, runs) == (0, ["early"])
    assert young.exists(), "a file of less than a minute is left (its backend may still read it)"
    old = time.time() - 120
    for path in (young, mine, other):
        os.utime(path, (old, old))
    code, _doc, runs = case.arm(case.next_case(True))
    assert (code, runs) == (0, ["early"])
    assert _left(case) == sorted([mine.name, other.name])


#: ``install-tier`` run by ``python -c`` (its plan kept for that command line: ``sys.path`` is part of it); with
#: ``TIERLOCK_TEST_BROKEN`` set, the command raises once the early backend runs (the wrapper holds).
BROKEN = """import os, sys, time
sys.argv[1:] = {argv!r}
from tierlock import _entry
if os.environ.get("TIERLOCK_TEST_BROKEN"):
    def broken(argv, prog=None):
        while not os.path.exists({waiting!r}):
            time.sleep(0.02)
        raise RuntimeError("broken after the early start")
    _entry._cli = broken
_entry.install_tier()
"""


def test_an_exception_out_of_the_command_after_an_early_start_stops_the_backend_and_removes_its_file(
    case: Hostile,
) -> None:
    def arm(venv: Path, **extra: str) -> subprocess.CompletedProcess[str]:
        script = BROKEN.format(argv=case.argv(venv)[1:], waiting=str(case.root / "uv.log.waiting"))
        env = {**case.env, **extra}
        return subprocess.run(
            [sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=120, check=False
        )

    plans = set(case.plans())
    for attempt in range(4):  # kept as :meth:`Arming.kept_first` keeps one
        if attempt >= 2:
            time.sleep(2.1)
        assert arm(case.next_case(True)).returncode == 0
        if set(case.plans()) - plans:
            break
    else:
        raise AssertionError("no plan kept for the python -c arming")
    venv = case.next_case(True)
    case.flag("hold")
    done = arm(venv, TIERLOCK_TEST_BROKEN="1")
    assert "broken after the early start" in done.stderr
    assert done.returncode != 0
    assert case.runs()[-1:] == ["early"]
    assert _left(case) == []
    pid = int((case.root / "uv.log.pid").read_text(encoding="utf-8"))
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)  # stopped, not left running while the command said it failed
