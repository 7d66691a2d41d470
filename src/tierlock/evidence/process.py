"""Run one command as evidence: directly (no shell), in its own process group, logged.

The command's stdout and stderr go, interleaved and unbounded, to one log
file readable by its owner only; stdin is closed. A timeout sends SIGTERM to the whole group, then
SIGKILL after a grace period. :class:`Interrupts` turns SIGINT/SIGTERM sent
to tierlock into a flag the wait loop checks, so the running group is
stopped the same way and the run is recorded as interrupted.
"""

from __future__ import annotations

import contextlib
import errno
import os
import select
import signal
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
    """While active, SIGINT and SIGTERM set :attr:`signum` instead of stopping tierlock.

    A second signal (Ctrl-C pressed again) cuts the grace period short: the group gets SIGKILL at once.
    """

    def __init__(self) -> None:
        self.signum: int | None = None
        self.count = 0

    def _handle(self, signum: int, frame: FrameType | None) -> None:
        self.signum = signum
        self.count += 1

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
    stage: str = "exec"
    """Where starting failed: ``log`` (the log file), ``cwd`` (the folder) or ``exec`` (the command)."""

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


class _Child:
    """A started command: its pid (also its process group id) and, once reaped, its wait status."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.status: int | None = None
        self.poller: select.poll | None = None
        self.fd: int | None = None
        if hasattr(os, "pidfd_open"):
            try:
                self.fd = os.pidfd_open(pid)
            except OSError:
                self.fd = None
            else:
                self.poller = select.poll()
                self.poller.register(self.fd, select.POLLIN)

    def wait(self, timeout: float | None) -> bool:
        """Whether the child exited (and was reaped) within *timeout* seconds (None: wait for it)."""
        if self.status is not None:
            return True
        if timeout is None:
            self._reap(0)
            return True
        if self.poller is not None:  # woken the moment the child exits
            if not self.poller.poll(timeout * 1000):
                return False
            self._reap(0)
            return True
        end = time.monotonic() + timeout  # no pidfd: poll waitpid
        delay = 0.0005
        while not self._reap(os.WNOHANG):
            remaining = end - time.monotonic()
            if remaining <= 0:
                return False
            time.sleep(min(delay, remaining))
            delay = min(delay * 2, 0.05)
        return True

    def _reap(self, flags: int) -> bool:
        pid, status = os.waitpid(self.pid, flags)
        if pid == 0:
            return False
        self.status = status
        return True

    @property
    def returncode(self) -> int | None:
        return None if self.status is None else os.waitstatus_to_exitcode(self.status)

    def close(self) -> None:
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None


def _stop_group(child: _Child, grace: float, interrupts: Interrupts | None = None) -> None:
    """SIGTERM to the group, SIGKILL after *grace* seconds (or at once on a further interrupt); reap the leader."""
    pgid = child.pid
    _kill_group(pgid, signal.SIGTERM)
    deadline = time.monotonic() + grace
    seen = interrupts.count if interrupts is not None else 0
    while time.monotonic() < deadline and (interrupts is None or interrupts.count == seen):
        child.wait(0.05)
        if child.status is not None and not _group_alive(pgid):
            return
        if child.status is not None:
            time.sleep(0.01)
    _kill_group(pgid, signal.SIGKILL)
    child.wait(None)
    # Members that outlived the leader are gone within a moment of SIGKILL.
    end = time.monotonic() + 1.0
    while _group_alive(pgid) and time.monotonic() < end:
        time.sleep(0.01)


def which(command: str, cwd: Path, env: Mapping[str, str]) -> str:
    """The file *command* names: a path (relative to *cwd*) when it holds a slash, else found on the
    command's own ``PATH``; raises :class:`FileNotFoundError` or :class:`PermissionError` as exec would."""
    if "/" in command:
        return str(cwd / command)
    denied = None
    for folder in env.get("PATH", os.defpath).split(os.pathsep):
        candidate = os.path.join(cwd, folder or ".", command)  # a relative entry: from the cwd, as exec does
        if os.path.isfile(candidate):
            if os.access(candidate, os.X_OK):
                return candidate
            denied = candidate
    if denied is not None:
        raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), denied)
    raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), command)


