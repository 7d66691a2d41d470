"""Processes started ahead of the command that takes them (:func:`tierlock.spawning.take`): the one taken is handed
over whole and read by :mod:`tierlock.subproc` as one it started (its output, its failure with the tail, redacted);
every other one, and every one nobody took, is ended, reaped and its pipes closed."""

from __future__ import annotations

import os
import signal
import sys

import pytest

from tierlock import spawning, subproc
from tierlock.errors import BackendError


def _fds() -> set[str]:
    return set(os.listdir("/proc/self/fd"))


@pytest.fixture
def ahead() -> object:
    yield None
    spawning.end_ahead()


def test_the_process_taken_is_handed_over_and_every_other_is_ended_and_reaped(ahead: object) -> None:
    before = _fds()
    sleeper = spawning.spawn([sys.executable, "-c", "import time; time.sleep(60)"], capture=True)
    mine = spawning.spawn([sys.executable, "-c", "print('mine')"], capture=True)
    spawning.ahead.update({"/a/bin/python": (sleeper, ()), "/b/bin/python": (mine, ("b",))})
    assert spawning.peek("/b/bin/python") == (mine, ("b",))
    assert spawning.take("/b/bin/python") == (mine, ("b",))
    assert spawning.ahead == {}
    with pytest.raises(ChildProcessError):
        os.waitpid(sleeper.pid, os.WNOHANG)  # reaped
    proc = spawning.as_popen([sys.executable, "-c", "print('mine')"], mine)
    assert proc.communicate() == ("mine\n", "")
    assert _fds() <= before | {str(proc.pid)}  # (the sleeper's pipes closed)
    assert spawning.take(None) is None


def test_ending_what_nobody_took_reaps_a_process_that_ended_already(ahead: object) -> None:
    done = spawning.spawn([sys.executable, "-c", "pass"], capture=True)
    os.waitid(os.P_PID, done.pid, os.WEXITED | os.WNOWAIT)
    spawning.ahead["/x"] = (done, ())
    spawning.end_ahead()
    with pytest.raises(ChildProcessError):
        os.waitpid(done.pid, os.WNOHANG)


def test_a_process_taken_fails_through_the_subprocess_helper_with_its_tail_redacted(ahead: object) -> None:
    said = "import sys; print('out'); sys.stderr.write('https://me:hunter2secret@index.example failed'); sys.exit(3)"
    argv = [sys.executable, "-c", said]
    proc = spawning.as_popen(argv, spawning.spawn(argv, capture=True))
    subproc._live[proc.pid] = proc
    with pytest.raises(BackendError) as caught:
        subproc.run(argv, what="asking", started=proc)
    assert "asking failed (exit 3)" in str(caught.value)
    assert caught.value.detail is not None
    assert "failed" in caught.value.detail
    assert "hunter2secret" not in caught.value.detail
    assert proc.pid not in subproc._live


def test_a_process_taken_and_interrupted_while_read_is_ended(ahead: object, monkeypatch: pytest.MonkeyPatch) -> None:
    argv = [sys.executable, "-c", "import time; time.sleep(60)"]
    proc = spawning.as_popen(argv, spawning.spawn(argv, capture=True))
    calls = [0]
    real = proc.communicate

    def interrupted(input: str | None = None, timeout: float | None = None) -> tuple[str, str]:
        calls[0] += 1
        if calls[0] == 1:
            raise KeyboardInterrupt
        return real(input, timeout)

    monkeypatch.setattr(proc, "communicate", interrupted)
    with pytest.raises(KeyboardInterrupt):
        subproc.run(argv, what="asking", started=proc)
    assert proc.returncode in (-signal.SIGINT, -signal.SIGKILL, 1)
