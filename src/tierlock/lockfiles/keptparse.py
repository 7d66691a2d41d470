"""A requirements lockfile's parse kept as plain data by the sha256 of its bytes, so the next command that reads
the same bytes does not parse them again.

Every read-only command reads the lock of each tier (narwhals: 13 lockfiles, ~170 entries), and parsing them
(the logical lines, the options, each entry's requirement, its hashes) is milliseconds each. What a parse gave
is kept in tierlock's cache folder, one file per folder of lockfiles (the newest parse of each lockfile of it,
written once when the command ends: :func:`save_all`), as ``marshal`` data: the header's fields, each entry as its
name, version and marker written out, its hashes, line and URL, and every problem. It is given back only for
bytes whose sha256 is the one it was kept under, by the same tierlock (version and the readers' code), the
same ``packaging`` (whose parser it rests on and whose messages a problem may quote) and the same interpreter;
the version and marker are made again by ``packaging`` from their text (equal to the parsed ones: a version's
and a marker's text is what they compare by). The kept file is sealed by the sha256 of its bytes: a byte changed
since it was written (a disk error, a half-written copy, a hand edit) and it is no parse, and the lockfile is
parsed. pylock lockfiles (whose model holds packaging's validated document) are not kept.
"""

from __future__ import annotations

import atexit  # (built in: no import cost)
import marshal
import os
import sys

from packaging import __version__ as packaging_version
from packaging.markers import Marker
from packaging.version import Version

from tierlock._version import __version__
from tierlock.fasthash import sha256  # (no OpenSSL start-up: hashlib loads it)
from tierlock.lockfiles.locks import LockEntry, LockHeader, ReadProblem
from tierlock.lockfiles.readercode import code as _code
from tierlock.probing.libcache import path_for, put

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

#: Raised by a kept form that is not one this module wrote (marshal's own errors, and a wrong shape).
_DAMAGED = (OSError, ValueError, EOFError, TypeError, KeyError, IndexError)
SCHEMA = 1


class Parse:
    """What the parse of a requirements lockfile gave: its header, entries, problems and body digest."""

    __slots__ = ("body_digest", "entries", "header", "problems")

    def __init__(
        self,
        header: LockHeader | None,
        entries: Sequence[LockEntry],
        problems: Sequence[ReadProblem],
        body_digest: str,
    ) -> None:
        self.header = header
        self.entries = tuple(entries)
        self.problems = tuple(problems)
        self.body_digest = body_digest


def key() -> tuple[object, ...]:
    """What the kept parses are kept under besides each lockfile's bytes: this tierlock (its version and the
    identity of the lockfile readers' code: a parser changed in place is another parser), packaging and the
    interpreter (the form and the parser's own messages)."""
    return (SCHEMA, __version__, packaging_version, sys.implementation.cache_tag, _code())


#: The kept parses of each lockfile folder this process read (by the cache file's path): each lockfile's absolute
#: path -> (sha256 of its bytes, its parse as plain data). Read at most once per process; written once, at exit
#: (:func:`save_all`), when a lockfile was parsed.
_FILES: dict[str, dict[str, tuple[str, Any]]] = {}
_CHANGED: set[str] = set()
#: The most lockfiles one cache file keeps (a folder of many lockfiles still keeps its own; more: started afresh).
_KEPT = 256


def _place(path: str) -> str | None:
    return path_for([os.path.dirname(os.path.abspath(path))], "lockparse")


def _parses(where: str) -> dict[str, tuple[str, Any]]:
    """The parses kept in the cache file *where* (empty: none, damaged, or kept by another tierlock, packaging
    or interpreter)."""
    found = _FILES.get(where)
    if found is None:
        found = _FILES[where] = {}
        try:
            with open(where, "rb") as handle:
                data = handle.read()
            if bytes(sha256(data[32:]).digest()) == data[:32]:  # (else a byte changed since it was written)
                kept = marshal.loads(data[32:])
                if kept["key"] == key() and isinstance(kept["parses"], dict):
                    found.update(kept["parses"])
        except _DAMAGED:
            pass
    return found