class _SpawnError(Exception):
    def __init__(self, stage: str, error: OSError) -> None:
        super().__init__(str(error))
        self.stage = stage
        self.error = error


def _spawn(argv: Sequence[str], cwd: Path, env: Mapping[str, str], log: Path) -> int:
    """Start *argv* with posix_spawn (much cheaper than fork + exec here): its own session and process
    group, stdin from /dev/null, stdout and stderr both into *log*. Returns the pid."""
    try:
        out = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o600)
        os.fchmod(out, 0o600)  # raw output: never readable by others, whatever the umask or an older file
    except OSError as exc:
        raise _SpawnError("log", exc) from exc
    here = None
    try:
        try:
            executable = which(argv[0], cwd, env)
        except OSError as exc:
            raise _SpawnError("exec", exc) from exc
        try:
            here = os.open(".", os.O_RDONLY | os.O_CLOEXEC)
            # posix_spawn has no cwd in this Python: change ours around the call (one thread; signals only flag).
            os.chdir(cwd)
        except OSError as exc:
            raise _SpawnError("cwd", exc) from exc
        try:
            return os.posix_spawn(
                executable,
                list(argv),
                dict(env),
                file_actions=[
                    (os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
                    (os.POSIX_SPAWN_DUP2, out, 1),
                    (os.POSIX_SPAWN_DUP2, out, 2),
                ],
                setsid=True,
                setsigmask=(),  # every signal delivered, whatever the thread starting it blocks
            )
        except OSError as exc:
            raise _SpawnError("exec", exc) from exc
    finally:
        if here is not None:
            os.fchdir(here)
            os.close(here)
        os.close(out)


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
    try:
        child = _Child(_spawn(argv, cwd, env, log))
    except _SpawnError as failed:
        elapsed = time.monotonic() - started
        return Outcome(None, None, False, False, elapsed, spawn_error=failed.error, stage=failed.stage)
    timed_out = interrupted = False
    deadline = None if timeout is None else started + timeout
    try:
        while True:
            if interrupts.signum is not None:
                interrupted = True
                _stop_group(child, grace, interrupts)
                break
            now = time.monotonic()
            if deadline is not None and now >= deadline:
                timed_out = True
                _stop_group(child, grace, interrupts)
                break
            wait = TICK_SECONDS if deadline is None else max(0.0, min(TICK_SECONDS, deadline - now))
            if child.wait(wait):
                break
            if tick is not None:
                tick(time.monotonic() - started)
        if not (timed_out or interrupted) and _group_alive(child.pid):
            # The command exited and left processes behind in its group: they are not evidence, stop them.
            _stop_group(child, grace, interrupts)
    finally:
        child.close()
    code = child.returncode
    duration = time.monotonic() - started
    if code is not None and code < 0:
        return Outcome(None, -code, timed_out, interrupted, duration)
    return Outcome(code, None, timed_out, interrupted, duration)


def describe_spawn_error(exc: OSError, command: str, stage: str = "exec") -> tuple[str, str]:
    """(blocker kind, reason) of a command that could not be started."""
    if stage == "log":
        return "environment", f"the log {exc.filename or ''} cannot be written: {exc.strerror or exc}"
    if stage == "cwd":
        return "scope", f"cannot enter the command's folder: {exc.strerror or exc}"
    if exc.errno == errno.ENOENT:
        return "toolchain", f"{command!r} was not found (not on PATH, or no such file)"
    if exc.errno in (errno.EACCES, errno.EPERM):
        return "toolchain", f"{command!r} cannot be executed (permission denied)"
    if exc.errno == errno.ENOEXEC:
        return "toolchain", f"{command!r} is not an executable this system can run"
    return "environment", f"{command!r} could not be started: {exc.strerror or exc}"
