"""The one helper through which tierlock starts every subprocess.

It logs the command with -v, captures output, and on failure raises
:class:`BackendError` carrying the tail of what the process printed.
"""

from __future__ import annotations

import _thread
import contextlib
import os
import subprocess
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import IO

from tierlock.errors import BackendError
from tierlock.frozen import Frozen
from tierlock.remedies import shell_quote

TYPE_CHECKING = False
if TYPE_CHECKING:
    import threading

TAIL_LINES = 30

#: Observers called with each argv before it starts (tests count backend runs with it).
observers: list[Callable[[Sequence[str]], None]] = []

#: Every process :func:`run` started that has not been reaped yet, by pid, whatever thread started it:
#: :func:`stop_all` ends them when the main thread is interrupted while worker threads wait on them.
_live: dict[int, subprocess.Popen[str]] = {}
_stopping: list[bool] = []
"""Non-empty while :func:`stop_all` ends the processes: :func:`run` then starts nothing new."""
_starting = _thread.allocate_lock()
"""Held while a process starts and is noted in :data:`_live`, and while :func:`stop_all` begins: a process a
worker thread starts as the main thread is interrupted is either among those it ends, or never started."""


class Result(Frozen):
    """A finished process (a :class:`~tierlock.frozen.Frozen` value: a read-only command that asks another
    interpreter builds no dataclass)."""

    _fields = ("argv", "returncode", "stdout", "stderr", "seconds")

    argv: tuple[str, ...]
    returncode: int
    stdout: str
    stderr: str
    seconds: float = 0.0
    """Wall time from the process's start (a process started already: its own start) to its end being read."""

    def __init__(self, argv: tuple[str, ...], returncode: int, stdout: str, stderr: str, seconds: float = 0.0) -> None:
        self._init(argv, returncode, stdout, stderr, seconds)

    def tail(self, lines: int = TAIL_LINES) -> str:
        text = (self.stdout + ("\n" if self.stdout and self.stderr else "") + self.stderr).rstrip()
        return "\n".join(text.splitlines()[-lines:])


def redact(text: str) -> str:
    """*text* through :func:`tierlock.redaction.redact`: URL credentials masked (``https://user:****@host``),
    every other credential-shaped part ``[redacted]``.

    Every command line and output tail this module shows goes through it: an index or
    proxy URL of the user's may carry a password, and a secret is never echoed.
    """
    from tierlock.redaction import redact as redacted

    return redacted(text)


def display(argv: Sequence[str]) -> str:
    """The command line as a person would type it, credentials masked."""
    return redact(" ".join(shell_quote(str(a)) for a in argv))


def run(
    argv: Sequence[str | Path],
    *,
    what: str,
    cwd: Path | None = None,
    env: Mapping[str, str] | None = None,
    check: bool = True,
    remedy: str | None = None,
    log: Callable[[str], None] | None = None,
    timeout: float | None = None,
    on_line: Callable[[str], None] | None = None,
    started: subprocess.Popen[str] | None = None,
) -> Result:
    """Run *argv*; *what* names the step in error messages ("uv pip compile").

    *on_line* is called with each line the process prints (stdout or stderr) as it
    prints it: a long step (a build from source) can say what it is doing.
    *started*: the process of exactly *argv*, started already (:func:`start`); it is
    waited for and read as one started here.
    """
    args = tuple(str(a) for a in argv)
    if _stopping:  # the command is being interrupted: a worker thread starts nothing more
        raise KeyboardInterrupt
    if started is None:
        for observer in observers:
            observer(args)
    if log is not None:
        log(f"running: {display(args)}")
    began = getattr(started, "began", None) or time.perf_counter()
    proc = started if started is not None else start(args, cwd=cwd, env=env, what=what, remedy=remedy)
    try:
        if on_line is None:
            stdout, stderr = proc.communicate(timeout=timeout)
        else:
            stdout, stderr = _stream(proc, on_line, timeout)
    except subprocess.TimeoutExpired as exc:
        stop(proc, grace=0, reading=on_line is not None)
        raise BackendError(f"{what} did not finish within {timeout:.0f} s", remedy=remedy) from exc
    except BaseException:  # KeyboardInterrupt (SIGINT, or SIGTERM through tierlock.interrupts)
        stop(proc, reading=on_line is not None)
        raise
    finally:
        _live.pop(proc.pid, None)
    ended = getattr(proc, "ended", None) or time.perf_counter()  # a watched process: its own end (tierlock came later)
    result = Result(args, proc.returncode, stdout or "", stderr or "", ended - began)
    if check and proc.returncode != 0:
        raise BackendError(
            f"{what} failed (exit {proc.returncode}): {display(args)}",
            detail=redact(result.tail()),
            remedy=remedy,
        )
    return result


