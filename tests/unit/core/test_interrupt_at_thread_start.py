"""An interrupt that comes while a thread or a backend starts lands once the start is over, and what was started
is ended before it goes on up: the threads' waiters skip a thread never started, a process started as the
interrupt came is stopped and forgotten, a watching thread started as it came is stopped."""

from __future__ import annotations

import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from tierlock import interrupts, subproc
from tierlock.installer import ahead


@pytest.fixture
def handled() -> Iterator[None]:
    restore = interrupts.install()
    try:
        yield
    finally:
        restore()
        interrupts.received.clear()


def _held_in_shelter(monkeypatch: pytest.MonkeyPatch) -> None:
    """The main thread sent SIGTERM inside its next sheltered block: held, then raised as the block ends."""

    class Held(interrupts.sheltered):
        def __enter__(self) -> None:
            super().__enter__()
            signal.pthread_kill(threading.main_thread().ident or 0, signal.SIGTERM)

    monkeypatch.setattr(interrupts, "sheltered", Held)


def test_waiting_for_workers_skips_a_thread_the_interrupt_came_before() -> None:
    never = threading.Thread(target=lambda: None)
    ran = threading.Thread(target=lambda: None)
    ran.start()
    subproc.join_workers([never, ran])
    subproc.end_workers([never, ran])
    assert not ran.is_alive()
    assert not subproc._stopping


def test_nothing_starts_while_the_workers_are_being_stopped() -> None:
    subproc._stopping.append(True)
    try:
        with pytest.raises(KeyboardInterrupt):
            subproc.start((sys.executable, "-c", "pass"), cwd=None, env=None, what="x", remedy=None)
    finally:
        subproc._stopping.clear()
    assert subproc._live == {}


@pytest.mark.usefixtures("handled")
def test_a_backend_started_as_the_interrupt_came_is_stopped_and_forgotten(monkeypatch: pytest.MonkeyPatch) -> None:
    started: list[subprocess.Popen[str]] = []

    class Signalled(subprocess.Popen):  # type: ignore[type-arg]
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            started.append(self)
            signal.raise_signal(signal.SIGTERM)  # comes as the process has just started

    monkeypatch.setattr(subprocess, "Popen", Signalled)
    with pytest.raises(KeyboardInterrupt):
        subproc.start((sys.executable, "-c", "import time; time.sleep(60)"), cwd=None, env=None, what="x", remedy=None)
    assert started
    assert started[0].poll() is not None, "the backend started as the interrupt came was left running"
    assert subproc._live == {}


@pytest.mark.usefixtures("handled")
def test_a_watching_thread_started_as_the_interrupt_came_is_stopped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _held_in_shelter(monkeypatch)
    target: Any = SimpleNamespace(site_paths=(tmp_path,), ext_suffixes=(".so",))
    watching = ahead.Ahead(target, ["alpha"])
    with pytest.raises(KeyboardInterrupt), watching:
        pytest.fail("the block ran although its start was interrupted")
    assert watching.stop.is_set()
    assert not watching.thread.is_alive()
