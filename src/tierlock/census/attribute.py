"""Who needs what: the uses of each test file, and each tier's report with its uses sorted by what gates them.

A file's uses carry their *scope*: ``module`` (the module fails to import
without the root: only a ``tests`` glob gates it), ``file`` (every test: an
autouse fixture, ``pytestmark``, a helper called at module level) or
``test`` (one test: its imports, fixtures, skip conditions, mark aliases).

A use of root X is covered when a glob of a tier that provides X (or of a
tier layered on one) matches the file, or (for a test or file use) a
``tier`` marker of such a tier marks the test or the module. An uncovered
use is a finding of the **smallest** tier that provides X and gates tests
(the fewest roots, then the first declared): a file importing ``pyarrow``
needs ``arrow``, not the aggregate ``full`` that contains it. For the other
tiers that provide X it is listed as ``elsewhere``, naming that tier.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence

from tierlock.census.fixtures import Needs, needed
from tierlock.census.report import CensusTier, TierReport, Use

#: (tier as written, line, test or None for the whole module).
Marker = tuple[str, int, str | None]


def file_uses(needs: Needs, rel: str) -> tuple[list[Use], list[Marker]]:
    """The uses of one test file (or the import-time uses of one conftest) and its tier markers."""
    reach = needs.reach
    facts = needs.facts[rel]
    uses: list[Use] = []
    for root, line, how, scope, guards in facts.imports:
        if not scope and root in reach.roots and not reach.guarded(rel, guards):
            uses.append(Use(rel, line, how, True, root=root))
    imported = [*((p, f"package {p}", 1) for p in reach.index.packages(rel)), *reach.imported(rel, "")]
    for target, how, line in imported:
        for root, where, at, _ in reach.module_needs(target).values():
            uses.append(Use(rel, line, f"{how} (reaches {root} at {where}:{at})", True, root=root))
    if rel.endswith("conftest.py"):
        return _unique(uses), []
    markers: list[Marker] = [(t, ln, None) for t, ln in (*facts.module.tiers, *needs.tiers.get((rel, ""), ()))]
    for root, where, line, how in needs.own(rel, ""):
        uses.append(Use(rel, line if where == rel else 1, how, root=root, scope="file"))
    module_auto = needs.autouse(rel)
    for name, _ in module_auto:
        for root, (_, where, at, how) in needs.fixture(rel, name).items():
            uses.append(
                Use(rel, 1, f"autouse fixture {name} ({needed(where, at, root, how)})", root=root, scope="file")
            )
    for qual in facts.tests():
        uses.extend(_test_uses(needs, rel, qual, {n for n, _ in module_auto}))
        func = facts.functions[qual]
        markers.extend((t, ln, qual) for t, ln in (*func.tiers, *needs.tiers.get((rel, qual), ())))
    return _unique(uses), markers


def _test_uses(needs: Needs, rel: str, qual: str, module_auto: set[str]) -> list[Use]:
    func = needs.facts[rel].functions[qual]
    klass = qual.split(".", 1)[0] if "." in qual else ""
    out = [
        Use(rel, line if where == rel else func.line, how, root=root, test=qual)
        for root, where, line, how in needs.own(rel, qual)
    ]
    requests = list(func.requests)
    if klass:
        requests.extend((n, func.line) for n, _ in needs.autouse(rel, klass) if n not in module_auto)
    for name, line in dict.fromkeys(requests):
        if name in module_auto:
            continue  # counted once for the whole file
        for root, (_, where, at, how) in needs.fixture(rel, name, klass).items():
            out.append(Use(rel, line, f"fixture {name} ({needed(where, at, root, how)})", root=root, test=qual))
    return out


def _unique(uses: list[Use]) -> list[Use]:
    seen: dict[tuple[str, int, str, str | None], Use] = {}
    for use in uses:
        seen.setdefault((use.root, use.line, use.how, use.test), use)
    return list(seen.values())


class Tiers:
    """The tiers, with which provide each root and which is the smallest that gates."""

    def __init__(self, tiers: Sequence[CensusTier]) -> None:
        self.tiers = list(tiers)
        self.by_name = {t.name: t for t in tiers}
        order = {t.name: i for i, t in enumerate(tiers)}
        self.providers: dict[str, list[CensusTier]] = {}
        for tier in tiers:
            for root in tier.roots:
                self.providers.setdefault(root, []).append(tier)
        self.smallest: dict[str, str] = {}
        for root, found in self.providers.items():
            gating = [t for t in found if t.gates] or found
            self.smallest[root] = min(gating, key=lambda t: (len(set(t.roots)), order[t.name])).name
        self.cover: dict[str, set[str]] = {
            root: {n for t in found for n in (t.name, *t.covered_by)} for root, found in self.providers.items()
        }
        self.cover_globs = {root: self._globs(names, "globs") for root, names in self.cover.items()}
        self.accept_globs = {root: self._globs(names, "accept") for root, names in self.cover.items()}

    def _globs(self, names: Iterable[str], key: str) -> tuple[str, ...]:
        return tuple(g for n in sorted(names) if n in self.by_name for g in getattr(self.by_name[n], key))


def sort_uses(
    entry: TierReport,
    tier: CensusTier,
    known: Tiers,
    *,
    rel: str,
    uses: Sequence[Use],
    markers: Sequence[Marker],
    matches: Callable[[str, Sequence[str]], bool],
) -> None:
    """Sort the uses of *tier*'s roots in the file *rel* into its report's lists."""
    from tierlock.probing import normalize

    seen: set[tuple[str, int]] = set()
    for name, line, test in markers:
        if normalize(name) == tier.name and (name, line) not in seen:  # a class's marker, once for its tests
            seen.add((name, line))
            entry.inside.append(Use(rel, line, f"tier({name!r}) marker", test is None, test=test))
            entry.markers += 1
    marked = [(normalize(name), test) for name, _, test in markers]
    for use in uses:
        if use.root not in tier.roots:
            continue
        cover = known.cover[use.root]
        on = use.scope != "module" and any(t in cover and test in (None, use.test) for t, test in marked)
        if on or matches(rel, known.cover_globs[use.root]):
            entry.inside.append(use)
        elif matches(rel, known.accept_globs[use.root]):
            entry.accepted.append(use)
        elif known.smallest[use.root] == tier.name:
            entry.outside.append(use)
        else:
            other = Use(use.file, use.line, use.how, use.module_level, root=use.root, scope=use.scope, test=use.test)
            other.tier = known.smallest[use.root]
            entry.elsewhere.append(other)


def fixture_uses(needs: Needs, tier: CensusTier) -> list[Use]:
    """The conftest fixtures that need one of *tier*'s roots (their users need the tier too)."""
    out = []
    for conftest, name, _func, found in needs.needing():
        for root, (_, _where, line, _how) in found.items():
            if root in tier.roots:
                out.append(Use(conftest, line, f"fixture {name} needs {root}", root=root))
    return out


def by_line(uses: list[Use]) -> list[Use]:
    return sorted(uses, key=lambda u: (u.file, u.line, u.how))


def glob_matches(
    tier: CensusTier, every: Sequence[str], matches: Callable[[str, Sequence[str]], bool]
) -> Mapping[str, int]:
    return {glob: sum(1 for rel in every if matches(rel, (glob,))) for glob in tier.globs}
