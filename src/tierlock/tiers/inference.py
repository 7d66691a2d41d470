"""What ``tierlock init`` infers from a pyproject and its tests (pure over what it is given; no TOML written).

* candidates: every extra (those that only carry tooling, such as ``dev``,
  ``doc`` or ``test`` extras of pytest, linters and docs builders, are left
  out unless named), and the dependency groups asked for;
* what cannot be locked from a package index is skipped, saying why;
* layers: a tier whose roots contain another's is layered on the largest
  such (from the installed metadata when the project's environment is
  there), unless the two are declared in conflict;
* aggregates: an extra whose every root another, smaller tier provides
  (``all = ["proj[a,b]"]``) gets no tests of its own;
* ``import-roots`` where a distribution's import name is not its name;
* tests: from the census of the test files, a file goes to the ``tests``
  globs of the smallest tier that provides what it needs when the file
  needs it as a whole (at import, through an autouse fixture or
  ``pytestmark``, or in every test); files where only some tests need a tier
  are *unsettled* (a glob would gate their other tests too) and reported;
* ``ci-require``: every tier with tests or unsettled needs, written out.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from packaging.markers import Marker
from packaging.utils import NormalizedName, canonicalize_name

from tierlock.errors import ConfigError
from tierlock.importnames import import_names
from tierlock.tiers.loader import parse_project
from tierlock.tiers.reach import local_packages, reached
from tierlock.tiers.testimports import compact
from tierlock.tiers.tooling import is_tooling_extra

if TYPE_CHECKING:
    from tierlock.census import Census


@dataclass(frozen=True)
class Skipped:
    name: str
    source: str
    reason: str


@dataclass(frozen=True)
class Unsettled:
    """Test files where only some tests need a tier: the census lists them, a glob would over-gate."""

    file: str
    tests: tuple[str, ...]
    others: int
    """How many other tests of the file a glob would gate too."""


@dataclass
class Inferred:
    """Everything init proposes, before it is written as TOML."""

    tiers: list[tuple[str, str]] = field(default_factory=list)
    """(tier name, source) pairs proposed, in declaration order."""
    skipped: list[Skipped] = field(default_factory=list)
    groups_left_out: tuple[str, ...] = ()
    extras_left_out: tuple[str, ...] = ()
    """Extras that only carry tooling (linters, docs builders, test runners), not proposed unless named."""
    layered: dict[str, str] = field(default_factory=dict)
    conflicts: tuple[tuple[str, ...], ...] = ()
    aggregates: dict[str, tuple[str, ...]] = field(default_factory=dict)
    """Aggregate tier -> the smaller tiers that provide its roots."""
    import_roots: dict[str, dict[str, tuple[str, ...]]] = field(default_factory=dict)
    tests: dict[str, tuple[str, ...]] = field(default_factory=dict)
    unsettled: dict[str, list[Unsettled]] = field(default_factory=dict)
    ci_require: tuple[str, ...] = ()


def choose(
    data: Mapping[str, Any], path: Path, groups: Collection[str], extras: Collection[str], *, all_groups: bool
) -> tuple[list[tuple[str, str]], tuple[str, ...], tuple[str, ...]]:
    """(candidate (tier, source) pairs, groups left out, tooling extras left out)."""
    project = data.get("project", {}) if isinstance(data.get("project"), dict) else {}
    raw_extras = project.get("optional-dependencies") or {}
    # One tier per normalised name (PEP 685, PEP 735): two spellings of one extra are one extra.
    extra_names = list(dict.fromkeys(canonicalize_name(e) for e in raw_extras))
    group_names = list(dict.fromkeys(canonicalize_name(g) for g in (data.get("dependency-groups") or {})))
    wanted_groups = {canonicalize_name(g) for g in groups}
    wanted_extras = {canonicalize_name(e) for e in extras}
    _known(path, "dependency group", wanted_groups, group_names, "--groups")
    _known(path, "extra", wanted_extras, extra_names, "--extras")
    own = str(project.get("name", ""))
    tooling = tuple(
        dict.fromkeys(
            canonicalize_name(e)
            for e, reqs in raw_extras.items()
            if canonicalize_name(e) not in wanted_extras and is_tooling_extra(e, reqs, own)
        )
    )
    chosen_groups = group_names if all_groups else [g for g in group_names if g in wanted_groups]
    candidates: list[tuple[str, str]] = []
    used: set[str] = {"base"}
    kept_extras = [e for e in extra_names if e not in tooling]
    for kind, names in (("extra", kept_extras), ("group", chosen_groups)):
        for name in names:
            tier = name if name not in used else f"{name}-{kind}"
            used.add(tier)
            candidates.append((tier, f"{kind}:{name}"))
    return candidates, tuple(g for g in group_names if g not in chosen_groups), tooling


def _known(path: Path, what: str, wanted: set[NormalizedName], declared: Sequence[str], flag: str) -> None:
    unknown = sorted(wanted - set(declared))
    if unknown:
        known = [g for g in declared if g in wanted]
        raise ConfigError(
            f"no {what} called {', '.join(unknown)} in {path}; {what}s: {', '.join(declared) or '(none)'}",
            file=str(path),
            remedy=f"tierlock init {flag} {' '.join(known)}" if known else "tierlock init",
        )


def lockable(
    data: Mapping[str, Any], path: Path, candidates: Sequence[tuple[str, str]], local: Mapping[str, str]
) -> tuple[dict[str, list[Any]], list[Skipped]]:
    """Each lockable candidate's roots (as the loader expands them); the others skipped with why."""
    out: dict[str, list[Any]] = {}
    skipped: list[Skipped] = []
    for tier, source in candidates:
        trial = _with_tiers(data, [(tier, source)])
        try:
            model = parse_project(trial, pyproject=path)
        except ConfigError as exc:
            reason = "; ".join(p.message for p in exc.problems) or exc.message
            skipped.append(Skipped(tier, source, f"it cannot be read: {reason}"))
            continue
        reqs = list(model.tiers[canonicalize_name(tier)].requirements)
        found = reached(reqs, local)
        if found is not None:
            name, what = found
            skipped.append(Skipped(tier, source, f"it reaches {name}, {what}, which no package index serves"))
            continue
        out[tier] = reqs
    return out, skipped


