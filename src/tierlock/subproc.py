"""The one helper through which tierlock starts every subprocess.

It logs the command with -v, captures output, and on failure raises
:class:`BackendError` carrying the tail of what the process printed.
"""

from __future__ import annotations

import contextlib
import os
import shlex
import subprocess
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from tierlock.errors import BackendError

TAIL_LINES = 30

#: Observers called with each argv before it starts (tests count backend runs with it).
observers: list[Callable[[Sequence[str]], None]] = []


@dataclass(frozen=True)
class Result:
    argv: tuple[str, ...]
    returncode: int
    stdout: str
    stderr: str

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
    return redact(" ".join(shlex.quote(str(a)) for a in argv))


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
) -> Result:
    """Run *argv*; *what* names the step in error messages ("uv pip compile")."""
    args = tuple(str(a) for a in argv)
    for observer in observers:
        observer(args)
    if log is not None:
        log(f"running: {display(args)}")
    try:
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
    except FileNotFoundError as exc:
        raise BackendError(
            f"{what}: {args[0]} is not installed or not on PATH",
            remedy=remedy or f"install {Path(args[0]).name}",
        ) from exc
    try:
        stdout, stderr = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired as exc:
        stop(proc, grace=0)
        raise BackendError(f"{what} did not finish within {timeout:.0f} s", remedy=remedy) from exc
    except BaseException:  # KeyboardInterrupt (SIGINT, or SIGTERM through tierlock.interrupts)
        stop(proc)
        raise
    result = Result(args, proc.returncode, stdout or "", stderr or "")
    if check and proc.returncode != 0:
        raise BackendError(
            f"{what} failed (exit {proc.returncode}): {display(args)}",
            detail=redact(result.tail()),
            remedy=remedy,
        )
    return result


def stop(proc: subprocess.Popen[str], *, grace: float | None = None) -> None:
    """Ask *proc*'s process group to stop (SIGINT, as Ctrl-C would), wait *grace* seconds, then kill the group.

    The grace period lets a backend delete its own temporary folders. A second
    interrupt while waiting cuts the wait short. Idempotent: a process that
    already exited is only reaped.
    """
    import signal

    from tierlock import interrupts

    wait = interrupts.GRACE if grace is None else grace
    for signum, seconds in ((signal.SIGINT, wait), (signal.SIGKILL, 10.0)):
        if proc.poll() is not None:
            break
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signum)
        try:
            proc.communicate(timeout=seconds)
            break
        except (subprocess.TimeoutExpired, KeyboardInterrupt):
            continue
        except ValueError:  # the pipes were closed by an earlier communicate()
            with contextlib.suppress(subprocess.TimeoutExpired, KeyboardInterrupt):
                proc.wait(timeout=seconds)
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)  # anything the backend left running in its group
