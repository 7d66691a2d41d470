"""An inter-process lock inside the target environment.

Two installs into one environment at once are serialized with ``fcntl.flock``
on ``<prefix>/tierlock/install.lock``: the second waits (and says so on
stderr), then re-plans and usually finds nothing to do. The kernel releases
the lock when the holder exits, however it exits.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

LOCK_NAME = "install.lock"


def lock_path(prefix: Path) -> Path:
    return prefix / "tierlock" / LOCK_NAME


@contextmanager
def environment_lock(prefix: Path, *, on_wait: Callable[[str], None]) -> Iterator[bool]:
    """Hold the install lock of the environment at *prefix*.

    Yields whether this process had to wait for another install first.
    """
    import fcntl
    import sys

    early = sys.modules.get("tierlock.earlyarm")
    taken = early.held(str(prefix)) if early is not None else None
    if taken is not None:  # a backend started early holds it for this install: taken over, never let go between
        try:
            yield False
        finally:
            early.release(taken)  # type: ignore[union-attr]
        return
    path = lock_path(prefix)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as exc:
        from tierlock.errors import UsageError

        raise UsageError(
            f"cannot write into the environment {prefix} ({path}: {exc.strerror or exc}); nothing was changed",
            file=str(path),
            remedy="run as the user who owns the environment, or pass --python PATH to one you can write to",
        ) from exc
    waited = False
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            waited = True
            holder = _read_holder(fd)
            on_wait(f"waiting for another tierlock install into {prefix}{holder} to finish ...")
            fcntl.flock(fd, fcntl.LOCK_EX)
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        yield waited
    finally:
        os.close(fd)  # closing the descriptor releases the flock


def _read_holder(fd: int) -> str:
    try:
        pid = os.pread(fd, 32, 0).decode().strip()
    except OSError:
        return ""
    return f" (pid {pid})" if pid.isdigit() else ""
