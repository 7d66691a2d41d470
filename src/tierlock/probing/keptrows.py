"""RECORD's rows as the facts kept on disk hold them (:mod:`tierlock.probing.distcache`): decoded when a probe
first looks into them, not by one that finds every file there with its size (it needs their number alone)."""

from __future__ import annotations

import marshal  # loaded by every interpreter at start-up: no import cost
import os
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

Row = tuple[str, str, "int | None", "str | None"]
"""(absolute path, RECORD path, size, hash) of one file RECORD lists."""


if TYPE_CHECKING:
    _Rows = Sequence[Row]
else:
    _Rows = object  # (a plain class at run time: an ABC and its registration cost every command at import)


class Rows(_Rows):
    """RECORD's rows as the facts kept on disk hold them: their sizes and hashes (``marshal`` bytes), each row's
    absolute path its site folder joined to its RECORD path (*rels*, kept with the facts) but for the few rows that
    leave the folder (kept as they are). Decoded when first looked into (``--deep``, a file missing, the installer's
    receipts), not by a probe that finds every file there with its size (it needs their number alone); rows that
    do not decode as one per RECORD path are read again from the folder (*again*), as facts of another shape are."""

    __slots__ = ("_again", "_blob", "_rels", "_rows", "_site")

    def __init__(self, blob: bytes, rels: list[str], site: str, again: Callable[[], Sequence[Row]]) -> None:
        self._blob = blob
        self._rels = rels
        self._site = site
        self._again = again
        self._rows: tuple[Row, ...] | None = None

    def rows(self) -> tuple[Row, ...]:
        """The rows, decoded (once)."""
        if self._rows is None:
            rows = None
            try:
                sizes, hashes, fulls = marshal.loads(self._blob)
                joined = [prefix(self._site) + rel for rel in self._rels]
                for i, full in fulls.items():
                    joined[i] = full
                rows = tuple(zip(joined, self._rels, sizes, hashes, strict=True))
            except (ValueError, EOFError, TypeError, IndexError, AttributeError):
                rows = tuple(self._again())
            self._rows, self._blob = rows, b""
        return self._rows

    @staticmethod
    def kept(rows: Sequence[Row], site: str) -> bytes:
        """*rows* as they are kept: (sizes, hashes, the absolute paths that are not the site folder's prefix and their
        RECORD path, by row), ``marshal`` bytes; rows not decoded since they were read back, as they were read."""
        if isinstance(rows, Rows) and rows._rows is None:
            return rows._blob
        joined = prefix(site)
        fulls = {i: full for i, (full, rel, _size, _hash) in enumerate(rows) if full != joined + rel}
        return marshal.dumps(([row[2] for row in rows], [row[3] for row in rows], fulls))

    def __len__(self) -> int:
        return len(self._rels) if self._rows is None else len(self._rows)

    def __getitem__(self, index: Any) -> Any:
        return self.rows()[index]

    def __iter__(self) -> Iterator[Row]:
        return iter(self.rows())

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (Rows, tuple)):
            return self.rows() == (other.rows() if isinstance(other, Rows) else other)
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self.rows())

    def __repr__(self) -> str:
        return repr(self.rows())


def prefix(site: str) -> str:
    """The site folder with its separator: what a RECORD path inside it is joined to (as :mod:`.rowfacts` joins it)."""
    return site if site.endswith(os.sep) else site + os.sep
