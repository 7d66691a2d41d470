"""Small filesystem helpers: the one safe reader of the files tierlock is pointed at (writes: :mod:`tierlock.scratch`).

Every config, ``pyproject.toml`` and lockfile tierlock reads goes through
:func:`read_bytes`: a regular file (symlinks followed) of at most
:data:`MAX_BYTES`. A folder, a named pipe, a device or a socket is refused
before a byte is read (a pipe would wait for a writer forever, ``/dev/zero``
never ends), and so is a file over the limit; the refusal is a
:class:`FileRefused`, a configuration error (exit 2) that names the file and
what it is. :func:`find_pyproject` finds the project file the same way: the
nearest ``pyproject.toml`` that exists decides, and one that is not a regular
file is refused rather than passed over for a parent folder's.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from io import BufferedReader
from pathlib import Path

from tierlock import keptnote
from tierlock.errors import ConfigError, UsageError

#: The most tierlock reads of one file: 64 MiB.
MAX_BYTES = 64 * 1024 * 1024
_MIB = 1024 * 1024
_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOCTTY", 0)


class FileRefused(ConfigError):
    """A file tierlock will not read: not a regular file, or larger than :data:`MAX_BYTES` (exit 2)."""

    kind = "file-refused"

    def __init__(self, path: str | os.PathLike[str], what: str, *, too_large: bool = False) -> None:
        shown = os.fspath(path)
        if too_large:
            message = f"{shown} is larger than {MAX_BYTES // _MIB} MiB ({what}): tierlock reads at most that much"
            remedy = f"make {shown} smaller than {MAX_BYTES // _MIB} MiB"
        else:
            message = f"{shown} is {what}, not a regular file: tierlock reads only regular files"
            remedy = f"replace {shown} with a regular file"
        super().__init__(message, file=shown, remedy=remedy)
        self.what = what
        self.too_large = too_large


class NoPyproject(ConfigError):
    """No ``pyproject.toml`` at or above a folder (exit 2)."""


def kind_of(mode: int) -> str | None:
    """What a file of *mode* is when it is not a regular file (``a folder``, ``a named pipe (FIFO)``), else None."""
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a named pipe (FIFO)"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "a special file"


def _what(path: str, mode: int) -> str | None:
    """:func:`kind_of`, saying where a symlink leads (``a symlink to /dev/zero, a character device``)."""
    kind = kind_of(mode)
    if kind is not None and os.path.islink(path):
        return f"a symlink to {os.path.realpath(path)}, {kind}"
    return kind


def read_bytes(path: str | os.PathLike[str], *, limit: int = MAX_BYTES, reader: str = "") -> bytes:
    """The bytes of the regular file at *path*, refusing anything else or anything over *limit* bytes.

    Raises :class:`FileRefused` for a folder, a FIFO, a device, a socket or a file over *limit* (a
    FIFO is never waited on, a device never read); ``OSError`` as ``open()`` raises it otherwise
    (``FileNotFoundError``, ``PermissionError``).
    """
    name = os.fspath(path)
    looked = os.stat(name)
    what = _what(name, looked.st_mode)
    if what is not None:
        raise FileRefused(name, what)
    memo = _ONCE[-1] if _ONCE else None
    if memo is not None:
        kept = memo.get(name)
        if kept is not None and kept[0] == _identity(looked) and len(kept[1]) <= limit:
            _handed(name, reader, opened=False)
            return kept[1]
    fd = os.open(name, _OPEN_FLAGS)
    try:
        info = os.fstat(fd)
        what = _what(name, info.st_mode)  # replaced between the two looks: judged again, never waited on
        if what is not None:
            raise FileRefused(name, what)
        if info.st_size > limit:
            raise FileRefused(name, f"{info.st_size} bytes", too_large=True)
        chunks: list[bytes] = []
        got = 0
        while got <= limit:  # the size said may be wrong (a growing file, /proc): read one byte past the limit
            chunk = os.read(fd, min(max(info.st_size + 1 - got, 1 << 16), limit + 1 - got))
            if not chunk:
                break
            chunks.append(chunk)
            got += len(chunk)
    finally:
        os.close(fd)
    if got > limit:
        raise FileRefused(name, f"more than {limit} bytes", too_large=True)
    data = b"".join(chunks)
    if memo is not None and got <= _ONCE_BYTES:
        memo[name] = (_identity(info), data)
    _handed(name, reader, opened=True)
    return data


def _handed(name: str, reader: str, *, opened: bool) -> None:
    """Tell a recorded run (:mod:`tierlock.keptrecord`) that *reader* (``"parts"``: :mod:`tierlock.projectparts`;
    else ``""``) was given the bytes of *name*, read by an open of it or from the command's memo: a file whose
    bytes went to another reader is kept by them."""
    if keptnote.recording():
        keptnote.tell("bytes", name, (reader, opened))


#: The files read during :func:`reading_once` (path -> identity and bytes); innermost last.
_ONCE: list[dict[str, tuple[tuple[int, ...], bytes]]] = []
#: Files larger than this are read each time (the memo is for pyproject.toml, lockfiles, test files).
_ONCE_BYTES = 8 * 1024 * 1024


def _identity(info: os.stat_result) -> tuple[int, ...]:
    return (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns)


def kept_bytes(path: str | os.PathLike[str]) -> bytes | None:
    """The bytes :func:`read_bytes` gave for *path* in this :func:`reading_once` block while the file is
    unchanged (None when it was not read, or changed since, or outside such a block)."""
    if not _ONCE:
        return None
    name = os.fspath(path)
    kept = _ONCE[-1].get(name)
    try:
        found = kept[1] if kept is not None and kept[0] == _identity(os.stat(name)) else None
    except OSError:
        return None
    if found is not None:
        _handed(name, "", opened=False)
    return found


@contextmanager
def reading_once() -> Iterator[None]:
    """Within this block, :func:`read_bytes` reads a file once and gives the same bytes again while the file's
    identity (device, inode, size, times) is unchanged: one command reads each lockfile once, however many of
    its parts need it. Outside (the pytest plugin, a long-lived caller), every call reads the file."""
    _ONCE.append({})
    try:
        yield
    finally:
        _ONCE.pop()


def open_regular(path: str | os.PathLike[str]) -> BufferedReader:
    """The regular file at *path* opened for reading, whatever its size (a wheel to hash).

    :class:`FileRefused` for anything else (a FIFO is never waited on); ``OSError`` as ``open()`` raises it.
    """
    name = os.fspath(path)
    fd = os.open(name, _OPEN_FLAGS)
    what = _what(name, os.fstat(fd).st_mode)
    if what is not None:
        os.close(fd)
        raise FileRefused(name, what)
    return os.fdopen(fd, "rb")


def regular_file(path: str | os.PathLike[str]) -> bool:
    """Whether *path* is a regular file tierlock may read: False when nothing is there, and
    :class:`FileRefused` when something else is (a folder, a FIFO, a device, a file over :data:`MAX_BYTES`)."""
    name = os.fspath(path)
    try:
        info = os.stat(name)
    except (FileNotFoundError, NotADirectoryError):
        return False
    what = _what(name, info.st_mode)
    if what is not None:
        raise FileRefused(name, what)
    if info.st_size > MAX_BYTES:
        raise FileRefused(name, f"{info.st_size} bytes", too_large=True)
    return True


def read_text(path: str | os.PathLike[str], *, limit: int = MAX_BYTES) -> str:
    """:func:`read_bytes` decoded as UTF-8, a BOM dropped (``UnicodeDecodeError`` for other bytes)."""
    return utf8_text(read_bytes(path, limit=limit))


#: The byte order mark of UTF-8 (``codecs.BOM_UTF8``).
_BOM = b"\xef\xbb\xbf"


def utf8_text(data: bytes, errors: str = "strict") -> str:
    """*data* decoded as ``bytes.decode("utf-8-sig", errors)`` does - one leading BOM dropped, the rest UTF-8, the
    same text and the same ``UnicodeDecodeError`` (its positions counted after the BOM, as that codec counts them) -
    without loading the ``utf-8-sig`` codec's module (``encodings.utf_8_sig``: about 0.8 M instructions a process)."""
    if data[:3] == _BOM:
        data = data[3:]
    return data.decode("utf-8", errors)


