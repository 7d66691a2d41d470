"""Whether a stretch of a source can name a word: the test a reader of :mod:`.filefacts` asks before it walks.

Each reader of a file looks for names (``importorskip``, ``find_spec``, a helper of the file, ``skip``): a
name in the tree is an identifier or an attribute written in the text, so a stretch of lines that holds none of
the reader's words as a substring gives the reader nothing, and its walk is left out. Two things keep the test
exactly as strict as the reader:

* the parser folds a non-ASCII identifier to its NFKC form (``ﬁnd_spec`` is ``find_spec``): a source that is not
  all ASCII is never ruled out, whatever its text;
* lines are counted as the parser counts them (``\\r\\n``, ``\\r`` and ``\\n`` end a line; a form feed does not),
  and a stretch runs from the first line of a node to its last.
"""

from __future__ import annotations

from collections.abc import Iterable


class Mentions:
    """The lines of one source, asked whether a stretch of them (or the whole) can name one of some words."""

    __slots__ = ("_lines", "ascii", "source")

    def __init__(self, source: str) -> None:
        self.source = source
        self.ascii = source.isascii()
        self._lines: list[str] | None = None

    def any(self, words: Iterable[str]) -> bool:
        """Whether the whole source can name one of *words*."""
        return not self.ascii or any(w in self.source for w in words)

    def lines(self, first: int, last: int | None, words: Iterable[str]) -> bool:
        """Whether lines *first* to *last* (counted from 1, both included) can name one of *words*."""
        if not self.ascii:
            return True
        if self._lines is None:
            self._lines = self.source.replace("\r\n", "\n").replace("\r", "\n").split("\n")
        stop = first if last is None else last
        text = self._lines[first - 1] if stop == first else "\n".join(self._lines[first - 1 : stop])
        return any(w in text for w in words)
