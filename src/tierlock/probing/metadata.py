"""What METADATA and the other small ``.dist-info`` files say: the version, the requirements, the scripts.

Versions are compared without importing ``packaging`` when they are only
release numbers (the common case): PEP 440 equality of ``2.1`` and ``2.1.0``
is the numbers without trailing zeros.
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING

from tierlock.probing.regular import open_bytes, open_text

if TYPE_CHECKING:
    from collections.abc import Callable

    from packaging.version import Version


def _release_only(text: str) -> bool:
    """Whether *text* is a PEP 440 version that is only a release number (``2.1.0``, the pattern
    ``[0-9]+(?:\\.[0-9]+)*`` in full, told without compiling it): compared without ``packaging``."""
    return all(part.isascii() and part.isdigit() for part in text.split("."))


_HEAD = 8192


def parse(text: str | None) -> Version | None:
    if text is None:
        return None
    from packaging.version import Version

    return Version(text)


@lru_cache(maxsize=4096)
def release(text: str) -> tuple[int, ...] | None:
    """A release-only version as numbers without trailing zeros (PEP 440 equality), else None."""
    if not _release_only(text):
        return None
    parts = [int(p) for p in text.split(".")]
    while len(parts) > 1 and parts[-1] == 0:
        parts.pop()
    return tuple(parts)


@lru_cache(maxsize=4096)
def normalized(text: str) -> str:
    """``str(Version(text))`` (raises ``InvalidVersion`` for an invalid one), without packaging for a release."""
    if _release_only(text):
        return ".".join(str(int(p)) for p in text.split("."))
    from packaging.version import Version

    return str(Version(text))


@lru_cache(maxsize=4096)
def version_reasons(raw: str, locked: str | None) -> tuple[str | None, tuple[str, ...]]:
    """(the installed version normalized or None, what is wrong with it) for METADATA's *raw* Version
    (remembered: a pure function of two short strings)."""
    installed = release(raw)
    if installed is not None and (locked is None or release(locked) is not None):
        version = normalized(raw)
        if locked is not None and installed != release(locked):
            return version, (f"installed version {version} differs from the locked {locked}",)
        return version, ()
    from packaging.version import InvalidVersion, Version

    try:
        parsed = Version(raw)
    except InvalidVersion:
        return None, (f"METADATA version {raw!r} is not a valid version",)
    if locked is None or parsed == Version(locked):
        return str(parsed), ()
    detail = " (the local version labels differ)" if parsed.public == Version(locked).public else ""
    return str(parsed), (f"installed version {parsed} differs from the locked {locked}{detail}",)


def metadata_version(path: str) -> str | None:
    """The ``Version`` header of a METADATA file, reading no further than the headers need."""
    with open_bytes(path, buffering=0) as fh:
        head = fh.read(_HEAD)
        return version_in(head, fh.read if len(head) == _HEAD else None)


def version_in(data: bytes, rest: Callable[[], bytes] | None = None) -> str | None:
    """The ``Version`` header of METADATA's bytes *data* (the whole file, or its first bytes and *rest* to read
    what follows them): looked for in the whole lines of the first 8 KiB, then, when the headers go on, in all."""
    head = data[:_HEAD]
    if len(head) == _HEAD:
        head = head[: head.rfind(b"\n") + 1]  # whole lines only: a line cut at the end is read whole below
    found, done = _version_header(head)
    if not done:
        found, _ = _version_header(data + rest() if rest is not None else data)
    return found


def _version_header(data: bytes) -> tuple[str | None, bool]:
    """(the Version value, whether the headers ended) in the RFC 822 style bytes *data*.

    *data* may stop after any line: the empty piece after its last newline is not the blank line that
    ends the headers.
    """
    *lines, last = data.split(b"\n")
    for line in lines:
        if not line.strip():
            return None, True  # end of the headers
        if line[:8].lower() == b"version:":
            return line[8:].decode("utf-8", "replace").strip() or None, True
    if last[:8].lower() == b"version:":  # the file's last line, without its newline
        return last[8:].decode("utf-8", "replace").strip() or None, True
    return None, False


def requires_dist(path: str) -> list[str]:
    """Every ``Requires-Dist`` value of a METADATA file (its headers only); [] when it cannot be read."""
    return headers(path, "Requires-Dist")


def headers(path: str, name: str) -> list[str]:
    """Every value of the header *name* (its key in any case) of a METADATA file, read to the first empty line
    (the description follows it); [] when it cannot be read."""
    wanted = name.lower()
    values: list[str] = []
    try:
        with open_text(path, errors="replace") as fh:
            for line in fh:
                if not line.strip():
                    break
                key, sep, value = line.partition(":")
                if sep and key.strip().lower() == wanted:
                    values.append(value.strip())
    except OSError:
        return []
    return values


def console_scripts(path: str) -> list[str]:
    """The script names of the ``[console_scripts]`` and ``[gui_scripts]`` sections of an entry_points.txt."""
    try:
        with open_text(path, errors="replace") as fh:
            text = fh.read()
    except OSError:
        return []
    return scripts_in(text)


def scripts_in(text: str) -> list[str]:
    """:func:`console_scripts` of the file's text (its line ends read as ``\\n``, as a text-mode file gives them)."""
    out: list[str] = []
    section = ""
    for raw in text.split("\n"):
        line = raw.strip()
        if not line or line.startswith(("#", ";")):
            continue
        if line.startswith("["):
            section = line.strip("[]").strip()
        elif section in ("console_scripts", "gui_scripts") and "=" in line:
            out.append(line.partition("=")[0].strip())
    return out