def existing(project: str | os.PathLike[str]) -> int:
    """The mode of a named project (a folder, or its ``pyproject.toml``); a usage error when there is
    nothing there ("no such folder"), :class:`FileRefused` when it is neither a folder nor a regular file."""
    given = Path(project)
    remedy = "pass an existing project: --project DIR"
    if not os.path.lexists(given):
        noun = "file" if given.suffix == ".toml" else "folder"
        raise UsageError(f"no such {noun}: {given}", file=str(given), remedy=remedy)
    try:
        mode = os.stat(given).st_mode
    except OSError as exc:  # a dangling symlink, a folder that cannot be searched
        why = f"a symlink to {os.path.realpath(given)}, which does not exist" if os.path.islink(given) else ""
        message = f"{given} is {why}" if why else f"cannot read {given}: {exc.strerror or exc}"
        raise UsageError(message, file=str(given), remedy=remedy) from exc
    if not stat.S_ISREG(mode) and not stat.S_ISDIR(mode):
        raise FileRefused(given, _what(str(given), mode) or "a special file")
    return mode


def find_pyproject(start: str | os.PathLike[str]) -> Path:
    """The nearest ``pyproject.toml`` at or above *start* (a folder, or the file itself).

    *start* must exist ("no such folder", a usage error). Going up, the first ``pyproject.toml``
    that exists decides: a regular file is the answer, anything else is refused
    (:class:`FileRefused`), never passed over for a parent folder's.
    """
    given = Path(start)
    resolved = given.resolve()
    if stat.S_ISREG(existing(given)):
        return resolved
    for folder in (resolved, *resolved.parents):
        candidate = folder / "pyproject.toml"
        try:
            mode = os.stat(candidate).st_mode
        except FileNotFoundError:
            if os.path.islink(candidate):
                raise ConfigError(
                    f"{candidate} is a symlink to {os.path.realpath(candidate)}, which does not exist",
                    file=str(candidate),
                    remedy=f"replace {candidate} with a regular file",
                ) from None
            continue
        except NotADirectoryError:
            continue
        except OSError as exc:
            raise ConfigError(f"cannot read {candidate}: {exc.strerror or exc}", file=str(candidate)) from exc
        what = _what(str(candidate), mode)
        if what is not None:
            raise FileRefused(candidate, what)
        return candidate
    raise NoPyproject(
        f"no pyproject.toml in {resolved} or any folder above it",
        remedy="run tierlock inside a project, or pass --project DIR",
    )