def _with_tiers(data: Mapping[str, Any], tiers: Sequence[tuple[str, str]]) -> dict[str, Any]:
    trial = dict(data)
    tool = dict(trial.get("tool") or {})
    tool["tierlock"] = {"tiers": {t: {"source": s} for t, s in tiers}}
    trial["tool"] = tool
    return trial


def infer(
    data: Mapping[str, Any],
    path: Path,
    *,
    groups: Collection[str] = (),
    extras: Collection[str] = (),
    all_groups: bool = False,
    members: Mapping[NormalizedName, str] | None = None,
    requires_of: Mapping[str, Sequence[Any]] | None = None,
    local_locked: bool = False,
) -> Inferred:
    """The tiers init proposes for the pyproject *data*, their layers, conflicts and import names (no tests yet).

    *local_locked*: the lock holds the project's local packages (uv.lock), so reaching one skips no tier."""
    candidates, groups_out, extras_out = choose(data, path, groups, extras, all_groups=all_groups)
    local = {} if local_locked else local_packages(data, members)
    requirements, skipped = lockable(data, path, candidates, local)
    out = Inferred(skipped=skipped, groups_left_out=groups_out, extras_left_out=extras_out)
    out.tiers = [(t, s) for t, s in candidates if t in requirements]
    names_of = {t: _keys(requirements[t]) for t, _ in out.tiers}
    out.conflicts = conflicts(data, out.tiers)
    closures = names_of
    if requires_of:
        closures = {t: closure(requirements[t], requires_of) | names_of[t] for t, _ in out.tiers}
    out.layered = layering(closures, out.conflicts)
    out.aggregates = aggregates(names_of)
    out.import_roots = {t: spelled for t, _ in out.tiers if (spelled := _import_roots(requirements[t]))}
    return out


