"""A second signal that lands while an interrupt is being handled is noted, never raised: the cleanup of the first
runs to its end, a backend's grace period is cut short, and the command ends as interrupted (exit 130).

SIGINT then SIGTERM (a user's Ctrl-C, then the CI runner's cancel) used to raise a second ``KeyboardInterrupt``
anywhere in the cleanup of the first: inside the standard library's own cleanup (``threading.Condition.wait``
restoring its lock: ``RuntimeError``, an "internal error"), or in :func:`tierlock.subproc.stop` before the
backend's process group was signalled (the backend left running, the install waiting for it). Real processes,
real signals.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest

from tests.support.env import clean_env
from tierlock import interrupts, subproc

#: A command whose work is interrupted by a first signal and whose cleanup, which the second signal lands in,
#: waits on threads (the standard library's locks and conditions) and then leaves a mark that it ended.
CHILD = """
import os, signal, sys, threading, time
from pathlib import Path
from tierlock import cli
from tierlock.commands import status

def run(args, ctx):
    try:
        os.kill(os.getpid(), signal.{first})
        time.sleep(30)  # (the first signal ends this)
    finally:
        os.kill(os.getpid(), signal.{second})  # the second one, inside the cleanup of the first
        for _ in range(20):
            worker = threading.Thread(target=time.sleep, args=(0.005,))
            worker.start()
            worker.join()
        threading.Event().wait(0.1)
        Path({mark!r}).write_text("cleaned")
    return 0

