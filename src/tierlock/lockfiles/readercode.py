"""The identity of the lockfile readers' code: what a parse or an answer kept by an earlier command rests on.

:mod:`tierlock.lockfiles.keptparse` keeps lockfile parses and :mod:`tierlock.lockfiles.overlapkept` the markers'
overlaps under it: a parser or marker module changed in place (a development checkout) is other code, and what the
old code worked out is not given to it. Only ``os`` is imported (both are read by every read-only command).
"""

from __future__ import annotations

import os

#: The folder of the lockfile readers' code (the parser, the model, the digests, the markers, the kept forms).
_HERE = os.path.dirname(os.path.abspath(__file__))
CODE: list[tuple[tuple[str, int, int], ...]] = []
"""What :func:`code` found, once per process."""


def code() -> tuple[tuple[str, int, int], ...]:
    """Each Python file of :data:`_HERE` by its name, size and modification time (looked at once per process)."""
    if not CODE:
        found = []
        try:
            for name in sorted(os.listdir(_HERE)):
                if name.endswith(".py"):
                    info = os.stat(os.path.join(_HERE, name))
                    found.append((name, info.st_size, info.st_mtime_ns))
        except OSError:  # (code that cannot be looked at: this process's parses match no other's)
            found = [("", os.getpid(), -1)]
        CODE.append(tuple(found))
    return CODE[0]
