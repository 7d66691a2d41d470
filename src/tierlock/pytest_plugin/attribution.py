"""Which missing tier a skip or an error points to: the evidence the run-time backstop reads.

Three kinds of evidence, from the strongest:

* an ``ImportError`` (``ModuleNotFoundError`` included) anywhere in the
  exception's chain (``__cause__``, ``__context__``, pytest's conftest
  wrapper, what a doctest example raised) whose module name, message or raising frame is inside an import
  root of a tier that is not present;
* ``pytest.importorskip`` of such a root, the name computed at run time or
  not (its reason reads ``could not import 'root...'``);
* a skip reason naming such a root as a whole word: its import name or its
  distribution name (``Requires cryptography library installed``).

Only the roots of tiers that are not present are looked for, so a green run
attributes nothing; a word must stand alone (``brainpkg2`` or
``mybrainpkg`` never names ``brainpkg``). Each root belongs to one tier, the
smallest that provides it (:meth:`~tierlock.pytest_plugin.decision.Gate.owner`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from types import TracebackType

_IMPORTORSKIP = re.compile(r"could not import '([^']+)'")
_NO_MODULE = re.compile(r"No module named '([^']+)'")
_FROM_MODULE = re.compile(r"cannot import name '[^']+' from '([^']+)'")
_WORD = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]*[A-Za-z0-9_]|[A-Za-z0-9_]")
_CHAIN_LIMIT = 16


def _root(module: str | None) -> str:
    return (module or "").split(".")[0]


def import_errors(exc: BaseException | None) -> list[ImportError]:
    """The ``ImportError``s in *exc*'s chain, outermost first (a cycle or a long chain stops the walk)."""
    return [e for e in raised(exc) if isinstance(e, ImportError)]


def raised(exc: BaseException | None) -> list[BaseException]:
    """Every exception of *exc*'s chain and of what it carries (:func:`_wrapped`), outermost first."""
    out: list[BaseException] = []
    todo = [exc]
    while todo and len(out) < _CHAIN_LIMIT:
        current = todo.pop(0)
        if current is None or any(current is e for e in out):
            continue
        out.append(current)
        todo.extend(
            e for e in (current.__cause__, current.__context__, *_wrapped(current)) if isinstance(e, BaseException)
        )
    return out


def _wrapped(exc: BaseException) -> list[object]:
    """The exceptions *exc* carries besides its chain: pytest's ``ConftestImportFailure.cause``, and what a doctest
    example raised (``doctest.UnexpectedException.exc_info``, each of ``MultipleDoctestFailures.failures``)."""
    out: list[object] = [getattr(exc, "cause", None)]
    for item in (exc, *(getattr(exc, "failures", None) or ())):
        info = getattr(item, "exc_info", None)
        if isinstance(info, tuple) and len(info) == 3:
            out.append(info[1])
    return out


def _frame_roots(tb: TracebackType | None) -> list[str]:
    """The root module of each frame the exception went through, innermost first."""
    names: list[str] = []
    while tb is not None:
        names.append(_root(tb.tb_frame.f_globals.get("__name__")))
        tb = tb.tb_next
    return names[::-1]


def from_exception(exc: BaseException | None, owners: Mapping[str, str]) -> tuple[str, str] | None:
    """(tier, the root it needed) for an error caused by a missing tier's root, else None.

    *owners* maps an import root of a tier that is not present to that tier.
    """
    for error in import_errors(exc):
        text = str(error)
        candidates = [_root(error.name)]
        candidates += [_root(m.group(1)) for m in (_NO_MODULE.search(text), _FROM_MODULE.search(text)) if m]
        candidates += _frame_roots(error.__traceback__)
        candidates += [_root(w) for w in _WORD.findall(text)]
        for name in candidates:
            hit = _owned(name, owners)
            if hit is not None:
                return hit
    return None


def _owned(name: str, owners: Mapping[str, str]) -> tuple[str, str] | None:
    if not name:
        return None
    tier = owners.get(name) or owners.get(name.lower())
    return (tier, name) if tier is not None else None


def names_an_import(reason: str) -> bool:
    """Whether a skip reason says which import it could not do (``pytest.importorskip``'s ``could not import 'x'``):
    it explains itself, whatever else failed to import in its phase."""
    return _IMPORTORSKIP.search(reason) is not None


def from_skip_reason(reason: str, owners: Mapping[str, str], words: Mapping[str, str]) -> tuple[str, str] | None:
    """(tier, root) for a skip whose *reason* names a missing tier's root, else None: the first of
    :func:`all_from_skip_reason`.

    *words* maps a root's distribution name (lower case, as written in the
    reason: ``-``, ``_`` and ``.`` kept) to its tier, beside the import names of *owners*.
    """
    hits = all_from_skip_reason(reason, owners, words)
    return hits[0] if hits else None


def all_from_skip_reason(reason: str, owners: Mapping[str, str], words: Mapping[str, str]) -> list[tuple[str, str]]:
    """(tier, root) for each missing tier a skip's *reason* names a root of, in the reason's order, one per tier
    (``requires brainpkg and visionpkg``: both); ``pytest.importorskip``'s reason names its one import."""
    match = _IMPORTORSKIP.search(reason)
    if match:
        hit = _owned(_root(match.group(1)), owners)
        failed = _NO_MODULE.search(reason, match.end()) or _FROM_MODULE.search(reason, match.end())
        if hit is None and failed is not None:  # ``could not import 'proj.helpers': No module named 'brainpkg'``
            hit = _owned(_root(failed.group(1)), owners)
        return [hit] if hit is not None else []
    hits: list[tuple[str, str]] = []
    for word in _WORD.findall(reason):
        tier = words.get(word.lower())
        hit = (tier, word) if tier is not None else _owned(_root(word), owners)
        if hit is not None and all(hit[0] != t for t, _ in hits):
            hits.append(hit)
    return hits