def settle(inferred: Inferred, census: Census | None, existing_test_dirs: frozenset[str] = frozenset()) -> None:
    """Fill in the tests globs, the unsettled files and ``ci-require`` from the *census* of the proposed tiers."""
    if census is not None:
        inferred.tests, inferred.unsettled = tests_from(census)
    for tier, _ in inferred.tiers:
        guess = f"tests/{tier}"
        if tier not in inferred.tests and tier not in inferred.unsettled and guess in existing_test_dirs:
            inferred.tests[tier] = (f"{guess}/**",)
    wanted = set(inferred.tests) | set(inferred.unsettled)
    inferred.ci_require = tuple(t for t, _ in inferred.tiers if t in wanted)


def census_roots(data: Mapping[str, Any], path: Path, inferred: Inferred) -> dict[str, tuple[str, ...]]:
    """Tier -> the import names its own roots provide (less the base tier's), for the census that finds tests."""
    try:
        base = {canonicalize_name(r.name) for r in parse_project(data, pyproject=path).tier("base").requirements}
    except ConfigError:
        base = set()
    trial = _with_tiers(data, inferred.tiers)
    model = parse_project(trial, pyproject=path)
    out: dict[str, tuple[str, ...]] = {}
    for tier, _ in inferred.tiers:
        names: list[str] = []
        for req in model.tiers[canonicalize_name(tier)].requirements:
            dist = canonicalize_name(req.name)
            if dist not in base:
                names.extend(import_names(dist))
        out[tier] = tuple(dict.fromkeys(names))
    return out


def tests_from(census: Census) -> tuple[dict[str, tuple[str, ...]], dict[str, list[Unsettled]]]:
    """Per tier: the globs of the files that need it whole, and the files where only some tests need it."""

    tests: dict[str, tuple[str, ...]] = {}
    unsettled: dict[str, list[Unsettled]] = {}
    for finding in census.findings():
        if finding.kind != "census-importer":
            continue
        if "tests" in finding.fix:
            tests.setdefault(finding.tier, ())
            tests[finding.tier] = (*tests[finding.tier], *finding.fix["tests"])
        elif "mark" in finding.fix:
            needing = tuple(m["test"] for m in finding.fix["mark"])
            total = len(census.tests.get(finding.file, ()))
            unsettled.setdefault(finding.tier, []).append(Unsettled(finding.file, needing, total - len(needing)))
    return {t: tuple(compact(g, census.test_files)) for t, g in tests.items()}, unsettled


def _keys(requirements: Sequence[Any]) -> set[str]:
    """A tier's roots as comparable keys: each name, plus ``name[extra]`` for each extra it asks for."""
    out: set[str] = set()
    for req in requirements:
        name = canonicalize_name(req.name)
        out.add(name)
        out.update(f"{name}[{canonicalize_name(e)}]" for e in req.extras)
    return out


def _import_roots(requirements: Sequence[Any]) -> dict[str, tuple[str, ...]]:
    """``import-roots`` for the distributions whose import names are not their names with ``-`` as ``_``."""
    out: dict[str, tuple[str, ...]] = {}
    for req in requirements:
        dist = canonicalize_name(req.name)
        names = import_names(dist)
        if names != (dist.replace("-", "_").replace(".", "_"),):
            out[str(dist)] = names
    return out


def aggregates(names_of: Mapping[str, set[str]]) -> dict[str, tuple[str, ...]]:
    """Tier -> the smaller tiers whose roots together make all of its own (two at least)."""
    out: dict[str, tuple[str, ...]] = {}
    for tier, names in names_of.items():
        parts = [o for o, others in names_of.items() if o != tier and others and others < names]
        if len(parts) < 2:
            continue
        covered = set().union(*(names_of[p] for p in parts))
        if {n for n in names if "[" not in n} <= covered:
            out[tier] = tuple(parts)
    return out


