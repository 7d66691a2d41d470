"""A census's result kept by everything it rests on, given again while none of it changed.

A read-only command after an edit of pyproject.toml that touched no tier's roots, globs or markers (a version bound,
a linter's setting), or after a lockfile edit, runs in full; its census would work out again, from the same per-file
facts, the same result (~0.2 s on a project with 470 test files). The result of a census is a function of its inputs
(the tiers' names, roots, globs, the folders, patterns and import paths, the tiers reported) and of the files it
lists: so the last result is kept (in tierlock's cache folder, one file per project folder and inputs, ``marshal``
after the sha256 of its bytes: a file changed since is no result) under a digest of those inputs, of every file
listed (names) and of the identity of every Python file listed (size, modification time, the time its status
changed, inode: an edit that puts back size and time is still seen), of tierlock's own census code and of the
interpreter. A census whose digest is the kept one is given the kept result; anything else is worked out as before,
and kept.

A recorded run (:mod:`tierlock.keptrecord`) learns from the census what it took from each file: those tells are kept
with the result and told again, so the run's entry is the one a census worked out in full gives; a result kept by a
run that was not recorded has none, and a recorded run then works the census out. The tells (~90% of the file's
bytes on a project with 470 test files: what the census took from each file) follow the result in the file, known by
their own sha256 kept with it: a run that is not recorded, or one that can no longer be kept (it read a file modified
just now: :func:`tierlock.keptnote.keeping`), reads the result alone, neither hashing nor decoding them.
"""

from __future__ import annotations

import marshal
import os
import sys
from time import time_ns

from tierlock import keptnote
from tierlock.census.finding import Use
from tierlock.census.report import Census, TierReport
from tierlock.fasthash import sha256  # (no OpenSSL start-up: hashlib loads it)
from tierlock.probing.libcache import path_for, put

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence
    from typing import Any

#: Bump when what is kept changes shape or meaning.
SCHEMA = 6
#: The classes a kept result is made of (nothing else is built from the file).
_CLASSES: dict[str, type] = {"Census": Census, "TierReport": TierReport, "Use": Use}
#: The modules of the census's package (every one: a test holds the list to the folder).
MODULES = (
    "__init__", "astnames", "attribute", "cache", "engine", "factdigest", "filefacts", "finding", "firstparty",
    "fixing", "fixtures", "flagfacts", "hookmarks", "keptresult", "madecalls", "makers", "marks", "mentions",
    "moduleindex", "ondisk",
    "projectcensus",
    "records", "remedy", "report", "rerun", "summary", "tree", "visible", "walking",
)  # fmt: skip
#: What a census tells a recorded run that is kept with its result (a ``read`` is an open: none when kept).
_KEPT_TELLS = ("census", "survey")
#: How recent (ns) a file's change may be before a result is not kept by it: the value of
#: :data:`tierlock.keptrun.SETTLE_NS` (not imported: the kept answers' module loads the census after a change).
SETTLE_NS = 2_000_000_000
#: The types :func:`encoded` leaves containers as (what ``marshal`` gives back: a value of none of them holds no other).
_NESTED = frozenset({list, tuple, dict})
#: (kind, path, detail) of one tell (:func:`tierlock.keptnote.tell`).
Tell = tuple[str, str, object]


def digest_of(parts: list[Any]) -> bytes:
    """The digest of *parts* (plain data) with the schema, the interpreter and the identity of the census's own
    code (a changed module works every census out again)."""
    code = _own_code()
    # marshal's version 0: bytes by value alone (later versions mark shared and interned objects, so that a run that
    # holds another reference to a name - a recorded one - would dump the same inputs otherwise and miss its result)
    return bytes(sha256(marshal.dumps([SCHEMA, sys.version, code, *parts], 0)).digest())


def _own_code() -> list[tuple[str, tuple[int, ...]]]:
    """(file name, identity) of every module of the census's package (:data:`MODULES`), loaded or not: the modules
    a census loads only when it works its result out (the files' reader) count as much as those loaded before it
    looks for one. (Named, not listed: a folder listed would be one more thing a recorded run rests on.)"""
    folder = os.path.dirname(os.path.abspath(__file__))
    return [(name, _identity(os.path.join(folder, name + ".py"))) for name in MODULES]


