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

from tierlock.pytest_plugin.attribution import from_skip_reason, raised


class FailedImports:
    """A meta path finder consulted last: it finds nothing, and notes each missing root's name about to fail."""

    def __init__(self, owners: Mapping[str, str]) -> None:
        self.owners = owners
        self.names: list[str] = []
        self.ever: list[str] = []
        """Every name whose import failed in this run (a module's ``try: import x`` flag at its import too)."""

    def find_spec(
        self, fullname: str, path: Sequence[str] | None = None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        root = fullname.partition(".")[0]
        if (root in self.owners or root.lower() in self.owners) and fullname not in self.names:
            self.names.append(fullname)
            if fullname not in self.ever:
                self.ever.append(fullname)
        return None

    def take(self) -> list[str]:
        """The roots whose import failed since the last call, first failed first; the notes start afresh."""
        roots = [n.partition(".")[0] for n in self.names if sys.modules.get(n) is None]
        self.names.clear()
        return list(dict.fromkeys(roots))

    def failed_ever(self) -> list[str]:
        """The roots whose import failed at some point of this run (and that no later finder found since)."""
        return list(dict.fromkeys(n.partition(".")[0] for n in self.ever if sys.modules.get(n) is None))

    def install(self) -> None:
        if self not in sys.meta_path:
            sys.meta_path.append(self)

    def remove(self) -> None:
        while self in sys.meta_path:
            sys.meta_path.remove(self)


def named_after_failure(
    exc: BaseException, owners: Mapping[str, str], words: Mapping[str, str], failed: Sequence[str]
) -> tuple[str, str] | None:
    """(tier, root) when *exc* (or what it carries: its chain, a doctest example's exception) is an error raised by
    the code, not an assertion, whose message names a root of a missing tier as a whole word, and an import of a
    root of that same tier failed in this run (*failed*): PyJWT's ``NotImplementedError("Algorithm 'RS256' could
    not be found. Do you have cryptography installed?")``, raised because its ``try: import cryptography`` failed.
    """
    tiers = {owners.get(r) or owners.get(r.lower()) for r in failed} - {None}
    for error in raised(exc):
        if isinstance(error, AssertionError) or type(error).__name__ in _WRAPPERS:
            continue
        hit = from_skip_reason(str(error), owners, words)
        if hit is not None and hit[0] in tiers:
            return hit
    return None


def shown(exc: BaseException) -> BaseException:
    """What to name of *exc*: the first error it carries that is not only a doctest's wrapper."""
    return next((e for e in raised(exc) if type(e).__name__ not in _WRAPPERS), exc)


#: The exceptions that only carry another (a doctest example's): their own text is a report, not the error.
_WRAPPERS = frozenset({"UnexpectedException", "MultipleDoctestFailures", "DocTestFailure", "ConftestImportFailure"})
