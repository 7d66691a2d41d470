"""The parts of a project's pyproject.toml that tierlock's answers rest on: the one reader of the read-only commands.

``check``, ``probe``, ``status`` and ``admit`` read pyproject.toml for the tier model (``[project]``'s name,
version, ``requires-python``, dependencies and extras, ``[dependency-groups]``, ``[tool.tierlock]``), the
census (``[tool.pytest.ini_options]``'s ``testpaths``, ``python_files``, ``pythonpath``;
``[tool.tierlock.census]``), the drift of a committed ``uv.lock`` (``[tool.uv]`` too), and the runtime
config's discovery (whether ``[tool.tierlock.runtime]`` is there). Each reads the file through :func:`read`,
which gives the parsed document with what none of them reads left out:

* every ``[tool.*]`` table but :data:`TOOLS` (a linter's settings, coverage, a build backend's own table);
* the keys of ``[project]`` in :data:`INERT` (the prose and links an index shows).

The code then cannot read a part the answer does not rest on. Everything else is kept, in the order the
file gives it (tiers are reported in the order they are declared): an unknown top-level table, ``[build-system]``,
any other key of ``[project]``.

A recorded run (:mod:`tierlock.keptrecord`) is told each read with the :func:`fingerprint` of the parts, and
:mod:`tierlock.fsutil` tells it which reader each hand-out of the file's bytes went to; when all went to this
reader and every open of the file was one of them, the kept entry notes that fingerprint besides the file's bytes, and a
later run whose pyproject.toml changed gives the kept answer when its parts (:func:`parts_of`) are the same
(:func:`tierlock.keptrun.holds`). A file opened by anything else stays kept by its bytes.
"""

from __future__ import annotations

import os
import tomllib
from stat import S_ISREG

from tierlock import keptnote
from tierlock.fasthash import sha256  # (no OpenSSL start-up: hashlib loads it)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

#: The ``[tool.*]`` tables tierlock reads: its own, pytest's (the census's test folders and patterns), uv's
#: (the sources, workspace, conflicts and index settings a committed uv.lock rests on).
TOOLS = frozenset({"tierlock", "pytest", "uv"})
#: The keys of ``[project]`` nothing of tierlock reads: what a package index shows about a project.
INERT = frozenset(
    {
        "description",
        "readme",
        "keywords",
        "classifiers",
        "authors",
        "maintainers",
        "license",
        "license-files",
        "urls",
    }
)


def parts(document: dict[str, Any]) -> dict[str, Any]:
    """*document* (a parsed pyproject.toml) without the tool tables other than :data:`TOOLS` and the keys of
    ``[project]`` in :data:`INERT`; every other key as it was, in its order."""
    out: dict[str, Any] = {}
    for key, value in document.items():
        if key == "tool" and isinstance(value, dict):
            value = {name: table for name, table in value.items() if _read(name, table, document)}
        elif key == "project" and isinstance(value, dict):
            value = {name: item for name, item in value.items() if name not in INERT}
        out[key] = value
    return out


def _read(name: str, table: object, document: dict[str, Any]) -> bool:
    """Whether ``[tool.NAME]`` is a part: tierlock's, pytest's and uv's; Poetry's dependency tables in a document
    without ``[project]`` (the tier model refuses such a project: :mod:`tierlock.tiers.elsewhere`)."""
    if name in TOOLS:
        return True
    return name == "poetry" and "project" not in document and isinstance(table, dict)


def read(path: str | os.PathLike[str]) -> dict[str, Any]:
    """The :func:`parts` of the pyproject.toml at *path*, read by :func:`tierlock.fsutil.read_bytes` (a FIFO or a
    folder refused, a command's readings served by one open) and parsed by :mod:`tomllib` (a byte-order mark
    dropped); raises as ``tomllib.loads(fsutil.read_text(path))`` does. A recorded run is told, for each reading,
    that the bytes went to this reader (by :mod:`tierlock.fsutil`) and the fingerprint of the parts."""
    from tierlock import fsutil  # (loaded by every command already; the kept path's :func:`parts_of` needs only os)

    name = os.fspath(path)
    data = fsutil.read_bytes(name, reader="parts")
    kept = _parsed(data)
    if keptnote.recording():
        keptnote.tell("parts", name, kept[1])
    copied: dict[str, Any] = _copy(kept[0])
    return copied


#: The parts of each pyproject.toml a command read, with their fingerprint, by the file's exact bytes: a command
#: reads the file for the tier model, the census (twice each for its two tables), the runtime config's discovery
#: and a committed uv.lock's drift, and parses it once; the kept answer's check of its parts (:func:`parts_of`)
#: parses it for them when it found the answer refused. Each reading gets its own copy (:func:`_copy`).
_PARSED: dict[bytes, tuple[dict[str, Any], bytes]] = {}
_KEPT = 8


def _parsed(data: bytes) -> tuple[dict[str, Any], bytes]:
    """(the parts of the pyproject.toml of these bytes, their fingerprint), parsed once per process (``ValueError``:
    not UTF-8 or not TOML)."""
    kept = _PARSED.get(data)
    if kept is None:
        body = data[3:] if data[:3] == b"\xef\xbb\xbf" else data  # as "utf-8-sig" decodes (its module unloaded)
        document = parts(tomllib.loads(body.decode("utf-8")))
        kept = (document, fingerprint(document))
        if len(_PARSED) >= _KEPT:
            _PARSED.clear()
        _PARSED[data] = kept
    return kept


def _copy(value: Any) -> Any:
    """*value* (TOML data) with every table and array copied: a reader may change what it was given. Strings,
    numbers, booleans, dates and times are immutable and shared."""
    if isinstance(value, dict):
        return {key: _copy(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_copy(item) for item in value]
    return value


def fingerprint(document: dict[str, Any]) -> bytes:
    """A digest of *document* (parts as :func:`parts` gives them), equal for two exactly when they hold the same
    keys and values in the same order: the sha256 of its ``repr``, which tells a table from an array of pairs,
    ``1`` from ``1.0`` and ``true``, and a string from anything else (TOML gives only those types, dates and
    times, whose ``repr`` is as exact)."""
    return bytes(sha256(repr(document).encode("utf-8", "surrogatepass")).digest())


#: The most a command reads of one file (:data:`tierlock.fsutil.MAX_BYTES`, not imported: see :func:`parts_of`).
MAX_BYTES = 64 * 1024 * 1024
#: Opened without waiting for a writer (a FIFO in the file's place), where the platform has the flag.
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)


def parts_of(path: str) -> bytes | None:
    """The :func:`fingerprint` of the parts of the file at *path* now, or None when a command could not read it
    as :func:`read` does (not a regular file, over :data:`MAX_BYTES`, not UTF-8, not TOML: it would stop with
    an error). Read with :mod:`os` alone (a kept answer's check: no ``pathlib``, no error classes)."""
    try:
        with open(os.open(path, os.O_RDONLY | _NONBLOCK), "rb") as handle:
            if not S_ISREG(os.fstat(handle.fileno()).st_mode):
                return None
            data = handle.read(MAX_BYTES + 1)
        if len(data) > MAX_BYTES:
            return None
        return _parsed(data)[1]
    except (OSError, ValueError, RecursionError):  # TOMLDecodeError and UnicodeDecodeError are ValueErrors
        return None