def find(path: str, digest: str) -> Parse | None:
    """The kept parse of the lockfile at *path* when it was kept for bytes of sha256 *digest* (None: none was,
    caching is off, or the kept file is damaged)."""
    got = _kept(path, digest)
    if got is None:
        return None
    try:
        return _rebuilt(got)
    except _DAMAGED:
        return None


def find_form(path: str, digest: str, kind: str) -> Any:
    """The plain data kept as *kind* (:func:`keep_form`) for the file at *path* when it was kept for bytes of
    sha256 *digest* (None: none was, another kind was, caching is off, or the kept file is damaged)."""
    got = _kept(path, digest)
    try:
        return None if got is None else got[kind]
    except _DAMAGED:
        return None


def _kept(path: str, digest: str) -> Any:
    """What was kept for the file at *path* of bytes of sha256 *digest* (None: nothing)."""
    where = _place(path)
    if where is None:
        return None
    got = _parses(where).get(os.path.abspath(path))
    if got is None or got[0] != digest:
        return None
    return got[1]


#: The markers made again, by their text: the lockfiles of a project's tiers share most of them (a marker is
#: never changed once made, and compares by its text).
_MARKERS: dict[str, Marker] = {}


def _rebuilt(kept: dict[str, Any]) -> Parse:
    header = None if kept["header"] is None else LockHeader(*kept["header"])
    markers = _MARKERS
    if len(markers) >= _KEPT:
        markers.clear()
    entries = []
    for name, version, marker, hashes, line, url in kept["entries"]:
        if marker is not None and marker not in markers:
            markers[marker] = Marker(marker)
        entries.append(
            LockEntry(
                name=name,
                version=Version(version),
                marker=None if marker is None else markers[marker],
                hashes=tuple(hashes),
                line=line,
                url=url,
            )
        )
    problems = [ReadProblem(kind, line, detail) for kind, line, detail in kept["problems"]]
    return Parse(header, entries, problems, kept["body_digest"])


def keep(path: str, digest: str, parse: Parse) -> None:
    """Keep *parse*, what the lockfile at *path* of bytes of sha256 *digest* gave, to be written at exit
    (nothing when caching is off, or an entry has what this form does not hold: files, an index)."""
    where = _place(path)
    if where is None or any(entry.files or entry.index is not None for entry in parse.entries):
        return
    header = parse.header
    form = {
        "header": None if header is None else tuple(getattr(header, name) for name in LockHeader._fields),
        "entries": [
            (e.name, str(e.version), None if e.marker is None else str(e.marker), e.hashes, e.line, e.url)
            for e in parse.entries
        ],
        "problems": [(p.kind, p.line, p.detail) for p in parse.problems],
        "body_digest": parse.body_digest,
    }
    _put(where, path, digest, form)


def keep_form(path: str, digest: str, kind: str, form: Any) -> None:
    """Keep *form* (plain data ``marshal`` writes) as *kind*, what the file at *path* of bytes of sha256 *digest*
    gave (another file than a lockfile: an artifact record), to be written at exit (nothing when caching is off).
    """
    where = _place(path)
    if where is not None:
        _put(where, path, digest, {kind: form})


def _put(where: str, path: str, digest: str, form: dict[str, Any]) -> None:
    parses = _parses(where)
    if len(parses) >= _KEPT:
        parses.clear()
    parses[os.path.abspath(path)] = (digest, form)
    if not _CHANGED:  # written when the command ends (the console script's exit calls it; else the interpreter's)
        atexit.register(save_all)
    _CHANGED.add(where)


def save_all() -> None:
    """Write every cache file a parse was kept in since (atomically, sealed by the sha256 of its bytes; nothing
    when it cannot be written, or a value cannot be written by ``marshal``); and the markers' overlaps learnt
    (:mod:`tierlock.lockfiles.overlapkept`, whose questions come after the lockfiles were read)."""
    overlaps = sys.modules.get("tierlock.lockfiles.overlapkept")
    if overlaps is not None:
        overlaps.save()
    for where in sorted(_CHANGED):
        try:
            data = marshal.dumps({"key": key(), "parses": _FILES[where]})
        except ValueError:
            continue
        put(where, bytes(sha256(data).digest()) + data)
    _CHANGED.clear()
