"""Scratch folders that are gone afterwards, and atomic writes: the helpers that need ``tempfile`` and ``shutil``.

Kept apart from :mod:`tierlock.fsutil` (the safe reader every command uses) so
a command that only reads loads neither module.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tierlock import interrupts

#: How many times a cleanup is retried when an interrupt lands between its steps.
_CLEANUP_TRIES = 3


@contextmanager
def scratch_dir(prefix: str) -> Iterator[Path]:
    """A temporary folder that is gone afterwards, also when SIGINT or SIGTERM lands during its removal."""
    with interrupts.deferred():
        path = Path(tempfile.mkdtemp(prefix=prefix))
    try:
        yield path
    finally:
        remove_tree(path)


def remove_tree(path: Path) -> None:
    """Remove *path* and everything below it; an interrupt that lands meanwhile is raised after it is gone."""
    interrupted: BaseException | None = None
    for _ in range(_CLEANUP_TRIES):
        try:
            with interrupts.deferred():
                shutil.rmtree(path, ignore_errors=True)
        except KeyboardInterrupt as exc:  # landed just before the signals were held, or as they were released
            interrupted = exc
        if not path.exists():
            break
    if interrupted is not None:
        raise interrupted


def write_atomic(path: Path, data: bytes, *, sync: bool = True) -> None:
    """Replace *path* with *data*: a temporary file in the same folder, then a rename.

    An existing file keeps its mode; a new one gets the mode a plain ``open()``
    would give it (0666 less the umask), not the temporary file's private 0600.
    *sync*: the data reaches the disk before the rename (``fsync``); without, the rename alone makes the
    replacement whole for every reader and after any interrupt, but a crash of the machine may leave the
    file empty or gone (for a file whose readers take that as "none").
    """
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            if sync:
                os.fsync(handle.fileno())
        try:
            mode = path.stat().st_mode & 0o7777
        except FileNotFoundError:
            umask = os.umask(0o022)
            os.umask(umask)
            mode = 0o666 & ~umask
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
