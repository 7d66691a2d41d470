"""An installed file opened to be read, never waited on: what stands where a file was may be something else.

``open()`` of a FIFO waits for a writer (forever: a probe, the pytest gate or an arming that never ends, a CI job
stopped by its time limit), and a device (``/dev/zero`` linked in a file's place) never ends a read. A file of a
site folder, a ``.dist-info`` file or a compiled file to be read is opened here: without waiting, then refused
(``OSError``) unless it is a regular file, as a file that cannot be read is (its size, which the probe compares
with RECORD's by a ``stat``, says what is wrong with it).
"""

from __future__ import annotations

import errno
import io
import os
import stat
from typing import BinaryIO

_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOCTTY", 0)


def open_bytes(path: str, buffering: int = -1) -> BinaryIO:
    """The regular file at *path* opened to read bytes (*buffering* as :func:`open`'s); ``OSError`` for anything
    else, or when it cannot be opened."""
    fd = os.open(path, _FLAGS)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(errno.EINVAL, "not a regular file", path)
        return os.fdopen(fd, "rb", buffering=buffering)
    except BaseException:
        os.close(fd)
        raise


def open_text(path: str, encoding: str = "utf-8", errors: str | None = None) -> io.TextIOWrapper:
    """:func:`open_bytes` read as text (universal newlines, as :func:`open` in text mode)."""
    return io.TextIOWrapper(open_bytes(path), encoding=encoding, errors=errors)
