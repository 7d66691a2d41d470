"""Linux's inotify through :mod:`ctypes`: watch files and folders, then read back whether anything touched them.

The one use (:mod:`tierlock.installer.inrun`): the files of a package the backend finished are watched, then
stat-ed while the backend still runs; at its end the events say which of them may have changed since. An event is
queued by the very system call that changes what is watched, before it returns: every change completed before
:meth:`Watcher.events` reads the queue is in what it reads.
"""

from __future__ import annotations

import os
import struct
import sys

MODIFY = 0x2
ATTRIB = 0x4
CLOSE_WRITE = 0x8
MOVED_FROM = 0x40
MOVED_TO = 0x80
CREATE = 0x100
DELETE = 0x200
DELETE_SELF = 0x400
MOVE_SELF = 0x800
UNMOUNT = 0x2000
Q_OVERFLOW = 0x4000
IGNORED = 0x8000
CHANGES = MODIFY | ATTRIB | CLOSE_WRITE | MOVED_FROM | MOVED_TO | CREATE | DELETE | DELETE_SELF | MOVE_SELF
"""What a watch asks for: every change of a file's bytes, size, times, links or name, of a folder's entries,
and the watched thing itself deleted or moved (``IN_UNMOUNT``, ``IN_IGNORED``, ``IN_Q_OVERFLOW`` come anyway)."""
_HEAD = struct.Struct("iIII")
"""``struct inotify_event``: wd, mask, cookie, len (then len bytes of name)."""
_NONBLOCK = 0o4000
_CLOEXEC = 0o2000000


def _functions() -> tuple[object, object] | None:
    """libc's ``inotify_init1`` and ``inotify_add_watch``; None where there are none (not Linux, no ctypes)."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        init, add = libc.inotify_init1, libc.inotify_add_watch
    except (ImportError, OSError, AttributeError):
        return None
    init.argtypes = [ctypes.c_int]
    add.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_uint32]
    return init, add


class Watcher:
    """One inotify instance: :meth:`add` watches a path, :meth:`events` reads what came since (never blocks)."""

    def __init__(self) -> None:
        functions = _functions()
        if functions is None:
            raise OSError("inotify is not available here")
        init, self._add = functions
        fd = init(_NONBLOCK | _CLOEXEC)  # type: ignore[operator]
        if fd < 0:
            raise OSError("inotify_init1 failed")
        self.fd: int | None = fd

    def add(self, path: str) -> int | None:
        """Watch *path* (what it names now, following a symbolic link): its watch descriptor, None when it cannot
        be watched (gone, or the system's limit of watches reached)."""
        if self.fd is None:
            return None
        wd = self._add(self.fd, os.fsencode(path), CHANGES)  # type: ignore[operator]
        return wd if wd >= 0 else None

    def events(self) -> list[tuple[int, int, str]]:
        """Every event queued since the last call: (watch descriptor, mask, name in a watched folder or '')."""
        out: list[tuple[int, int, str]] = []
        if self.fd is None:
            return out
        while True:
            try:
                data = os.read(self.fd, 1 << 16)
            except BlockingIOError:
                return out
            if not data:
                return out
            at = 0
            while at + _HEAD.size <= len(data):
                wd, mask, _cookie, length = _HEAD.unpack_from(data, at)
                at += _HEAD.size
                name = data[at : at + length].split(b"\0", 1)[0]
                at += length
                out.append((wd, mask, os.fsdecode(name)))

    def close(self) -> None:
        if self.fd is not None:
            fd, self.fd = self.fd, None
            os.close(fd)
