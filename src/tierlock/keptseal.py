"""A kept answer's entry on disk, sealed, in two parts: what is compared first, and the look-ups read only after it.

An entry (:mod:`tierlock.keptrun`) is refused at the first thing it rests on that changed, and the files the run
read (pyproject.toml, the lockfiles: a few) are compared first; the look-ups (a stat of every file of the locked
closure: ~8,300 on a project of 13 tiers, ~80% of the entry's bytes), the folders (and those of ``sys.path``
searched for the modules it ran), the census's files and the answer itself only when those hold. So the entry is
written as two parts (:func:`seal`): a head (the command line, the environment variables, the files read, the exit
code) sealed by its sha256, then the rest, whose own sha256 the head holds. :func:`load` reads, checks and decodes
the head alone; the rest is read, checked and decoded when one of its tables is first asked for (:class:`Entry`):
the first run after an edit of a file read (a dependency bound lowered in pyproject.toml) pays for a few kilobytes
instead of a megabyte. A rest whose bytes changed since (a disk error, another entry's rest) is no rest: asking for
one of its tables raises ``KeyError``, and :func:`tierlock.keptrun.holds` takes that as an entry that does not hold.
A head whose length field is beyond the file's end is no entry.
"""

from __future__ import annotations

import marshal  # loaded by every interpreter at start-up: no import cost
from os import fstat

from tierlock.fasthash import sha256  # (no OpenSSL start-up: hashlib loads it)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

#: What an entry sealed whole began with (read still; written no more).
SEAL = b"tierlock-kept-1\n"
#: What an entry sealed in two parts begins with, before the head's sha256 and length.
SEAL2 = b"tierlock-kept-2\n"
#: The tables kept after the head: read, checked and decoded only when one is asked for.
TAIL = ("stats", "lstats", "lists", "scans", "summaries", "out", "shadows")
_HEAD = len(SEAL2) + 32 + 8
"""Bytes before the head: the seal, the head's sha256, its length."""


class Entry(dict):  # type: ignore[type-arg]
    """A kept entry as :func:`load` gives it: its head, and the tables of :data:`TAIL` read from the file when one
    is first asked for (by ``entry[name]`` or ``entry.get(name)``); a rest that does not hold its seal is none of
    them (``KeyError``; ``get`` gives its default)."""

    def __init__(self, head: dict[str, Any], path: str, offset: int, digest: bytes) -> None:
        super().__init__(head)
        self.rest: tuple[str, int, bytes] | None = (path, offset, digest)
        """Where the rest is (file, offset) and its sha256; None once read (or found not to hold)."""

    def __missing__(self, key: str) -> Any:
        if key in TAIL and self.rest is not None:
            self.load_rest()
            if key in self:
                return dict.__getitem__(self, key)
        raise KeyError(key)

    def get(self, key: str, default: Any = None) -> Any:
        if key in TAIL and self.rest is not None:
            self.load_rest()
        return dict.get(self, key, default)

    def load_rest(self) -> bool:
        """Read the rest into the entry (once): whether it held its seal (else the entry has no tables of it)."""
        if self.rest is None:
            return all(key in self for key in TAIL)
        path, offset, digest = self.rest
        self.rest = None
        try:
            with open(path, "rb") as fh:
                fh.seek(offset)
                data = fh.read()
            if bytes(sha256(data).digest()) != digest:
                return False
            rest = marshal.loads(data)  # (bytes this module wrote: their sha256 held)
        except OSError:
            return False
        if not isinstance(rest, dict) or set(rest) != set(TAIL):
            return False
        self.update(rest)
        return True


def seal(path: str, entry: dict[str, Any]) -> None:
    """Write *entry* to *path* atomically, sealed in two parts: :data:`SEAL2`, the sha256 of the head's ``marshal``
    bytes and their length, the head (everything but :data:`TAIL`, with the sha256 of the rest), the rest. An entry
    whose bytes changed since (a disk error, a hand edit, a half-written copy) is then no entry (its head), or has
    no look-ups (its rest: it does not hold)."""
    if isinstance(entry, Entry) and not entry.load_rest():
        return  # (an entry given whose rest did not hold: nothing to write again)
    try:
        rest = marshal.dumps({key: entry[key] for key in TAIL})
        head = marshal.dumps({key: value for key, value in entry.items() if key not in TAIL} | {"rest": _sha(rest)})
    except (ValueError, KeyError):  # a value marshal cannot write, or not an answer's entry: no entry
        return
    from tierlock.probing.libcache import put  # (only to write: a kept answer given reads, and loads no probing)

    put(path, SEAL2 + _sha(head) + len(head).to_bytes(8, "little") + head + rest)


def _sha(data: bytes) -> bytes:
    return bytes(sha256(data).digest())


def load(path: str, *, sealed: bool = False) -> dict[str, Any] | None:
    """The entry kept at *path*: a sealed one (:func:`seal`) only when its head's sha256 holds (its rest is read
    when first asked for: :class:`Entry`); else (not *sealed*: a lock's or an arming's) plain ``marshal``. None
    when there is none, or it does not load."""
    try:
        with open(path, "rb") as fh:
            top = fh.read(_HEAD)
            if top.startswith(SEAL2):
                length = int.from_bytes(top[len(SEAL2) + 32 :], "little")
                if length > fstat(fh.fileno()).st_size - _HEAD:  # (a length not written: never read, nor allocated)
                    return None
                data = fh.read(length)
                if len(data) != length or _sha(data) != top[len(SEAL2) : len(SEAL2) + 32]:
                    return None
                head = marshal.loads(data)
                rest = head.pop("rest", None) if isinstance(head, dict) else None
                return Entry(head, path, _HEAD + length, rest) if isinstance(rest, bytes) else None
            data = top + fh.read()
        if data.startswith(SEAL):
            start = len(SEAL) + 32
            if _sha(data[start:]) != data[len(SEAL) : start]:
                return None
            data = data[start:]
        elif sealed:
            return None
        loaded = marshal.loads(data)
    except (OSError, ValueError, EOFError, TypeError):
        return None
    return loaded if isinstance(loaded, dict) else None
