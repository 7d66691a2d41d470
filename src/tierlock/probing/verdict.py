"""The one definition of a tier's verdict, shared by ``tierlock probe``, ``admit``, ``status`` and the pytest plugin.

A tier is probed in two parts, both from files (never importing):

* its **roots** (the ``probe`` distributions whose requirement applies to the
  target environment): every file RECORD lists is stat-ed, the version
  compared with the lock, the import roots looked for;
* the rest of its **closure** (every other lockfile entry whose marker holds
  in the target environment): installed, at the locked version, METADATA and
  RECORD readable, and every compiled artifact RECORD lists (``.so``,
  ``.pyd``, ``.dylib`` ...) there with its recorded size. Compiled code often
  lives in a dependency (polars keeps its runtime in ``polars-runtime-32``);
  those files are few and cheap to stat. With *full* (``probe --closure``)
  every file of the closure is stat-ed too. With *deep* (``probe --deep``)
  every file that is checked is also compared with its RECORD hash.

The tier is **absent** when every root is absent (or, without roots, every
closure package), **present** when every probed distribution is present (a
tier with nothing that applies here is present with 0 packages), else
**partial**. This module imports only the distribution probe and the site
index: the pytest plugin's cache-hit path runs it on every run.
"""

from __future__ import annotations

from collections.abc import Sequence

from tierlock.probing.distribution import DistributionProbe, TierState, probe_distribution
from tierlock.probing.site import SiteIndex

Root = tuple[str, str | None, Sequence[str]]
"""A root to probe: (name, locked version or None, declared import roots)."""
Member = tuple[str, str | None]
"""A closure package to probe: (name, locked version)."""


Memo = dict[tuple[str, str | None, tuple[str, ...], bool, bool], DistributionProbe]
"""Probes already made with one index (tiers layered on one another share most of their closure)."""


def probe_parts(
    index: SiteIndex,
    roots: Sequence[Root],
    closure: Sequence[Member],
    *,
    full: bool = False,
    deep: bool = False,
    memo: Memo | None = None,
) -> tuple[tuple[DistributionProbe, ...], tuple[DistributionProbe, ...]]:
    """The probes of the *roots* and of the rest of the *closure* (see the module docstring).

    Pass the same *memo* for several tiers probed with one *index*, so that a
    package shared by their closures is probed once.
    """
    seen: Memo = {} if memo is None else memo

    def one(name: str, locked: str | None, imports: Sequence[str], whole: bool) -> DistributionProbe:
        key = (name, locked, tuple(imports), whole, deep)
        found = seen.get(key)
        if found is None:
            found = seen[key] = probe_distribution(
                name,
                index=index,
                locked_version=locked,
                import_roots=imports,
                deep=deep,
                compiled_only=not whole,
            )
        return found

    probed_roots = tuple(one(name, locked, imports, True) for name, locked, imports in roots)
    probed_closure = tuple(one(name, locked, (), full) for name, locked in closure)
    return probed_roots, probed_closure


def tier_verdict(roots: Sequence[DistributionProbe], closure: Sequence[DistributionProbe]) -> TierState:
    """Absent when every root is absent (without roots: every closure package), present when
    everything probed is present (or nothing was), else partial."""
    decisive = roots or closure
    if decisive and all(d.state == "absent" for d in decisive):
        return "absent"
    if all(d.present for d in roots) and all(d.present for d in closure):
        return "present"
    return "partial"
