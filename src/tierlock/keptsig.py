"""What a path or a module is, for a recorded run (:mod:`tierlock.keptrecord`): the signature a look-up found,
whether a file was modified too recently to keep a run by, and the files of the modules loaded."""

from __future__ import annotations

import os
import sys

from tierlock.keptrun import stat_sig

#: The look-up of the file system itself (a recorded run replaces :func:`os.stat` with its own).
_real_stat = os.stat


def seen_sig(path: str, found: os.stat_result | int | None, *, follow: bool = True) -> tuple[int, ...]:
    """The :func:`~tierlock.keptrun.stat_sig` of *path* as the run's own look-up *found* it (a stat result, or a
    failed look-up's ``-errno``; None: never looked up by the run, e.g. a module's source: looked up now)."""
    if found is None:
        return stat_sig(path, follow=follow)
    if isinstance(found, int):
        return (found,)
    if found.st_mode & 0o170000 == 0o040000:
        return (found.st_mode, found.st_ino, found.st_dev)
    return (found.st_mode, found.st_size, found.st_mtime_ns, found.st_ino, found.st_dev)


def recent(path: str, since_ns: int) -> bool:
    """Whether *path* is a file modified at or after *since_ns* (:func:`~tierlock.keptrun.modified_since` of its
    :func:`~tierlock.keptrun.stat_sig`), looked up without being noted as one of the run's look-ups."""
    try:
        st = _real_stat(path)
    except OSError:
        return False
    return st.st_mode & 0o170000 != 0o040000 and st.st_mtime_ns >= since_ns


def parent(path: str) -> str:
    return os.path.basename(os.path.dirname(path))


def module_files() -> tuple[set[str], set[str]]:
    """The files the import system read for the modules loaded (source and byte code), and their sources."""
    read: set[str] = set()
    sources: set[str] = set()
    for module in list(sys.modules.values()):
        source, cached = getattr(module, "__file__", None), getattr(module, "__cached__", None)
        if isinstance(source, str):
            sources.add(source)
            read.add(source)
        if isinstance(cached, str):
            read.add(cached)
    return read, sources