def _identity(path: str) -> tuple[int, ...]:
    try:
        st = os.stat(path)
    except OSError as exc:
        return (-(exc.errno or 1),)
    return (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino)


class Kept:
    """The kept result of the censuses of the project folder *base* (one at a time)."""

    def __init__(self, base: str) -> None:
        self.base = base
        self.path = path_for([base], "census")
        self.settled = time_ns() - SETTLE_NS
        """A file modified since is too recent to keep a result by (a change within the file system's clock tick
        would not move its times), as for a kept answer (:data:`tierlock.keptrun.SETTLE_NS`)."""
        self.tells: list[Tell] | None = None
        """What the census being worked out told a recorded run (:meth:`listen`)."""

    def place(self, inputs: object) -> None:
        """Keep the result of the census of these *inputs* in a file of its own (``check`` and ``admit`` of one
        project ask for different tiers: their results do not take turns in one file)."""
        self.path = path_for([self.base, repr(inputs)], "census")

    def find(self, key: bytes) -> Census | None:
        """The kept result when it was kept under *key*, its tells told again to a run being recorded (None: no
        such result, or a run is recorded and the result was kept without its tells)."""
        if self.path is None:  # (caching is off)
            return None
        try:
            with open(self.path, "rb") as handle:
                top = handle.read(40)
                length = int.from_bytes(top[32:40], "little")
                if length > os.fstat(handle.fileno()).st_size:
                    return None  # (a length changed since it was written: never read past the file's end)
                head = handle.read(length)
                if bytes(sha256(head).digest()) != top[:32]:
                    return None  # (a byte changed since it was written: no result rather than another one)
                kept = marshal.loads(head)
                told = keptnote.keeping()  # (a run that may be kept is told them again; no other needs them)
                if kept["key"] != key or (told and kept["tells"] is None):
                    return None
                rest = handle.read() if told else b""  # (the tells: ~90% of the file, read only to be told)
            if told and bytes(sha256(rest).digest()) != kept["tells"]:
                return None
            result = decoded(kept["result"])
            kept_tells = marshal.loads(rest) if told else ()
            tells = [(kind, path, _told(kind, detail)) for kind, path, detail in kept_tells]
        except (OSError, ValueError, EOFError, TypeError, KeyError, IndexError, AttributeError):
            return None
        if not isinstance(result, Census):
            return None
        result.cache_entry, result.warnings = None, []
        for kind, path, detail in tells:
            keptnote.tell(kind, path, detail)
        return result

    def listen(self) -> None:
        """Note what the census about to be worked out tells a run being recorded (to keep with its result)."""
        if keptnote.recording():
            self.tells = []
            keptnote.listen(self._heard)

    def _heard(self, kind: str, path: str, detail: object) -> None:
        if self.tells is not None and kind in _KEPT_TELLS:
            self.tells.append((kind, path, detail))

    def stop(self) -> list[Tell] | None:
        """Stop noting (:meth:`listen`); what was told (None: no run was being recorded)."""
        tells, self.tells = self.tells, None
        if self._heard in keptnote._sinks:  # (the listener added by :meth:`listen`, and only it)
            keptnote._sinks.remove(self._heard)
        return tells

    def keep(
        self,
        key: bytes | None,
        result: Census,
        tells: list[Tell] | None,
        ids: Iterable[Sequence[int]],
    ) -> None:
        """Keep *result* under *key* with what it told a recorded run (*tells*), replacing what was kept; not when
        a file of *ids* (size, modification time, status change time, inode) was modified too recently
        (:attr:`settled`)."""
        if self.path is None or any(found[1] >= self.settled for found in ids):
            return
        fields = {k: v for k, v in vars(result).items() if k not in ("cache_entry", "warnings")}
        kept = packed(tells)
        told = b"" if kept is None else marshal.dumps(kept)
        digest = None if kept is None else bytes(sha256(told).digest())
        head = marshal.dumps({"key": key, "result": (..., "Census", encoded(fields)), "tells": digest})
        put(self.path, bytes(sha256(head).digest()) + len(head).to_bytes(8, "little") + head + told)