def forget(proc: subprocess.Popen[str]) -> None:
    """*proc* was reaped by its starter (:func:`start`)."""
    _live.pop(proc.pid, None)


def start(
    args: tuple[str, ...], *, cwd: Path | None, env: Mapping[str, str] | None, what: str, remedy: str | None
) -> subprocess.Popen[str]:
    """Start *args* in its own process group, registered in :data:`_live` until :func:`run` reaps it (an interrupt
    that comes as it starts ends it before it is raised)."""
    from tierlock import interrupts

    proc: subprocess.Popen[str] | None = None
    try:
        # (held: an interrupt lands once the process is noted, never between its start and the note; passed on:
        # started from a sheltered thread, it would ignore stop()'s signals)
        with _starting, interrupts.deferred(), interrupts.passed_on():
            if _stopping:  # the command is being interrupted: a worker thread starts nothing more
                raise KeyboardInterrupt
            proc = subprocess.Popen(
                args,
                cwd=cwd,
                env=dict(os.environ if env is None else env),
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                stdin=subprocess.DEVNULL,
                process_group=0,  # its own group: an interrupt reaches it through stop(), with a grace period
            )
            _live[proc.pid] = proc
    except FileNotFoundError as exc:
        raise BackendError(
            f"{what}: {args[0]} is not installed or not on PATH",
            remedy=remedy or f"install {Path(args[0]).name}",
        ) from exc
    except BaseException:  # the interrupt held while it started: it is ended as run() ends one it waits for
        if proc is not None:
            try:
                stop(proc)
            finally:
                _live.pop(proc.pid, None)
        raise
    return proc


def _stream(proc: subprocess.Popen[str], on_line: Callable[[str], None], timeout: float | None) -> tuple[str, str]:
    """Read both pipes line by line (one thread each), handing every line to *on_line*; wait for the end."""
    import threading

    lines: dict[str, list[str]] = {"out": [], "err": []}
    guard = threading.Lock()

    def read(stream: IO[str] | None, into: list[str]) -> None:
        for line in iter(stream.readline if stream is not None else str, ""):
            into.append(line)
            with guard, contextlib.suppress(Exception):  # a caller's mistake never loses the output
                on_line(line.rstrip("\n"))

    readers = [
        threading.Thread(target=read, args=(proc.stdout, lines["out"]), daemon=True),
        threading.Thread(target=read, args=(proc.stderr, lines["err"]), daemon=True),
    ]
    from tierlock import interrupts

    with interrupts.sheltered():  # a signal always goes to the main thread (waiting for the process below)
        for reader in readers:
            reader.start()
    proc.wait(timeout=timeout)
    for reader in readers:
        reader.join()
    for stream in (proc.stdout, proc.stderr):
        if stream is not None:
            stream.close()
    return "".join(lines["out"]), "".join(lines["err"])


def stop(proc: subprocess.Popen[str], *, grace: float | None = None, reading: bool = False) -> None:
    """Ask *proc*'s process group to stop (SIGINT, as Ctrl-C would), wait *grace* seconds, then kill the group.

    The grace period lets a backend delete its own temporary folders. A second
    interrupt while waiting cuts the wait short. Idempotent: a process that
    already exited is only reaped. *reading*: other threads read its pipes (only wait).
    Signals are held meanwhile (:class:`tierlock.interrupts.deferred`): nothing cuts this before the group is
    signalled; one that comes meanwhile is raised after (unless the interrupt is on its way already).
    """
    import signal

    from tierlock import interrupts

    wait = interrupts.GRACE if grace is None else grace
    with interrupts.deferred():
        seen = min(len(interrupts.received), 1)  # (a second signal of the command, before or after this began)
        for signum, seconds in ((signal.SIGINT, wait), (signal.SIGKILL, 10.0)):
            if proc.poll() is not None:
                break
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(proc.pid, signum)
            # (a further signal cuts the grace short, never the wait for a killed backend: it ends at once, and a
            # command that returned before reaping it left it running for a moment on a loaded machine)
            if _ended(proc, seconds, seen if signum == signal.SIGINT else None, reading=reading):
                break
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)  # anything the backend left running in its group


