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

import importlib
import os
import sys
from collections.abc import Iterable, Iterator, Mapping, Sequence
from importlib.machinery import ModuleSpec
from types import ModuleType

import pytest

from tierlock.importnames import import_names
from tierlock.pytest_plugin.attribution import from_skip_reason, raised


class FailedImports:
    """A meta path finder consulted last: it finds nothing, and notes each missing root's name about to fail."""

    def __init__(self, owners: Mapping[str, str]) -> None:
        self.owners = owners
        self.names: list[str] = []
        self.ever: list[str] = []
        """Every name whose import failed in this run (a module's ``try: import x`` flag at its import too)."""
        self.tops: dict[str, list[str]] = {}
        """File -> the names whose import failed in its top-level code (a conftest's ``HAS = find_spec(...)``)."""

    def find_spec(
        self, fullname: str, path: Sequence[str] | None = None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        self._note(fullname)
        return None

    def find_distributions(self, context: object = None) -> Iterator[object]:
        """Asked last by ``importlib.metadata`` (``version("x")``, ``distribution("x")``) when no other finder found
        the distribution: a lookup of a missing tier's distribution fails like an import of its root."""
        name = getattr(context, "name", None)
        if isinstance(name, str) and name:
            for root in (name, *import_names(name)):
                if root in self.owners or root.lower() in self.owners:
                    self._note(root if root in self.owners else root.lower())  # the root as the tier names it
                    break
        return iter(())

    def _note(self, fullname: str) -> None:
        root = fullname.partition(".")[0]
        if not (root in self.owners or root.lower() in self.owners):
            return
        if fullname not in self.names:
            self.names.append(fullname)
        if fullname not in self.ever:
            self.ever.append(fullname)
        top = _importing_top()  # (each file's own: a module imported first that failed the same name is not it)
        if top is not None and fullname not in self.tops.setdefault(top, []):
            self.tops[top].append(fullname)

    def failed_at_top_of(self, files: Iterable[str]) -> list[str]:
        """The roots whose import failed in the top-level code of one of *files* (and that are still not imported)."""
        return _roots(n for f in files for n in self.tops.get(f, ()))

    def take(self) -> list[str]:
        """The roots whose import failed since the last call, first failed first; the notes start afresh."""
        roots = _roots(self.names)
        self.names.clear()
        return roots

    def failed_ever(self) -> list[str]:
        """The roots whose import failed at some point of this run (and that no later finder found since)."""
        return _roots(self.ever)

    def install(self) -> None:
        if self not in sys.meta_path:
            sys.meta_path.append(self)

    def remove(self) -> None:
        while self in sys.meta_path:
            sys.meta_path.remove(self)


def _roots(names: Iterable[str]) -> list[str]:
    """The root of each name whose import failed and that no later finder found since (not in ``sys.modules``),
    once each, in the order failed."""
    return list(dict.fromkeys(n.partition(".")[0] for n in names if sys.modules.get(n) is None))


_IMPORTLIB = os.path.dirname(importlib.__file__ or "")
_PLUGGY = os.sep + "pluggy" + os.sep


def _importing_top() -> str | None:
    """The file whose top-level code, being run as it is imported, asked for the import (or the distribution
    lookup) now failing, directly or through what it called: ``HAS = _probe("x")`` (``_probe`` a function of its
    own or of a module it imports), a comprehension (``HAS = all(find_spec(n) for n in NAMES)``), on every Python:
    the nearest module-level code on the stack. None when a hook or a test asked (pytest calls them through pluggy:
    no module's import runs in between), and for the modules that import that file (a conftest importing a helper
    module that tried an optional package for its own use has not tried it)."""
    frame = sys._getframe(1)
    while frame is not None:
        code = frame.f_code
        name = code.co_filename
        if _PLUGGY in name:
            return None
        if code.co_name == "<module>" and not (name.startswith(("<frozen", _IMPORTLIB + os.sep)) or name == __file__):
            return name
        frame = frame.f_back  # type: ignore[assignment]
    return None


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


# -- the run's finder, kept in its config ------------------------------------------------------------------------
_KEY = pytest.StashKey[FailedImports]()


def start(config: pytest.Config, owners: Mapping[str, str]) -> None:
    """Put a finder for the roots of *owners* (the tiers not present) last on ``sys.meta_path`` for this run (once:
    from the earliest hook, before the initial conftests are imported, else when the run is configured)."""
    if _KEY not in config.stash:
        finder = config.stash[_KEY] = FailedImports(owners)
        finder.install()
        config.add_cleanup(finder.remove)  # also when the run stops before it is configured (failing closed)


def phase(config: pytest.Config) -> list[str]:
    """The missing roots whose import failed since the last call (a phase's: the report hooks call it after one)."""
    finder = config.stash.get(_KEY, None)
    return [] if finder is None else finder.take()


def ever(config: pytest.Config) -> list[str]:
    finder = config.stash.get(_KEY, None)
    return [] if finder is None else finder.failed_ever()


def where_raised(item: pytest.Item, exc: BaseException) -> list[str]:
    """The missing roots whose import failed at the top of a module (not the test's own) whose code raised *exc*:
    a conftest's ``HAS = find_spec(...)`` read by its own ``pytest_runtest_setup``, which skips.

    A doctest's own module counts (:func:`_doctested`): ``try: import x; HAS_X = True except ImportError: HAS_X =
    False`` at its top, its doctest skipped on the flag (by an example, a hook, a mark a hook added): no static
    reading sees why, as the census does for a test file's own flags."""
    finder = item.config.stash.get(_KEY, None)
    if finder is None:
        return []
    files, names, tb = [], set(), exc.__traceback__
    while tb is not None:
        files.append(tb.tb_frame.f_code.co_filename)
        names.add(tb.tb_frame.f_code.co_name)
        tb = tb.tb_next
    own = str(getattr(item, "path", ""))
    doctested = _doctested(item) and "_check_all_skipped" not in names  # (pytest's: every example marked +SKIP)
    return finder.failed_at_top_of([*(f for f in files if f != own), *([own] if doctested else [])])


def _doctested(item: pytest.Item) -> bool:
    """Whether *item* is a module's doctest (``--doctest-modules``; not a text file's: no module's top runs)."""
    return type(item).__name__ == "DoctestItem" and type(item.parent).__name__ == "DoctestModule"
