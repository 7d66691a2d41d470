"""The imports of a missing tier's roots that failed while the run went: evidence for a skip that names no root.

A project's own requirement system tries ``import greenlet`` in a predicate, swallows the ``ImportError`` and skips
with a reason of its own (SQLAlchemy: ``'Test' unsupported on any DB implementation ... custom function``); a fixture
asks ``importlib.util.find_spec(name)`` for a backend named by its parameter and skips with ``backend
unavailable``. No exception survives and no word of the reason names the root, so :mod:`.attribution` sees nothing.

:class:`FailedImports` is a finder put **last** on ``sys.meta_path``: Python asks it only after every other finder
found nothing, that is when an import (or a ``find_spec``) of that name is about to fail. It finds nothing itself and
notes the names whose root a tier that is not present owns. The backstop takes the notes of each phase (a test's
setup, call or teardown, a collector's collection): a skip of that phase whose reason names no root is attributed to
the tier of a root whose import failed in it. A name a later finder did find (it is in ``sys.modules`` by then) is
not a failure.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from importlib.machinery import ModuleSpec
from types import ModuleType
from typing import Any


class FailedImports:
    """A meta path finder consulted last: it finds nothing, and notes each missing root's name about to fail."""

    def __init__(self, owners: Mapping[str, str]) -> None:
        self.owners = owners
        self.names: list[str] = []

    def find_spec(
        self, fullname: str, path: Sequence[str] | None = None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        root = fullname.partition(".")[0]
        if (root in self.owners or root.lower() in self.owners) and fullname not in self.names:
            self.names.append(fullname)
        return None

    def take(self) -> list[str]:
        """The roots whose import failed since the last call, first failed first; the notes start afresh."""
        roots = [n.partition(".")[0] for n in self.names if sys.modules.get(n) is None]
        self.names.clear()
        return list(dict.fromkeys(roots))

    def install(self) -> None:
        if self not in sys.meta_path:
            sys.meta_path.append(self)

    def remove(self) -> None:
        while self in sys.meta_path:
            sys.meta_path.remove(self)


def taken(finder: Any) -> list[str]:
    """:meth:`FailedImports.take` of *finder*, or nothing when the run has none."""
    return finder.take() if isinstance(finder, FailedImports) else []
