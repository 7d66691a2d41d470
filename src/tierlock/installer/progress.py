"""What the installer says while it works, and to whom: the one interface its core talks to.

The installer's core (:mod:`~tierlock.installer.run`, :mod:`~tierlock.installer.removal` and their
parts) never writes to a terminal itself: it reports through a :class:`Progress`. The command line
passes its :class:`tierlock.output.UI` (a spinner on a terminal, plain lines in CI, nothing in
``--json``); a library caller passes its own object of this shape, or :class:`Silent`.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from typing import Protocol


class Progress(Protocol):
    """Where the installer's progress goes."""

    @property
    def quiet(self) -> bool:
        """Nothing but errors is wanted."""
        ...

    @property
    def fancy(self) -> bool:
        """A person watches a terminal: every package that changes may be shown."""
        ...

    def line(self, text: str) -> None:
        """A line of the command's own result."""

    def note(self, text: str) -> None:
        """A line about the work (progress, waiting, a warning)."""

    def detail(self, text: str) -> None:
        """A line shown only when asked for more (``-v``)."""

    def status(self, text: str) -> AbstractContextManager[None]:
        """*text* shown while a long step runs."""
        ...


class Silent:
    """Progress nobody reads: a library call that wants only the result."""

    quiet = True
    fancy = False

    def line(self, text: str) -> None:
        del text

    def note(self, text: str) -> None:
        del text

    def detail(self, text: str) -> None:
        del text

    @contextmanager
    def status(self, text: str) -> Iterator[None]:
        del text
        yield
