"""Running backends (``tierlock.subproc``): a missing executable is named with what installs it; stopping every
running backend gives each process group its grace, then kills and reaps what is left; the workers that run
backends are each waited for. Real processes, each in its own group."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.backendscripts import GRACEFUL
from tierlock import subproc
from tierlock.errors import TierlockError

#: A backend that does not stop when asked.
STUBBORN = """import signal, sys, time
signal.signal(signal.SIGINT, signal.SIG_IGN)
open(sys.argv[1], "w").close()
time.sleep(60)
"""


@pytest.fixture
def stopping() -> Iterator[None]:
    """``stop_all`` marks the command as stopping (nothing more is started) until its workers are ended."""
    yield
    subproc._stopping.clear()


def _started(code: str, *paths: Path) -> subprocess.Popen[str]:
    proc = subproc.start((sys.executable, "-c", code, *map(str, paths)), cwd=None, env=None, what="a", remedy=None)
    deadline = time.monotonic() + 30
    while not paths[0].exists() and time.monotonic() < deadline:  # (its signal handling set)
        time.sleep(0.01)
    return proc


def test_a_backend_that_is_not_there_is_named_with_the_command_that_installs_it(tmp_path: Path) -> None:
    with pytest.raises(TierlockError) as caught:
        subproc.run([str(tmp_path / "uvx"), "--version"], what="uvx --version")
    assert str(tmp_path / "uvx") in caught.value.message
    assert "is not installed or not on PATH" in caught.value.message
    assert caught.value.remedy == "install uvx"


def test_stopping_every_backend_gives_each_group_its_grace_then_kills_and_reaps_what_is_left(
    tmp_path: Path, stopping: None
) -> None:
    done = tmp_path / "cleaned-up"
    graceful = _started(GRACEFUL, tmp_path / "ready-1", done)
    stubborn = _started(STUBBORN, tmp_path / "ready-2")
    try:
        subproc.stop_all(grace=3.0)
        assert done.exists(), "the backend asked to stop was given the moment it takes to clean up"
        assert graceful.poll() == 1
        assert stubborn.poll() == -9, "the one that did not stop was killed, and reaped before stop_all returned"
        with pytest.raises(KeyboardInterrupt):
            subproc.run([sys.executable, "-c", "pass"], what="another")  # nothing new while stopping
    finally:
        for proc in (graceful, stubborn):
            if proc.poll() is None:
                proc.kill()
            proc.communicate()  # (reaped, its pipes closed)
            subproc.forget(proc)


def test_joining_the_workers_waits_for_every_one_of_them() -> None:
    finished: list[int] = []

    def work(n: int) -> None:
        time.sleep(0.2 * n)
        finished.append(n)

    threads = [threading.Thread(target=work, args=(n,)) for n in (1, 2)]
    for thread in threads:
        thread.start()
    subproc.join_workers(threads)
    assert sorted(finished) == [1, 2]


@pytest.mark.parametrize("how", ["one", "every"])
def test_after_a_second_signal_no_group_gets_its_grace_yet_each_killed_one_is_reaped_before_the_stop_returns(
    tmp_path: Path, stopping: None, monkeypatch: pytest.MonkeyPatch, how: str
) -> None:
    """A second signal cuts the grace short, never the wait for what was killed: before, the stop returned with its
    SIGKILLed backend still running for a moment (a loaded machine showed it after the command had ended)."""
    import signal

    from tierlock import interrupts

    monkeypatch.setattr(interrupts, "received", [signal.SIGINT, signal.SIGTERM])
    done = tmp_path / "cleaned-up"
    proc = _started(GRACEFUL, tmp_path / "ready", done)
    try:
        if how == "one":
            subproc.stop(proc, grace=30.0)
        else:
            subproc.stop_all(grace=30.0)
        assert proc.poll() == -signal.SIGKILL, "killed, and reaped before the stop returned"
        assert not done.exists(), "no grace after a second signal"
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.communicate()
        subproc.forget(proc)


class _Worker(threading.Thread):
    """A worker running a backend that sleeps for a minute through :func:`subproc.run`; once its backend is ended it
    takes a moment to clean up, then notes it."""

    def __init__(self, ready: Path) -> None:
        super().__init__(daemon=True)
        self.ready = ready
        self.cleaned = False

    def run(self) -> None:
        code = f"open({str(self.ready)!r}, 'w').close()\nimport time\ntime.sleep(60)"
        try:
            subproc.run([sys.executable, "-c", code], what="a long backend")
        except (TierlockError, KeyboardInterrupt):
            time.sleep(0.3)
            self.cleaned = True

    def wait_ready(self) -> None:
        deadline = time.monotonic() + 30
        while not self.ready.exists() and time.monotonic() < deadline:
            time.sleep(0.01)


class _InterruptedJoin(_Worker):
    """A worker whose join is interrupted (a Ctrl-C landing while the main thread waits for it)."""

    def join(self, timeout: float | None = None) -> None:
        if timeout is None:
            raise KeyboardInterrupt
        super().join(timeout)


def test_ending_the_workers_stops_their_backends_and_waits_for_each_to_clean_up(tmp_path: Path) -> None:
    workers = [_Worker(tmp_path / "ready-1"), _Worker(tmp_path / "ready-2")]
    for worker in workers:
        worker.start()
        worker.wait_ready()
    subproc.end_workers(workers)
    assert [w.is_alive() or not w.cleaned for w in workers] == [False, False], "each worker's cleanup waited for"
    assert not subproc._stopping, "the command may start backends again"


def test_an_interrupt_while_the_workers_are_joined_ends_them_and_is_raised(tmp_path: Path) -> None:
    worker = _InterruptedJoin(tmp_path / "ready")
    worker.start()
    worker.wait_ready()
    with pytest.raises(KeyboardInterrupt):
        subproc.join_workers([worker])
    assert worker.cleaned, "its backend was stopped and its cleanup waited for"


def test_a_stopped_backend_gets_its_grace_to_clean_up_and_end_by_itself(tmp_path: Path) -> None:
    """Asked to stop, a backend that takes a moment (longer than one step of the wait) to remove its temporary
    folders is waited for, not killed."""
    done = tmp_path / "cleaned-up"
    proc = _started(GRACEFUL, tmp_path / "ready", done)
    try:
        subproc.stop(proc, grace=30.0)
        assert done.exists(), "the backend was killed before it had cleaned up"
        assert proc.returncode == 1, "it ended by itself"
    finally:
        if proc.poll() is None:
            proc.kill()
        subproc.forget(proc)