def closure(requirements: Sequence[Any], requires_of: Mapping[str, Sequence[Any]]) -> set[str]:
    """Names reachable from *requirements* through the installed metadata in *requires_of* (pure).

    Universal, so it over-approximates: a dependency under a platform or
    Python marker counts; one under an ``extra`` marker counts only when that
    extra was asked for, whatever else its marker compares (:func:`_holds`).
    """
    out: set[str] = set()
    stack = [(canonicalize_name(r.name), frozenset(canonicalize_name(e) for e in r.extras)) for r in requirements]
    seen: set[tuple[str, frozenset[str]]] = set()
    while stack:
        name, wanted = stack.pop()
        if (name, wanted) in seen:
            continue
        seen.add((name, wanted))
        out.add(name)
        for req in requires_of.get(name, ()):
            marker = req.marker
            if marker is not None and "extra" in str(marker) and not any(_holds(marker, e) for e in wanted):
                continue
            stack.append((canonicalize_name(req.name), frozenset(canonicalize_name(e) for e in req.extras)))
    return out


def _holds(marker: Any, extra: str) -> bool:
    """Whether *marker* can hold when *extra* is asked for, on some Python and platform: each comparison of another
    variable holds somewhere (``python_version < "3.11"`` on the project's 3.10, ``sys_platform == "win32"`` on
    Windows), so only the ``extra`` comparisons decide; never the environment tierlock itself runs in."""
    try:
        return _could(marker._markers, extra)
    except AttributeError:  # a packaging that keeps its parsed marker otherwise: evaluate it as it stands
        pass
    except Exception:  # an undefined variable in an odd marker: not asked for
        return False
    try:
        return bool(marker.evaluate({"extra": extra}))
    except Exception:
        return False


def _could(items: list[Any], extra: str) -> bool:
    """packaging's parsed marker (comparisons, nested lists, ``"and"``, ``"or"``; ``and`` binds first) evaluated
    with each comparison that does not name ``extra`` taken to hold."""
    groups: list[list[bool]] = [[]]
    for item in items:
        if item == "or":
            groups.append([])
        elif isinstance(item, list):
            groups[-1].append(_could(item, extra))
        elif isinstance(item, tuple):
            groups[-1].append(_compared(item, extra))
    return any(all(group) for group in groups)


def _compared(atom: tuple[Any, Any, Any], extra: str) -> bool:
    """One comparison: the asked *extra* compared when it names ``extra``, else True (some environment has it)."""
    if not any(type(side).__name__ == "Variable" and side.value == "extra" for side in (atom[0], atom[2])):
        return True
    return Marker(" ".join(part.serialize() for part in atom)).evaluate({"extra": extra})


def conflicts(data: Mapping[str, Any], tiers: Sequence[tuple[str, str]]) -> tuple[tuple[str, ...], ...]:
    """``[tool.uv].conflicts`` in tier names (sets with fewer than two proposed tiers are dropped)."""
    tool = data.get("tool")
    uv = tool.get("uv") if isinstance(tool, Mapping) else None
    declared = uv.get("conflicts") if isinstance(uv, Mapping) else None
    by_source = {source: tier for tier, source in tiers}
    out: list[tuple[str, ...]] = []
    for group in declared if isinstance(declared, list) else []:
        names: list[str] = []
        for item in group if isinstance(group, list) else []:
            if not isinstance(item, Mapping):
                continue
            for kind in ("extra", "group"):
                value = item.get(kind)
                key = f"{kind}:{canonicalize_name(value)}" if isinstance(value, str) else ""
                if key in by_source and by_source[key] not in names:
                    names.append(by_source[key])
        if len(names) >= 2 and tuple(names) not in out:
            out.append(tuple(names))
    return tuple(out)


def layering(names_of: Mapping[str, set[str]], declared: Sequence[Sequence[str]]) -> dict[str, str]:
    """Tier -> the tier whose roots its own strictly contain (the largest such), unless declared in conflict."""
    exclusive = {frozenset((a, b)) for group in declared for a in group for b in group if a != b}
    out: dict[str, str] = {}
    for tier, names in names_of.items():
        best: str | None = None
        for other, others in names_of.items():
            if other == tier or not others or not others < names or frozenset((tier, other)) in exclusive:
                continue
            if best is None or len(others) > len(names_of[best]):
                best = other
        if best is not None:
            out[tier] = best
    return out