def _told(kind: str, detail: Any) -> Any:
    """A kept tell's detail as it is told again (a reading of the census's: :class:`~tierlock.keptnote.Packed`)."""
    if kind != "census" or detail is None:
        return detail
    name, words, digest, blob = detail
    if not (isinstance(name, str) and isinstance(digest, bytes) and isinstance(blob, bytes)):
        raise TypeError(kind)
    return keptnote.Packed(name, words, digest, blob)


def packed(tells: list[Tell] | None) -> list[Tell] | None:
    """*tells* as they are kept: what the census took from each file (a ``"census"`` tell's ``[name, words,
    facts]``) as ``[name, words, digest of the facts, its marshal bytes]``, told again as a
    :class:`~tierlock.keptnote.Packed` (a recorder keeps the digest and the bytes: the facts are not decoded)."""
    if tells is None:
        return None
    from tierlock.census.factdigest import facts_digest

    out: list[Tell] = []
    for kind, path, detail in tells:
        if kind == "census" and detail is not None:
            name, words, facts = keptnote.unpacked(detail)
            detail = [name, words, facts_digest(facts), marshal.dumps([name, words, facts])]
        out.append((kind, path, detail))
    return out


def encoded(value: Any) -> Any:
    """*value* (a census result) as ``marshal`` data: each object of :data:`_CLASSES` as ``(..., name, fields)``
    (``...``: no census value is the Ellipsis), a container of containers that holds no such object at any depth
    (the tests of every file) as ``(..., None, itself)`` (:func:`decoded` gives it as it was loaded, without looking
    into it), the rest as it is."""
    found, plain = _encoded(value)
    return (..., None, value) if plain and _deep(value) else found


def _deep(value: Any) -> bool:
    """Whether *value* is a container that holds a container (what :func:`decoded` would look into)."""
    inner = value.values() if isinstance(value, dict) else value if isinstance(value, (list, tuple)) else None
    return inner is not None and not _NESTED.isdisjoint(map(type, inner))


def _encoded(value: Any) -> tuple[Any, bool]:
    """(:func:`encoded` of *value*, whether it holds no object of :data:`_CLASSES`): a part that holds none is
    written as one when the container holding it holds one (the largest such parts)."""
    if isinstance(value, (list, tuple, dict)):
        items = list(value.values()) if isinstance(value, dict) else value
        parts = [_encoded(v) for v in items]
        if all(plain for _, plain in parts):
            return value, True
        done = [(..., None, v) if plain and _deep(v) else found for v, (found, plain) in zip(items, parts, strict=True)]
        return (dict(zip(value, done, strict=True)) if isinstance(value, dict) else type(value)(done)), False
    name = type(value).__name__
    if _CLASSES.get(name) is type(value):
        return (..., name, {k: encoded(v) for k, v in vars(value).items()}), False
    return value, True


def decoded(value: Any) -> Any:
    """The value :func:`encoded` made *value* of (``KeyError``: a class it does not make). A container that holds
    no container (a test's name and line, a finding's fields), or none of the objects (``(..., None, itself)``), is
    given as it was loaded, not copied."""
    if isinstance(value, tuple) and value[:1] == (...,):
        _, name, fields = value
        if name is None:
            return fields
        out: Any = object.__new__(_CLASSES[name])
        flat = _NESTED.isdisjoint(map(type, fields.values()))
        vars(out).update(fields if flat else {k: decoded(v) for k, v in fields.items()})
        return out
    if isinstance(value, (list, tuple)):
        return value if _NESTED.isdisjoint(map(type, value)) else type(value)(decoded(v) for v in value)
    if isinstance(value, dict):
        return value if _NESTED.isdisjoint(map(type, value.values())) else {k: decoded(v) for k, v in value.items()}
    return value
