"""Run one command as evidence: directly (no shell), in its own process group, logged.

The command's stdout and stderr go, interleaved and unbounded, to one log
file; stdin is closed. A timeout sends SIGTERM to the whole group, then
SIGKILL after a grace period. :class:`Interrupts` turns SIGINT/SIGTERM sent
to tierlock into a flag the wait loop checks, so the running group is
stopped the same way and the run is recorded as interrupted.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import os
import select
import signal
import subprocess
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import FrameType

#: Seconds between SIGTERM and SIGKILL to a command's process group.
GRACE_SECONDS = 5.0
#: How often the wait loop looks at the clock, the interrupt flag and the live view.
TICK_SECONDS = 0.1


class Interrupts:
    """While active, SIGINT and SIGTERM set :attr:`signum` instead of stopping tierlock."""

    def __init__(self) -> None:
        self.signum: int | None = None

    def _handle(self, signum: int, frame: FrameType | None) -> None:
        self.signum = signum

    @contextlib.contextmanager
    def active(self) -> Iterator[Interrupts]:
        previous: dict[signal.Signals, object] = {}
        try:
            for sig in (signal.SIGINT, signal.SIGTERM):
                previous[sig] = signal.signal(sig, self._handle)
        except ValueError:  # not the main thread: signals stay as they are
            previous.clear()
        try:
            yield self
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)  # type: ignore[arg-type]


@dataclass(frozen=True)
class Outcome:
    """How one command ended."""

    exit_code: int | None
    """The exit status, or None when it did not exit on its own (a signal, or never started)."""
    signal: int | None
    """The signal that ended it, if any."""
    timed_out: bool
    interrupted: bool
    duration: float
    spawn_error: OSError | None = None
    """Set when the command could not be started (not found, not executable, ...)."""

    @property
    def ok(self) -> bool:
        return self.exit_code == 0 and not self.timed_out and not self.interrupted


def _kill_group(pgid: int, sig: int) -> bool:
    """Send *sig* to the group; False when no process of it is left."""
    try:
        os.killpg(pgid, sig)
    except ProcessLookupError:
        return False
    except PermissionError:  # pragma: no cover - a group member changed its credentials
        return True
    return True


def _group_alive(pgid: int) -> bool:
    return _kill_group(pgid, 0)


def _stop_group(proc: subprocess.Popen[bytes], grace: float) -> None:
    """SIGTERM to the group, SIGKILL after *grace* seconds; then reap the leader."""
    pgid = proc.pid
    _kill_group(pgid, signal.SIGTERM)
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline:
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=0.05)
        if proc.returncode is not None and not _group_alive(pgid):
            return
    _kill_group(pgid, signal.SIGKILL)
    proc.wait()
    # Members that outlived the leader are gone within a moment of SIGKILL.
    end = time.monotonic() + 1.0
    while _group_alive(pgid) and time.monotonic() < end:
        time.sleep(0.01)


class _Waiter:
    """Wait for a child's exit with a timeout: on a pidfd when the system has them (woken the moment it
    exits), else by :meth:`subprocess.Popen.wait`'s polling."""

    def __init__(self, proc: subprocess.Popen[bytes]) -> None:
        self.proc = proc
        self.poller: select.poll | None = None
        self.fd: int | None = None
        if hasattr(os, "pidfd_open") and hasattr(select, "poll"):
            try:
                self.fd = os.pidfd_open(proc.pid)
            except OSError:
                self.fd = None
            else:
                self.poller = select.poll()
                self.poller.register(self.fd, select.POLLIN)

    def wait(self, timeout: float) -> bool:
        """Whether the child exited (and was reaped) within *timeout* seconds."""
        if self.poller is not None:
            if not self.poller.poll(timeout * 1000):
                return False
            self.proc.wait()
            return True
        try:
            self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            return False
        return True

    def close(self) -> None:
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None


def run(
    argv: Sequence[str],
    *,
    cwd: Path,
    env: Mapping[str, str],
    log: Path,
    timeout: float | None,
    interrupts: Interrupts,
    grace: float = GRACE_SECONDS,
    tick: Callable[[float], None] | None = None,
) -> Outcome:
    """Run *argv* in *cwd* with *env*; its output goes to *log* (created or replaced)."""
    started = time.monotonic()
    with log.open("wb") as out:
        try:
            proc = subprocess.Popen(
                list(argv),
                cwd=cwd,
                env=dict(env),
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                close_fds=True,
            )
        except OSError as exc:
            return Outcome(None, None, False, False, time.monotonic() - started, spawn_error=exc)
    waiter = _Waiter(proc)
    timed_out = interrupted = False
    deadline = None if timeout is None else started + timeout
    while True:
        if interrupts.signum is not None:
            interrupted = True
            _stop_group(proc, grace)
            break
        now = time.monotonic()
        if deadline is not None and now >= deadline:
            timed_out = True
            _stop_group(proc, grace)
            break
        wait = TICK_SECONDS if deadline is None else max(0.0, min(TICK_SECONDS, deadline - now))
        if not waiter.wait(wait):
            if tick is not None:
                tick(time.monotonic() - started)
            continue
        break
    waiter.close()
    if not (timed_out or interrupted) and _group_alive(proc.pid):
        # The command exited and left processes behind in its group: they are not evidence, stop them.
        _stop_group(proc, grace)
    code = proc.returncode
    duration = time.monotonic() - started
    if code is not None and code < 0:
        return Outcome(None, -code, timed_out, interrupted, duration)
    return Outcome(code, None, timed_out, interrupted, duration)


def describe_spawn_error(exc: OSError, command: str) -> tuple[str, str]:
    """(kind, reason) of a command that could not be started."""
    if exc.errno == errno.ENOENT:
        return "toolchain", f"{command!r} was not found (not on PATH, or no such file)"
    if exc.errno in (errno.EACCES, errno.EPERM):
        return "toolchain", f"{command!r} cannot be executed (permission denied)"
    if exc.errno == errno.ENOEXEC:
        return "toolchain", f"{command!r} is not an executable this system can run"
    return "environment", f"{command!r} could not be started: {exc.strerror or exc}"


def digest_file(path: Path) -> tuple[int, str]:
    """(size, sha256 hex) of *path*."""
    h = hashlib.sha256()
    size = 0
    with path.open("rb") as handle:
        while chunk := handle.read(1 << 20):
            size += len(chunk)
            h.update(chunk)
    return size, h.hexdigest()


def tail(path: Path, lines: int) -> list[str]:
    """The last *lines* lines of *path* (read from the end: logs are unbounded)."""
    try:
        with path.open("rb") as handle:
            handle.seek(0, os.SEEK_END)
            end = handle.tell()
            block = 8192
            data = b""
            pos = end
            while pos > 0 and data.count(b"\n") <= lines:
                step = min(block, pos)
                pos -= step
                handle.seek(pos)
                data = handle.read(step) + data
                block *= 2
    except OSError:
        return []
    text = data.decode("utf-8", errors="replace").replace("\r\n", "\n")
    return text.rstrip("\n").split("\n")[-lines:] if text.strip() else []