status.run = run
sys.exit(cli.main({argv!r}))
"""

PAIRS = [("SIGINT", "SIGINT"), ("SIGINT", "SIGTERM"), ("SIGTERM", "SIGINT"), ("SIGTERM", "SIGTERM")]


def _run(tmp_path: Path, first: str, second: str, argv: list[str]) -> subprocess.CompletedProcess[str]:
    mark = tmp_path / "cleaned"
    code = textwrap.dedent(CHILD.format(first=first, second=second, mark=str(mark), argv=argv))
    return subprocess.run(
        [sys.executable, "-c", code], env=clean_env(), capture_output=True, text=True, check=False, timeout=60
    )


@pytest.mark.parametrize(("first", "second"), PAIRS, ids=[f"{a}-then-{b}" for a, b in PAIRS])
def test_a_second_signal_inside_the_cleanup_of_the_first_lets_it_finish_and_ends_the_command_as_interrupted(
    tmp_path: Path, first: str, second: str
) -> None:
    proc = _run(tmp_path, first, second, ["status"])
    assert proc.returncode == 130, proc.stderr
    assert (tmp_path / "cleaned").read_text() == "cleaned", "the second signal cut the cleanup of the first"
    assert "internal error" not in proc.stderr
    assert proc.stderr.splitlines()[0] == f"ERROR interrupted ({first}); nothing more was done", proc.stderr


def test_its_json_document_says_interrupted_with_the_rerun_command(tmp_path: Path) -> None:
    proc = _run(tmp_path, "SIGINT", "SIGTERM", ["--json", "status"])
    assert proc.returncode == 130, proc.stderr
    error = json.loads(proc.stdout)["error"]
    assert error["exit_code"] == 130
    assert error["kind"] == "interrupted"
    assert error["remedy_argv"] == [["tierlock", "--json", "status"]]


def test_only_the_first_signal_raises_and_every_later_one_is_noted() -> None:
    restore = interrupts.install()
    try:
        with pytest.raises(KeyboardInterrupt):
            signal.raise_signal(signal.SIGINT)
        signal.raise_signal(signal.SIGTERM)  # noted: the interrupt is on its way already
        signal.raise_signal(signal.SIGINT)
        assert interrupts.received == [signal.SIGINT, signal.SIGTERM, signal.SIGINT]
        assert interrupts.name() == "SIGINT", "the first signal is what interrupted the command"
    finally:
        restore()
    restore = interrupts.install()  # the next command starts afresh
    try:
        assert interrupts.received == []
        with pytest.raises(KeyboardInterrupt):
            signal.raise_signal(signal.SIGTERM)
    finally:
        restore()


def test_signals_during_a_held_cleanup_raise_one_interrupt_when_it_ends() -> None:
    restore = interrupts.install()
    steps: list[str] = []
    try:
        with pytest.raises(KeyboardInterrupt), interrupts.deferred():  # noqa: PT012 (the cleanup under test)
            signal.raise_signal(signal.SIGTERM)
            with interrupts.deferred():
                signal.raise_signal(signal.SIGINT)
                steps.append("inner")
            steps.append("outer")  # the inner cleanup's end raised nothing: the outer one still runs
        assert steps == ["inner", "outer"]
        signal.raise_signal(signal.SIGINT)  # noted: the interrupt was raised once
    finally:
        restore()


def test_a_held_cleanup_in_a_worker_thread_holds_nothing_of_the_main_thread() -> None:
    restore = interrupts.install()
    try:
        entered, leave = threading.Event(), threading.Event()

        def worker() -> None:
            with interrupts.deferred():
                entered.set()
                leave.wait(10)

        thread = threading.Thread(target=worker)
        thread.start()
        entered.wait(10)
        with pytest.raises(KeyboardInterrupt):
            signal.raise_signal(signal.SIGINT)  # the main thread is interrupted at once
        leave.set()
        thread.join(10)
    finally:
        restore()


def test_a_second_signal_cuts_a_backends_grace_period_short_and_its_group_is_killed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(interrupts, "GRACE", 600.0)  # a stop that waited the grace out would outlive the test
    stubborn = tmp_path / "stubborn.py"
    stubborn.write_text(
        "import signal, sys, time\n"
        "signal.signal(signal.SIGINT, signal.SIG_IGN)\n"  # a backend that does not stop when asked
        f"open({str(tmp_path / 'ready')!r}, 'w').close()\n"
        "time.sleep(600)\n"
    )
    restore = interrupts.install()
    pids: list[int] = []

    def signals() -> None:
        while not (tmp_path / "ready").exists():
            time.sleep(0.01)
        os.kill(os.getpid(), signal.SIGINT)  # the first: run() stops the backend, with its grace period
        time.sleep(0.2)
        os.kill(os.getpid(), signal.SIGTERM)  # the second, during the grace period: no more grace

    watchdog: list[str] = []

    def guard() -> None:  # a stop still waiting its grace out after a minute never saw the second signal
        watchdog.append("fired")
        os.killpg(pids[0], signal.SIGKILL)

    sender, timer = threading.Thread(target=signals), threading.Timer(60, guard)
    try:
        sender.start()
        with pytest.raises(KeyboardInterrupt):  # noqa: PT012 (started, then run: both are the backend's run)
            proc = subproc.start((sys.executable, str(stubborn)), cwd=None, env=None, what="stubborn", remedy=None)
            pids.append(proc.pid)
            timer.start()
            subproc.run([sys.executable, str(stubborn)], what="stubborn", started=proc, timeout=120)
    finally:
        timer.cancel()
        sender.join(10)
        restore()
    assert watchdog == [], "the backend's grace period ran on after the second signal"
    with pytest.raises(ProcessLookupError):
        os.killpg(pids[0], 0)


def _blocked_in_other_threads() -> dict[int, bool]:
    """Each thread of this process but the main one: whether it blocks SIGINT and SIGTERM (``/proc``'s ``SigBlk``)."""
    found: dict[int, bool] = {}
    for task in Path("/proc/self/task").iterdir():
        if int(task.name) == os.getpid():
            continue
        try:
            status = (task / "status").read_text()
        except OSError:  # ended meanwhile
            continue
        blocked = int(next(line.split()[1] for line in status.splitlines() if line.startswith("SigBlk:")), 16)
        found[int(task.name)] = all(blocked >> (signum - 1) & 1 for signum in (signal.SIGINT, signal.SIGTERM))
    return found


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="needs /proc")
def test_the_threads_reading_a_backends_output_leave_every_signal_to_the_main_thread() -> None:
    before = set(_blocked_in_other_threads())  # (a test runner's own threads are not tierlock's)
    seen: list[dict[int, bool]] = []

    def look(line: str) -> None:
        seen.append({tid: ok for tid, ok in _blocked_in_other_threads().items() if tid not in before})

    script = "import sys, time; print('a'); sys.stdout.flush(); time.sleep(0.3); print('b')"
    subproc.run([sys.executable, "-c", script], what="child", on_line=look)
    assert seen
    assert all(view and all(view.values()) for view in seen), seen
    assert signal.pthread_sigmask(signal.SIG_BLOCK, []) == set(), "the main thread's own mask is put back"


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="needs /proc")
def test_the_thread_watching_an_early_backend_leaves_every_signal_to_the_main_thread() -> None:
    from tierlock import spawning

    before = set(_blocked_in_other_threads())
    spawned = spawning.spawn([sys.executable, "-c", "import time; time.sleep(1)"])
    spawning.watch(spawned)
    watcher = {tid: ok for tid, ok in _blocked_in_other_threads().items() if tid not in before}
    os.waitpid(spawned.pid, 0)
    assert watcher
    assert all(watcher.values()), watcher
    assert signal.pthread_sigmask(signal.SIG_BLOCK, []) == set()


_MASK = "import signal; print(sorted(int(s) for s in signal.pthread_sigmask(signal.SIG_BLOCK, [])))"


@pytest.mark.parametrize("how", ["subproc", "spawning"])
def test_a_process_started_from_a_sheltered_thread_gets_sigint_and_sigterm(how: str) -> None:
    """A helper thread blocks SIGINT and SIGTERM (so the main thread gets them); a backend it starts must not
    inherit that, or it ignores the request to stop and is killed only when its grace runs out."""
    from tierlock import spawning

    told: list[str] = []

    def work() -> None:
        if how == "subproc":
            told.append(subproc.run((sys.executable, "-c", _MASK), cwd=None, env=None, what="mask").stdout)
            return
        started = spawning.spawn([sys.executable, "-c", _MASK], capture=True)
        os.waitpid(started.pid, 0)
        told.append(os.read(started.out, 100).decode())

    with interrupts.sheltered():
        thread = threading.Thread(target=work)
        thread.start()
    thread.join()
    assert told == ["[]\n"]
