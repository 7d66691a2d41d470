"""The run-time backstop: every skip, error or failure caused by a missing tier is attributed, then counted or failed.

Whatever the start-up decision saw, each report of the run (collection,
setup, call, teardown) is read with :mod:`.attribution`. A report that a
missing tier caused gets ``tierlock_need`` ``[tier, root, what happened]``
(plain data, so it reaches an xdist controller with the report; tierlock's own skip of a test that needs several
missing tiers adds a fourth item, the other tiers, and counts for each), and then:

* for a tier this run fails closed on (strict, required, not present), the
  report keeps its outcome and the run ends with exit code 6, the test named;
* otherwise an error or failure becomes a skip whose reason names the tier
  and its remedy (on a laptop: one line per tier, not a traceback).
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from typing import Any

from tierlock.pytest_plugin.attribution import all_from_skip_reason, from_exception, import_errors, names_an_import
from tierlock.pytest_plugin.decision import Gate
from tierlock.pytest_plugin.failedimports import named_after_failure, shown

#: What every tierlock skip reason holds.
TIER_REASON = "; to run these tests: "
#: The report attribute that carries the attribution (``[tier, root, what happened]``, then the other tiers, if any).
NEED = "tierlock_need"


def _skip_reason(report: Any) -> str:
    """A skip's reason; an expected failure's (``xfail``: pytest reports it as a skip) is its ``wasxfail``."""
    xfail = getattr(report, "wasxfail", None)
    if isinstance(xfail, str):
        return xfail.removeprefix("reason: ")
    longrepr = getattr(report, "longrepr", None)
    text = str(longrepr[2]) if isinstance(longrepr, tuple) and len(longrepr) == 3 else ""
    return text.removeprefix("Skipped: ")


def _own_tiers(gate: Gate, reason: str) -> list[str]:
    """The tiers a tierlock skip reason names (``tier brain is absent, vision is absent; to run these tests: ...``),
    in the order of the project's tiers; none for any other reason."""
    if TIER_REASON not in reason:
        return []
    said = reason.partition(TIER_REASON)[0]
    return [
        tier
        for tier in gate.states
        if f"tier {tier} is " in said or f", {tier} is " in said or f"tier {tier} runs " in said
    ]


def _exception_text(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0] if text else ''}".rstrip(": ")


def attribute(
    gate: Gate,
    report: Any,
    exc: BaseException | None,
    when: str,
    *,
    kept: bool = True,
    failed: Sequence[str] = (),
    ever: Sequence[str] = (),
    marks: Sequence[str] = (),
    test: tuple[str, str] | None = None,
) -> None:
    """Mark *report* when a missing tier caused it, and turn a failure into a skip unless the run fails on it.

    *kept* False: a module whose tests the run does not keep (``-k``, ``-m``) failed or skipped at
    collection: pytest reports it all the same; it becomes a skip and is neither counted nor failed on.
    *failed*: the missing roots whose import failed in this phase (:mod:`.failedimports`): a skip whose reason
    names no root is attributed to the first one's tier. *ever*: those whose import failed at any point of the
    run: an error (not an assertion) whose message names a root of that tier is attributed to it
    (:func:`.failedimports.named_after_failure`), and so is a skip whose parameter id names one
    (:func:`_parametrized`). *marks*: the names of the item's marks: a skip whose reason and
    phase name nothing is attributed to a missing tier that one of them names (:func:`_marked`). *test*: the
    item's file and node id: a skip of a test the census found needing a missing tier before collection is
    that tier's (:func:`_read_before`).
    """
    if not kept:
        _unneeded(gate, report, exc)
        return
    if report.skipped:
        _attribute_skip(gate, report, failed, ever, marks, test=test)
        return
    if not report.failed or exc is None:
        return
    hit = from_exception(exc, gate.owners)
    if hit is None and ever:
        hit = named_after_failure(exc, gate.owners, gate.words, ever)
        exc = shown(exc) if hit is not None else exc
    if hit is None:
        return
    tier, root = hit
    verb = "failed" if when == "call" else "error"
    detail = _exception_text(_import_error(exc) or exc)
    setattr(report, NEED, [tier, root, f"{verb} in {when}: {detail}"])
    if not gate.fails_closed_on(tier):
        report.outcome = "skipped"
        report.longrepr = (_where(report), _line(report), f"{gate.reason(tier)} ({detail})")


