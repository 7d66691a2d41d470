"""Whether a stretch of a source can name a word: the test a reader of :mod:`.filefacts` asks before it walks.

Each reader of a file looks for names (``importorskip``, ``find_spec``, a helper of the file, ``skip``): a
name in the tree is an identifier or an attribute written in the text, so a stretch of lines that holds none of
the reader's words as a substring gives the reader nothing, and its walk is left out. Two things keep the test
exactly as strict as the reader:

* the parser folds a non-ASCII identifier to its NFKC form (``ﬁnd_spec`` is ``find_spec``): a stretch that is not
  all ASCII is never ruled out, whatever its text (nor a whole source that is not);
* lines are counted as the parser counts them (``\\r\\n``, ``\\r`` and ``\\n`` end a line; a form feed does not),
  and a stretch runs from the first line of a node to its last.
"""

from __future__ import annotations

TYPE_CHECKING = False  # not typing's: a kept answer re-reading a test file loads this module (nor re, nor typing)
if TYPE_CHECKING:
    from collections.abc import Iterable
    from collections.abc import Set as AbstractSet
    from typing import Any

_DIGITS = "0123456789"
#: Every ASCII character that is not a letter, a digit or ``_`` turned into a space: the names are then the words.
_APART = {c: " " for c in range(128) if not (chr(c).isalnum() or chr(c) == "_")}


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
        """Whether lines *first* to *last* (counted from 1, both included) can name one of *words* (in a longer
        name too: ``skip`` in ``skipTest``)."""
        text = self._text(first, last)
        return not text.isascii() or any(w in text for w in words)

    def names(self, first: int, last: int | None, names: AbstractSet[str]) -> bool:
        """Whether lines *first* to *last* can hold one of *names* as a whole name (an identifier of ASCII text is
        a run of letters, digits and ``_``; one the tokenizer parts from a number before it, ``1if``, too)."""
        text = self._text(first, last)
        if not text.isascii():
            return True
        words = text.translate(_APART).split()
        return not names.isdisjoint(words) or not names.isdisjoint(w.lstrip(_DIGITS) for w in words if w[0] in _DIGITS)

    def _text(self, first: int, last: int | None) -> str:
        if self._lines is None:
            self._lines = self.source.replace("\r\n", "\n").replace("\r", "\n").split("\n")
        stop = first if last is None else last
        return self._lines[first - 1] if stop == first else "\n".join(self._lines[first - 1 : stop])


def first_line(node: Any) -> int:
    """The first line of a statement's text (an :mod:`ast` node): its first decorator's, for a decorated function
    or class."""
    decorators = getattr(node, "decorator_list", None)
    return min([node.lineno, *(d.lineno for d in decorators)]) if decorators else int(node.lineno)
