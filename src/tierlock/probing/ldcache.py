"""The dynamic loader's cache, ``/etc/ld.so.cache``, read as glibc's loader reads it: library name -> paths.

``ldconfig`` writes it from the folders of ``/etc/ld.so.conf``; the loader looks a library up there
after the search paths the object names and before its default folders. Both layouts are read: the
current one (``glibc-ld.so.cache1.1``, alone or after the old one) and the old ``ld.so-1.7.0``.
Standard library only; :func:`parse` never raises (an unreadable cache is an empty one).
"""

from __future__ import annotations

import os
import struct

PATH = "/etc/ld.so.cache"
_OLD_MAGIC = b"ld.so-1.7.0"
_NEW_MAGIC = b"glibc-ld.so.cache1.1"
_NEW_HEADER = struct.Struct("=20sII4xI12x")  # magic+version, nlibs, len_strings, flags+padding, extension offset
_NEW_ENTRY = struct.Struct("=iIIIQ")  # flags, key, value, osversion, hwcap
_OLD_ENTRY = struct.Struct("=iII")  # flags, key, value
_ELF_TYPES = (1, 2, 3)
"""``flags & 0xff`` of an ELF library entry (``FLAG_ELF``, ``FLAG_ELF_LIBC5``, ``FLAG_ELF_LIBC6``)."""

_MEMO: dict[str, tuple[tuple[int, int, int], dict[str, tuple[str, ...]]]] = {}


def parse(data: bytes) -> dict[str, tuple[str, ...]]:
    """Library name -> the paths the cache gives for it, in the cache's order (the loader takes the first
    one of the right class and machine)."""
    try:
        if data.startswith(_NEW_MAGIC):
            return _new(data, 0)
        if data.startswith(_OLD_MAGIC):
            return _old(data)
    except (struct.error, ValueError, OverflowError):
        pass
    return {}


def _new(data: bytes, start: int) -> dict[str, tuple[str, ...]]:
    _magic, count, _strings, _extension = _NEW_HEADER.unpack_from(data, start)
    out: dict[str, list[str]] = {}
    first = start + _NEW_HEADER.size
    for i in range(min(count, (len(data) - first) // _NEW_ENTRY.size)):
        flags, key, value, _os, _hwcap = _NEW_ENTRY.unpack_from(data, first + i * _NEW_ENTRY.size)
        _add(out, flags, _string(data, start + key), _string(data, start + value))
    return {name: tuple(paths) for name, paths in out.items()}


def _old(data: bytes) -> dict[str, tuple[str, ...]]:
    (count,) = struct.unpack_from("=I", data, 12)
    entries = 16
    end = entries + count * _OLD_ENTRY.size
    new = end + (-end % 8)  # the current layout follows, aligned to 8 bytes, in files written for both
    if data.startswith(_NEW_MAGIC, new):
        return _new(data, new)
    out: dict[str, list[str]] = {}
    for i in range(min(count, (len(data) - entries) // _OLD_ENTRY.size)):
        flags, key, value = _OLD_ENTRY.unpack_from(data, entries + i * _OLD_ENTRY.size)
        _add(out, flags, _string(data, end + key), _string(data, end + value))
    return {name: tuple(paths) for name, paths in out.items()}


def _add(out: dict[str, list[str]], flags: int, name: str | None, path: str | None) -> None:
    if name and path and flags & 0xFF in _ELF_TYPES:
        paths = out.setdefault(name, [])
        if path not in paths:
            paths.append(path)


def _string(data: bytes, offset: int) -> str | None:
    """The NUL-terminated string at *offset* (never negative: unsigned fields), or None when there is none."""
    end = data.find(b"\0", offset)
    if end < 0:
        return None
    return data[offset:end].decode("utf-8", "surrogateescape")


def load(path: str = PATH) -> dict[str, tuple[str, ...]]:
    """The cache at *path*, read again only when the file changed (its size, mtime and inode); empty when
    there is none (musl systems, containers without ``ldconfig``)."""
    try:
        st = os.stat(path)
    except OSError:
        return {}
    key = (st.st_size, st.st_mtime_ns, st.st_ino)
    memo = _MEMO.get(path)
    if memo is not None and memo[0] == key:
        return memo[1]
    try:
        with open(path, "rb") as fh:
            table = parse(fh.read())
    except OSError:
        table = {}
    _MEMO[path] = (key, table)
    return table