def _attribute_skip(
    gate: Gate,
    report: Any,
    failed: Sequence[str],
    ever: Sequence[str],
    marks: Sequence[str],
    *,
    test: tuple[str, str] | None = None,
) -> None:
    """:func:`attribute` of a skip (an expected failure's too): tierlock's own names its tiers; a reason of the
    project's own names roots of missing tiers (all of them kept); else the roots whose import failed in its phase,
    the item's marks, its parameter id. Its reason gets the tiers' state and the command that runs it."""
    reason = _skip_reason(report)
    tiers = _own_tiers(gate, reason)
    own = tiers[0] if tiers else None
    hits = [] if own is not None else all_from_skip_reason(reason, gate.owners, gate.words)
    hits = _one_of(gate, hits, test)
    tiers = tiers or [tier for tier, _ in hits]
    hit = (own, "") if own is not None else (hits[0] if hits else None)
    if hit is None and not names_an_import(reason):
        hit = _after_failed_import(gate, failed)
        reason = f"{reason}; after a failed import of {hit[1]}" if hit is not None else reason
    if hit is None and not names_an_import(reason):
        hit = _marked(gate, marks)
        reason = f"{reason}; marked {hit[1]}" if hit is not None else reason
    if hit is None and not names_an_import(reason):
        hit = _parametrized(gate, str(getattr(report, "nodeid", "")), ever)
        reason = f"{reason}; parametrized with {hit[1]}, whose import failed" if hit is not None else reason
    if hit is None and test is not None:
        hit = _read_before(gate, *test)
        reason = f"{reason}; it needs {hit[1]} (read before collection)" if hit is not None else reason
    if hit is None:
        return
    xfail = isinstance(getattr(report, "wasxfail", None), str)
    need: list[object] = [hit[0], hit[1], f"{'xfailed' if xfail else 'skipped'}: {reason}"]
    setattr(report, NEED, [*need, tiers[1:]] if len(tiers) > 1 else need)  # (the others it needs too)
    said = gate.reason(tiers or [hit[0]])
    if own is None and xfail:
        report.wasxfail = f"{reason} ({said})"
    elif own is None and isinstance(report.longrepr, tuple):
        path, line, _ = report.longrepr
        report.longrepr = (path, line, f"{reason} ({said})")


def _one_of(gate: Gate, hits: list[tuple[str, str]], test: tuple[str, str] | None) -> list[tuple[str, str]]:
    """*hits* (the missing tiers a skip's reason names), or only the one the census read the test needing before
    collection when it read that any one of several roots runs it (``needs one of pdpkg, plpkg``, from ``skipif(all(
    find_spec(m) is None for m in modules))``): counted once, for the tier whose arming runs it."""
    if len(hits) < 2 or test is None:
        return hits
    before = _read_before(gate, *test)
    if before is None or " (or " not in before[1]:
        return hits
    return [hit for hit in hits if hit[0] == before[0]] or hits


def _after_failed_import(gate: Gate, failed: Sequence[str]) -> tuple[str, str] | None:
    for root in failed:
        tier = gate.owners.get(root) or gate.owners.get(root.lower())
        if tier is not None:
            return tier, root
    return None


#: Marks of pytest's own and tierlock's: they name no tier of a project.
_OWN_MARKS = frozenset({"skip", "skipif", "xfail", "parametrize", "usefixtures", "filterwarnings", "tier"})


def _marked(gate: Gate, marks: Sequence[str]) -> tuple[str, str] | None:
    """(tier, mark) for a mark named after a tier that is not present, or after one of its roots (its import or
    distribution name), bare or as ``requires_x`` / ``needs_x``: a project's own mark that a hook skips when the
    tier's package is missing (``pytest_collection_modifyitems`` adding ``skip`` to every ``@pytest.mark.brain``)."""
    missing = {tier.lower().replace("-", "_"): tier for tier in set(gate.owners.values())}
    for mark in marks:
        name = mark.lower()
        if name in _OWN_MARKS:
            continue
        for word in (name, *(name[len(p) :] for p in ("requires_", "needs_") if name.startswith(p))):
            tier = (
                missing.get(word)
                or gate.owners.get(word)
                or gate.words.get(word)
                or gate.words.get(word.replace("_", "-"))
            )
            if tier is not None:
                return tier, mark
    return None


