"""Which installed files are compiled code, by name alone: extension modules and shared libraries (``.so``,
``.so.1.2``, ``.pyd``, ``.dll``, ``.dylib``), on any target. Imports nothing: the no-op fast path of ``install-tier``
asks it too (:mod:`tierlock.installer.fastpath`), as does the probe (:mod:`tierlock.probing.compiled`)."""

from __future__ import annotations

_OTHER_LIBS = (".pyd", ".dll", ".dylib")


def _so_named(path: str) -> bool:
    """Whether *path* matches ``\\.so(\\.[0-9]+)*$`` (a shared library's name, ``.so`` or ``.so.1.2``), told without
    compiling the pattern: ``$`` also holds before a last newline."""
    return _so_at_end(path) or (path.endswith("\n") and _so_at_end(path[:-1]))


def _so_at_end(path: str) -> bool:
    parts = path.split(".")
    at = len(parts) - 1
    while at > 0 and parts[at].isascii() and parts[at].isdigit():
        at -= 1
    return at > 0 and parts[at] == "so"


def is_compiled(path: str) -> bool:
    """Whether *path* names a compiled artifact (extension module or shared library)."""
    return path.endswith(_OTHER_LIBS) or _so_named(path)
