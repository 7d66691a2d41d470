"""The one definition of a tier's verdict, shared by ``tierlock probe``, ``admit``, ``status``, the install
verification and the pytest plugin.

A tier is probed from files (never importing), every distribution of it the same way:

* its **roots** (the ``probe`` distributions whose requirement applies to the
  target environment) and the rest of its **closure** (every other lockfile
  entry whose marker holds in the target environment): installed, at the
  locked version, METADATA and RECORD readable, every file RECORD lists there
  with its recorded size (a ``.py`` file lost from a dependency breaks
  ``import`` as surely as a lost ``.so``), the import roots found (the
  declared ones for a root, the recorded ones otherwise). With *deep*
  (``--deep``) every file is also compared with its RECORD hash;
* the **project itself**, when a package of the closure requires it
  (:mod:`tierlock.probing.project`).

The tier is **absent** when every root is absent (or, without roots, every
closure package), **present** when every probed distribution is present (a
tier with nothing that applies here is present with 0 packages), else
**partial**. This module imports only the distribution probe (and its file checks) and the site
index: the pytest plugin's cache-hit path runs it on every run.
"""

from __future__ import annotations

from collections.abc import Sequence

from tierlock.probing.distprobe import DistributionProbe
from tierlock.probing.distribution import probe_distribution
from tierlock.probing.filechecks import all_still_whole
from tierlock.probing.site import SiteIndex
from tierlock.probing.wholekept import kept_whole

TYPE_CHECKING = False
if TYPE_CHECKING:
    from tierlock.probing.distprobe import TierState

Root = tuple[str, str | None, Sequence[str]]
"""A root to probe: (name, locked version or None, declared import roots)."""
Member = tuple[str, str | None]
"""A closure package to probe: (name, locked version)."""


Memo = dict[tuple[str, str | None, tuple[str, ...], bool], DistributionProbe]
"""Probes already made with one index (tiers layered on one another share most of their closure)."""


def probe_parts(
    index: SiteIndex,
    roots: Sequence[Root],
    closure: Sequence[Member],
    *,
    deep: bool = False,
    memo: Memo | None = None,
) -> tuple[tuple[DistributionProbe, ...], tuple[DistributionProbe, ...]]:
    """The probes of the *roots* and of the rest of the *closure* (see the module docstring).

    Pass the same *memo* for several tiers probed with one *index*, so that a
    package shared by their closures is probed once.
    """
    seen: Memo = {} if memo is None else memo
    if not deep:
        _confirm_kept(index, [*roots, *((name, locked, ()) for name, locked in closure)], seen)

    def one(name: str, locked: str | None, imports: Sequence[str]) -> DistributionProbe:
        key = (name, locked, tuple(imports), deep)
        found = seen.get(key)
        if found is None:
            found = seen[key] = probe_distribution(
                name, index=index, locked_version=locked, import_roots=imports, deep=deep
            )
        return found

    probed_roots = tuple(one(name, locked, imports) for name, locked, imports in roots)
    probed_closure = tuple(one(name, locked, ()) for name, locked in closure)
    return probed_roots, probed_closure


def _confirm_kept(index: SiteIndex, members: Sequence[Root], seen: Memo) -> None:
    """Give every member the whole verdict this process kept for it, when each one still holds: the short way
    of :func:`probe_distribution` (:func:`tierlock.probing.wholekept.kept_whole`) for the round at once, every
    file stat-ed once in two C passes over them all. When any member has none, or any does not hold, nothing
    is given: each takes its own way (which stats its files again, and says what is wrong)."""
    found = []
    for name, locked, imports in members:
        key = (name, locked, tuple(imports), False)
        if key in seen:
            continue
        kept = kept_whole(index, name, locked, imports)
        if kept is None:
            return
        found.append((key, kept))
    if not found or not all_still_whole([(facts, whole[1]) for _key, (facts, whole) in found]):
        return
    extensions = [pair for _key, (_facts, whole) in found for pair in whole[2]]
    if extensions:
        from tierlock.probing import libraries

        if not libraries.still_known(index, index.sites, extensions, index.python):
            return
    for key, (_facts, whole) in found:
        seen[key] = whole[0]


def tier_verdict(
    roots: Sequence[DistributionProbe], closure: Sequence[DistributionProbe], project: DistributionProbe | None = None
) -> TierState:
    """Absent when every root is absent (without roots: every closure package), present when everything
    probed is present (or nothing was), else partial. *project*: the project itself, when the closure needs it."""
    decisive = roots or closure
    if decisive and all(d.state == "absent" for d in decisive):
        return "absent"
    everything = (*roots, *closure, *((project,) if project is not None else ()))
    if all(d.present for d in everything):
        return "present"
    return "partial"
