"""Whether two markers overlap, kept across commands by the two markers' texts.

:func:`tierlock.lockfiles.markers.overlap` is a pure function of the two markers' texts (and of the code that
answers it): the sibling check of every read-only command asks the same questions again (narwhals' 13 tiers: 15
distinct pairs, ~4 ms of grids each command). The answers are kept in tierlock's cache folder, one file, as
``marshal`` data sealed by the sha256 of its bytes (a byte changed since it was written and it holds no answer),
under a key like the kept lockfile parses' (:func:`key`: this tierlock's version and the identity of every
module of the lockfile readers, :mod:`~tierlock.lockfiles.markers` among them, :mod:`tierlock.lockfiles.readercode`;
packaging's version and the interpreter). An answer is given back only for the same two texts in the same order;
anything else is worked out. The file is read at most once per process, and written when the command ends (by
:func:`tierlock.lockfiles.keptparse.save_all`: the sibling check asks after the lockfiles were read; the
interpreter's exit otherwise) when an answer was added.
"""

from __future__ import annotations

import atexit  # (built in: no import cost)
import marshal
import sys

from packaging import __version__ as packaging_version

from tierlock._version import __version__
from tierlock.fasthash import sha256  # (no OpenSSL start-up: hashlib loads it)
from tierlock.lockfiles.readercode import code
from tierlock.probing.libcache import path_for, put

SCHEMA = 1
#: The most answers the file keeps (more: started afresh).
KEPT = 4096
#: The answers read (and added) by this process, once read: the two texts -> whether they overlap.
_ANSWERS: list[dict[tuple[str, str], bool]] = []
#: Whether an answer was added since the file was read or written.
_CHANGED: list[bool] = []


def key() -> tuple[object, ...]:
    """What the answers are kept under: this tierlock (its version and the lockfile readers' code), packaging (whose
    evaluation of a marker answers) and the interpreter."""
    return (SCHEMA, __version__, packaging_version, sys.implementation.cache_tag, code())


def _place() -> str | None:
    return path_for(["markers"], "overlaps")


def _answers() -> dict[tuple[str, str], bool]:
    """The kept answers (read from the cache file the first time: empty when there is none, it is damaged or it
    was kept by another tierlock, packaging or interpreter)."""
    if _ANSWERS:
        return _ANSWERS[0]
    found: dict[tuple[str, str], bool] = {}
    _ANSWERS.append(found)
    where = _place()
    if where is None:
        return found
    try:
        with open(where, "rb") as handle:
            data = handle.read()
        if bytes(sha256(data[32:]).digest()) != data[:32]:
            return found
        kept = marshal.loads(data[32:])
        if kept["key"] == key():
            found.update(
                ((first, second), answer)
                for (first, second), answer in kept["answers"].items()
                if isinstance(first, str) and isinstance(second, str) and isinstance(answer, bool)
            )
    except (OSError, ValueError, EOFError, TypeError, KeyError, AttributeError):
        found.clear()
    return found


def known(texts: tuple[str, str]) -> bool | None:
    """The answer kept for the markers of these *texts* (in this order), or None."""
    return _answers().get(texts)


def learnt(texts: tuple[str, str], answer: bool) -> None:
    """Keep *answer* for the markers of *texts* (written when the command ends)."""
    found = _answers()
    if found.get(texts) is answer:
        return
    if len(found) >= KEPT:
        found.clear()
    found[texts] = answer
    if not _CHANGED:  # (the interpreter's exit, when no command's end wrote them)
        atexit.register(save)
    _CHANGED[:] = [True]


def save() -> None:
    """Write the answers when one was added (atomically, sealed by the sha256 of its bytes; nothing when caching
    is off or the file cannot be written)."""
    if not _CHANGED or not _CHANGED[0] or not _ANSWERS:
        return
    _CHANGED[:] = [False]
    where = _place()
    if where is None:
        return
    data = marshal.dumps({"key": key(), "answers": _ANSWERS[0]})
    put(where, bytes(sha256(data).digest()) + data)


def forget() -> None:
    """Read the file again at the next question (what a new process does)."""
    _ANSWERS.clear()
    _CHANGED.clear()
