"""The library verdicts of earlier probes, kept on disk so that a new process need not read every extension again.

A verdict is kept only when every library was found; it names the identity (size, mtime, inode, ctime) of
the extension and of every library it was found to rely on, and the search environment
(``LD_LIBRARY_PATH``, the loader cache's identity). A later probe stats those files and reuses the
verdict only when none changed; anything else is looked up again. A probe with ``--deep`` ignores
what is kept.

One file per set of site folders, in ``$TIERLOCK_CACHE_DIR`` (an empty value: no cache), else the
user's cache folder (``$XDG_CACHE_HOME/tierlock``, ``~/.cache/tierlock``; ``~/Library/Caches/tierlock``
on macOS; ``%LOCALAPPDATA%\\tierlock`` on Windows), in :mod:`marshal`'s format (read with no import,
in well under a millisecond), with the Python version that wrote it in its key. It is written once, when
the process ends, and only when something new was learnt; a cache that cannot be read or written is no
cache.
"""

from __future__ import annotations

import marshal  # loaded by every interpreter at start-up (it reads the byte code): no import cost
import os
import sys

from tierlock.keptfirst import folder  # (the cache folder: a kept lock finds it before this module loads)

TYPE_CHECKING = False
if TYPE_CHECKING:  # (``collections.abc`` loads ``collections``: every kept answer imports this module first)
    from collections.abc import Mapping, Sequence
    from typing import Any

SCHEMA = 3

Identity = tuple[int, int, int, int]
Kept = tuple[Identity, tuple[tuple[str, Identity], ...]]
"""An extension's identity and every library it relies on, with theirs."""


def path_for(sites: Sequence[str], kind: str = "libraries") -> str | None:
    """The cache file of the site folders *sites* (None: caching is off); *kind* begins its name."""
    where = folder()
    if where is None:
        return None
    return named(where, kind, "\0".join(sites))


def named(where: str, kind: str, key: str) -> str:
    """The cache file of *kind* for *key* in the folder *where*: 16 hex digits of the key's sha256 (a name for
    the file, not a digest to trust: each file names what it is for again). C's own sha256, which a read-only
    command has loaded already (:mod:`zlib`'s checksums cost an extension module more)."""
    from tierlock.fasthash import sha256

    digest = sha256(key.encode("utf-8", "surrogateescape")).hexdigest()
    return os.path.join(where, f"{kind}-{digest[:16]}.marshal")


#: The files read by this process: path -> (their identity then, the environment key, what they held).
_READ: dict[str, tuple[tuple[int, ...], list[object], dict[str, Kept]]] = {}


def load(path: str | None, environment: list[object]) -> dict[str, Kept]:
    """The verdicts kept in *path* for *environment* (empty when there are none or they cannot be read).

    A file read before by this process and unchanged since (size, times, inode) is not parsed
    again: each probe round (each ``Prober``) asks, and a long-lived process makes many.
    """
    if path is None:
        return {}
    try:
        with open(path, "rb") as fh:
            st = os.fstat(fh.fileno())
            stamp = (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_dev)
            seen = _READ.get(path)
            if seen is not None and seen[0] == stamp and seen[1] == _key(environment):
                return dict(seen[2])
            data = marshal.loads(fh.read())
        if data["schema"] != SCHEMA or data["environment"] != _key(environment):
            return {}
        libraries = data["libraries"]
        found = {
            artifact: (_identity(entry[0]), tuple((libraries[i], _identity(rest)) for i, *rest in entry[1]))
            for artifact, entry in data["verdicts"].items()
        }
    except (OSError, ValueError, EOFError, KeyError, TypeError, IndexError):
        return {}
    _READ[path] = (stamp, _key(environment), found)
    return dict(found)


def _key(environment: list[object]) -> list[object]:
    """The environment as it is kept: with the running Python's version (``marshal``'s format may change)."""
    return [*environment, list(sys.version_info[:2])]


def _identity(values: Sequence[object]) -> Identity:
    size, mtime, inode, ctime = values
    if not (isinstance(size, int) and isinstance(mtime, int) and isinstance(inode, int) and isinstance(ctime, int)):
        raise TypeError("an identity is four integers")
    return (size, mtime, inode, ctime)


def dump(path: str, document: dict[str, Any]) -> None:
    """Write *document* (``marshal``) to *path* atomically: a temporary file beside it, then a rename.

    Every cache file of tierlock's cache folder is written so; one that cannot be written is no cache
    (nothing is raised, no temporary file is left).
    """
    try:
        data = marshal.dumps(document)
    except ValueError:  # a value marshal cannot write: no cache
        return
    put(path, data)


def put(path: str, data: bytes) -> None:
    """Write *data* to *path* atomically, as :func:`dump` does (nothing raised, no temporary file left)."""
    temporary = f"{path}.{os.getpid()}.tmp"
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(temporary, "wb") as fh:
            fh.write(data)
        os.replace(temporary, path)
    except OSError:
        from contextlib import suppress  # only when a write failed: the kept answers' path imports this module

        with suppress(OSError):
            os.unlink(temporary)


def save(path: str | None, environment: list[object], verdicts: Mapping[str, Kept]) -> None:
    """Write *verdicts* to *path* (atomically; nothing happens when it cannot be written)."""
    if path is None:
        return
    libraries: dict[str, int] = {}
    document = {
        "schema": SCHEMA,
        "environment": _key(environment),
        "verdicts": {
            artifact: [list(identity), [[libraries.setdefault(lib, len(libraries)), *was] for lib, was in relied]]
            for artifact, (identity, relied) in verdicts.items()
        },
    }
    document["libraries"] = list(libraries)
    dump(path, document)
