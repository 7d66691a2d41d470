"""Ending the compiles a kept lock started again (``lockkept._end``): after a second signal no compile gets its grace,
yet each one killed is reaped before the lock goes on; one already reaped elsewhere is passed by. Real processes,
each in a process group of its own."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.backendscripts import GRACEFUL
from tierlock import interrupts, lockkept


@pytest.fixture
def second_signal() -> Iterator[None]:
    """The command was interrupted twice (a SIGINT, then a SIGTERM) before its compiles are ended."""
    before = list(interrupts.received)
    interrupts.received[:] = [signal.SIGINT, signal.SIGTERM]
    yield
    interrupts.received[:] = before


def _compile(tmp_path: Path, name: str) -> tuple[lockkept._Compile, subprocess.Popen[bytes], Path]:
    ready, done = tmp_path / f"{name}-ready", tmp_path / f"{name}-done"
    proc = subprocess.Popen([sys.executable, "-c", GRACEFUL, str(ready), str(done)], process_group=0)
    deadline = time.monotonic() + 30
    while not ready.exists() and time.monotonic() < deadline:  # (its signal handling set)
        time.sleep(0.01)
    work = tmp_path / f"{name}-work"
    work.mkdir()
    run = lockkept._Compile({}, str(work))
    run.pid = proc.pid
    return run, proc, done


def test_after_a_second_signal_no_compile_gets_its_grace_yet_each_killed_one_is_reaped(
    tmp_path: Path, second_signal: None
) -> None:
    running, proc, done = _compile(tmp_path, "running")
    reaped, other, _ = _compile(tmp_path, "reaped-elsewhere")
    other.kill()
    other.wait()  # (its status reaped by another: the lock finds no child of that number)
    try:
        lockkept._end([running, reaped])
        assert not done.exists(), "no grace after a second signal"
        assert not Path(f"/proc/{proc.pid}").exists(), "killed and reaped before the lock went on (no zombie left)"
        assert (running.status, reaped.status) == (0, 0)
        assert not (tmp_path / "running-work").exists(), "its scratch folder removed"
    finally:
        if Path(f"/proc/{proc.pid}").exists():
            proc.kill()
        proc.wait()  # (reaped by the lock already: Popen is told so, and forgets it)