def _ended(proc: subprocess.Popen[str], seconds: float, seen: int | None, *, reading: bool) -> bool:
    """Whether *proc* ends within *seconds* (its pipes drained unless *reading*); a signal after the first *seen*
    (another interrupt, noted by :mod:`tierlock.interrupts`, or raised under another handler) ends the wait, unless
    *seen* is None (the wait for a killed process, which no signal cuts short)."""
    import time

    from tierlock import interrupts

    deadline = time.monotonic() + seconds
    while True:
        step = max(0.0, min(0.05, deadline - time.monotonic()))
        try:
            if reading:
                proc.wait(timeout=step)
            else:
                proc.communicate(timeout=step)
            return True
        except subprocess.TimeoutExpired:
            pass
        except KeyboardInterrupt:  # under a caller's own handler: a second interrupt, no more grace
            return False
        except ValueError:  # the pipes were closed by an earlier communicate(): only wait
            reading = True
        if (seen is not None and interrupts.again(seen)) or time.monotonic() >= deadline:
            return False


def stop_all(grace: float | None = None) -> None:
    """End every process :func:`run` started that still runs, in any thread, each with its process group.

    Called by the main thread when an interrupt lands while worker threads wait on backends (``tierlock
    lock`` locks sibling tiers in threads): each group is asked to stop (SIGINT), given *grace* seconds
    (default :data:`tierlock.interrupts.GRACE`) to delete its own temporary folders, then killed. The waiting
    threads see their process end and clean up after themselves; :func:`run` starts nothing new meanwhile.
    """
    import signal
    import time

    from tierlock import interrupts

    with _starting:  # (a process starting now is noted first, or never starts)
        _stopping.append(True)
        procs = list(_live.values())
    wait = interrupts.GRACE if grace is None else grace
    with interrupts.deferred():  # nothing cuts this before every group is signalled
        seen = min(len(interrupts.received), 1)  # (a second signal of the command, before or after this began)
        for signum, seconds in ((signal.SIGINT, wait), (signal.SIGKILL, 10.0)):
            running = [p for p in procs if p.poll() is None]
            for proc in running:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(proc.pid, signum)
            deadline = time.monotonic() + seconds
            graced = signum == signal.SIGINT  # (killed groups are waited for whatever comes: they end at once)
            try:
                while any(p.poll() is None for p in running) and time.monotonic() < deadline:
                    if graced and interrupts.again(seen):  # a second interrupt: no more grace
                        break
                    time.sleep(0.02)
            except KeyboardInterrupt:  # (under a caller's own handler) a second interrupt: no more grace
                continue
        for proc in procs:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(proc.pid, signal.SIGKILL)  # anything a backend left running in its group


def join_workers(threads: Sequence[threading.Thread]) -> None:
    """Wait for *threads*, which run backends through :func:`run`; when the wait is interrupted, end their
    processes (:func:`stop_all`), let the threads clean up, and raise the interrupt. A thread never started
    (the interrupt landed before its start) is not waited for."""
    try:
        for thread in _started(threads):
            thread.join()
    except BaseException:
        end_workers(threads)
        raise


def end_workers(threads: Sequence[threading.Thread]) -> None:
    """:func:`stop_all`, then wait for *threads* to finish their cleanup (signals held back meanwhile)."""
    from tierlock import interrupts

    try:
        stop_all()
        with interrupts.deferred():
            for thread in _started(threads):
                thread.join(timeout=30.0)
    finally:
        _stopping.clear()


def _started(threads: Sequence[threading.Thread]) -> list[threading.Thread]:
    """*threads* but those never started (``join`` refuses them: there is nothing to wait for)."""
    return [thread for thread in threads if thread.ident is not None]