def _parametrized(gate: Gate, nodeid: str, ever: Sequence[str]) -> tuple[str, str] | None:
    """(tier, root) for a test whose parameter id (``test_run[trio]``, ``test_io[asyncio+trio-ipv6]``) names, as a
    whole word, a root of a missing tier whose import failed at some point of the run (*ever*): a backend picked by
    name, skipped by a mark whose reason names nothing (``pytest.param("trio", marks=skipif(..., reason="not
    available"))``). Either fact alone is not enough."""
    ids = nodeid.rpartition("::")[2].partition("[")[2].removesuffix("]")
    failed = {root.partition(".")[0].lower() for root in ever}
    if not ids or not failed:
        return None
    for word in dict.fromkeys(re.findall(r"[A-Za-z0-9_][A-Za-z0-9_.-]*", ids) + re.findall(r"[A-Za-z0-9_]+", ids)):
        name = word.lower()
        tier = gate.owners.get(name) or gate.words.get(name)
        root = name if name in gate.owners else _root_of(gate, tier)
        if tier is not None and root in failed:
            return tier, word
    return None


def _read_before(gate: Gate, path: str, nodeid: str) -> tuple[str, str] | None:
    """(tier, root) for a test the census found needing a missing tier before collection (its own need, or every
    test of its file's): a skip whose reason names nothing (``skipif(not HAS["x"], reason="optional")``) is counted
    for the tier, one per test, not one per file."""
    if not gate.tests_needing:
        return None
    rel = relpath(gate, path).replace(os.sep, "/")
    parts = nodeid.split("::")[1:]
    qual = ".".join([*parts[:-1], parts[-1].partition("[")[0]]) if parts else ""
    for tier, found in gate.tests_needing.items():
        root = found.get(f"{rel}::{qual}") or found.get(rel)
        if root is not None:
            return tier, root
    return None


def _root_of(gate: Gate, tier: str | None) -> str:
    return next((root.lower() for root, owner in gate.owners.items() if owner == tier), "")


def _unneeded(gate: Gate, report: Any, exc: BaseException | None) -> None:
    hit = from_exception(exc, gate.owners) if report.failed and exc is not None else None
    if hit is not None:
        detail = _exception_text(_import_error(exc) or exc) if exc is not None else ""
        report.outcome = "skipped"
        report.longrepr = (_where(report), _line(report), f"{gate.reason(hit[0])} ({detail}; no test of it selected)")


def _import_error(exc: BaseException) -> BaseException | None:
    found = import_errors(exc)
    return found[0] if found else None


def _where(report: Any) -> str:
    location = getattr(report, "location", None)
    if location:
        return str(location[0])
    return str(getattr(report, "fspath", "") or report.nodeid.split("::")[0])


def _line(report: Any) -> int:
    location = getattr(report, "location", None)
    if location and location[1] is not None:
        return int(location[1]) + 1
    return 1


def tally(gate: Gate, report: Any) -> None:
    """Keep an attributed report (in the process that reports: the xdist controller, or the run itself)."""
    need = getattr(report, NEED, None)
    if not (isinstance(need, list) and len(need) in (3, 4)):
        return
    tier, _, what = need[:3]
    others = need[3] if len(need) == 4 and isinstance(need[3], list) else []
    entry = [report.nodeid or _where(report), what, report.outcome]
    for each in [tier, *others]:  # a test tierlock skipped for several missing tiers counts for each of them
        entries = gate.at_run.setdefault(str(each), [])
        if entry not in entries:
            entries.append(entry)


def failing_at_end(gate: Gate) -> list[str]:
    """The tiers this run fails closed on after it ran: needed at run time, or gated files pytest reached."""
    out = [t for t in gate.at_run if gate.fails_closed_on(t)]
    if not gate.exact:
        out += [t for t, files in gate.reached().items() if files and gate.fails_closed_on(t) and t not in out]
    return [t for t in gate.states if t in out]


def relpath(gate: Gate, path: str) -> str:
    try:
        return os.path.relpath(path, gate.root)
    except ValueError:
        return path
