"""The one helper through which tierlock starts every subprocess.

It logs the command with -v, captures output, and on failure raises
:class:`BackendError` carrying the tail of what the process printed.
"""

from __future__ import annotations

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
    """*text* with the credentials of every URL masked (``https://user:****@host``): see :mod:`tierlock.masking`.

    Every command line and output tail this module shows goes through it: an index or
    proxy URL of the user's may carry a password, and a secret is never echoed.
    """
    from tierlock.masking import mask_credentials

    return mask_credentials(text)


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
        proc = subprocess.run(
            args,
            cwd=cwd,
            env=dict(os.environ if env is None else env),
            capture_output=True,
            text=True,
            check=False,
            stdin=subprocess.DEVNULL,
            timeout=timeout,
        )
    except FileNotFoundError as exc:
        raise BackendError(
            f"{what}: {args[0]} is not installed or not on PATH",
            remedy=remedy or f"install {Path(args[0]).name}",
        ) from exc
    except subprocess.TimeoutExpired as exc:
        raise BackendError(f"{what} did not finish within {timeout:.0f} s", remedy=remedy) from exc
    result = Result(args, proc.returncode, proc.stdout or "", proc.stderr or "")
    if check and proc.returncode != 0:
        raise BackendError(
            f"{what} failed (exit {proc.returncode}): {display(args)}",
            detail=redact(result.tail()),
            remedy=remedy,
        )
    return result
