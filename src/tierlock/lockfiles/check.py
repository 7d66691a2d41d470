"""The offline drift check: a project's declarations and its lockfiles, compared.

:func:`findings` is pure (a :class:`Project` and the read lockfiles in, every
problem out); :func:`read_locks` is the thin edge that reads the files. No
backend process, no network, no resolver.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from packaging.utils import canonicalize_name

from tierlock.lockfiles.digest import expected_inputs
from tierlock.lockfiles.fileread import ReadResult
from tierlock.lockfiles.findings import Finding, Report, scope
from tierlock.lockfiles.header import self_consistent
from tierlock.lockfiles.locks import Lock
from tierlock.lockfiles.origins import outside
from tierlock.tiers import Project, Tier

if TYPE_CHECKING:
    from tierlock.lockfiles.coverage import TierCoverage


def read_locks(project: Project, tiers: Sequence[Tier]) -> dict[str, ReadResult | None]:
    """Read the lockfiles of *tiers* and of every tier they are layered on (None: missing)."""
    from tierlock.lockfiles.sources import read_tier

    out: dict[str, ReadResult | None] = {}
    for tier in tiers:
        for member in project.chain(tier.name):
            if member.name not in out:
                out[member.name] = read_tier(project, member) if member.lockfile.is_file() else None
    return out


def check(project: Project, names: Sequence[str] | None = None) -> Report:
    """Check the named tiers and the tiers they are layered on (every tier when none) against their lockfiles.

    Pairs of checked tiers that can be armed together are also compared (sibling conflicts).
    """
    tiers = project.with_layers(names) if names else project.select(None)
    locks = read_locks(project, tiers)
    report = findings(project, tiers, locks)
    from tierlock.lockfiles.siblings import conflicts, remedies

    found = conflicts(project, tiers, locks)
    siblings = [
        Finding(
            c.first.name,
            "sibling-conflict",
            project.relpath(c.first.lockfile),
            None,
            c.detail(project),
            remedy,
            other_tier=c.second.name,
            packages=tuple(d.to_dict(project, c.first_lock, c.second_lock) for d in c.packages),
        )
        for c, remedy in zip(found, remedies(project, found, locks), strict=True)
    ]
    requested = tuple(project.tier(n).name for n in names) if names else ()
    covered: list[TierCoverage] = []
    wheels: list[Finding] = []
    if project.platforms:  # (none declared: nothing to prove, and the no-build proof is not loaded)
        from tierlock.lockfiles.nobuild import problems, project_coverage

        covered = project_coverage(project, tiers, locks)
        wheels = [
            Finding(p.tier, p.kind, p.file, p.line, p.detail, p.remedy, gap=p.facts or None)
            for p in problems(project, covered)
        ]
    return Report(
        findings=report.findings + tuple(siblings) + tuple(wheels),
        tiers=report.tiers,
        lockfiles=report.lockfiles,
        packages=report.packages,
        entries=report.entries,
        requested=requested,
        platforms=tuple(p.name for p in project.platforms),
        coverage=tuple(covered),
    )


def counted(report: Report) -> str:
    """``2 tier(s) (crypto and the base it is layered on), 2 lockfile(s), 4 package(s) (6 lock entries) checked``."""
    entries = f" ({report.entries} lock entries)" if report.entries != report.packages else ""
    return (
        f"{len(report.tiers)} tier(s) ({scope(report.tiers, report.requested)}), {report.lockfiles} lockfile(s), "
        f"{report.packages} package(s){entries} checked"
    )


def findings(project: Project, tiers: Sequence[Tier], locks: Mapping[str, ReadResult | None]) -> Report:
    """Every problem of *tiers* given their read lockfiles (pure)."""
    if project.lock is not None:  # the lock the project commits: its own tool's drift
        from tierlock.lockfiles import committed

        return committed.findings(project, tiers, locks)
    return _own_findings(project, tiers, locks)


def _own_findings(project: Project, tiers: Sequence[Tier], locks: Mapping[str, ReadResult | None]) -> Report:
    """:func:`findings` for tierlock's own lockfiles, one per tier with its header."""
    out: list[Finding] = []
    entries = 0
    names: set[str] = set()
    for tier in tiers:
        result = locks.get(tier.name)
        file = project.relpath(tier.lockfile)
        remedy = f"tierlock lock {tier.name}"
        if result is None:
            out.append(Finding(tier.name, "missing", file, None, f"no lockfile for tier {tier.name}", remedy))
            continue
        lock = result.lock
        if (
            lock.header is not None
            and lock.header.tier == tier.name
            and lock.header.command.startswith("tierlock lock")
        ):
            remedy = lock.header.command
        entries += len(lock.entries)
        names.update(e.name for e in lock.entries)
        for problem in result.problems:
            out.append(Finding(tier.name, problem.kind, file, problem.line, problem.detail, remedy))
        for line, detail, fix in outside(lock, project, remedy):  # a file:// wheel outside the project
            out.append(Finding(tier.name, "outside-project", file, line, detail, fix))
        out.extend(_header_findings(project, tier, result, locks, remedy))
    read_count = sum(1 for t in tiers if locks.get(t.name))
    return Report(tuple(out), tuple(t.name for t in tiers), read_count, len(names), entries)


def _header_findings(
    project: Project, tier: Tier, result: ReadResult, locks: Mapping[str, ReadResult | None], remedy: str
) -> list[Finding]:
    """What the tier's header says against the project and the lock below: drift, a hand edit, a moved base."""
    lock = result.lock
    header = lock.header
    file = project.relpath(tier.lockfile)
    if header is None:
        return []
    if header.tier != tier.name:
        return [Finding(tier.name, "header", file, None, f"the header is for tier {header.tier!r}", remedy)]
    out: list[Finding] = []
    if not self_consistent(header, lock.format):
        detail = "the recorded inputs do not match the recorded inputs digest (the header was edited)"
        out.append(Finding(tier.name, "header", file, None, detail, remedy))
    inputs, digest = expected_inputs(project, tier)
    if digest != header.inputs_digest:
        changes = describe_drift(project, tier, header_inputs=header.inputs, inputs=inputs, lock=lock)
        out.append(Finding(tier.name, "input-drift", file, None, f"{tier.name}: {changes}", remedy))
    if header.body_digest != lock.body_digest:
        detail = "the body no longer matches its recorded digest (edited by hand)"
        out.append(Finding(tier.name, "hand-edit", file, None, detail, remedy))
    lower = locks.get(tier.layered_on) if tier.layered_on else None
    moved = lower is not None and header.layered_on_digest != lower.lock.body_digest
    if tier.layered_on and header.layered_on == tier.layered_on and moved:
        detail = f"the {tier.layered_on} lockfile changed since {tier.name} was locked"
        out.append(Finding(tier.name, "base-moved", file, None, detail, remedy))
    elif tier.layered_on and header.layered_on == tier.layered_on and tier.layered_on in locks and lower is None:
        below = project.relpath(project.tier(tier.layered_on).lockfile)
        detail = f"the {tier.layered_on} lockfile {tier.name} was locked on is gone ({below})"
        out.append(Finding(tier.name, "base-moved", file, None, detail, remedy))
    if lower is not None:
        out.extend(_layer_consistency(project, tier, lock, lower.lock, remedy))
    return out


def describe_drift(
    project: Project, tier: Tier, *, header_inputs: Sequence[str], inputs: Sequence[str], lock: Lock
) -> str:
    """``numpy>=2 became numpy>=2.1; scipy added`` (and any changed setting)."""
    from packaging.requirements import InvalidRequirement, Requirement

    keys: dict[str, str] = {}  # (each text parsed once: the lock's inputs and the tier's are mostly the same)

    def key_of(item: str) -> str:
        try:
            req = Requirement(item)
        except InvalidRequirement:
            return item
        return req.name if req.marker is None else f"{req.name}; {req.marker}"

    def keyed(items: Sequence[str]) -> dict[str, list[str]]:
        """Requirements by name and marker (a name may appear once per tier in the chain)."""
        out: dict[str, list[str]] = {}
        for item in items:
            key = keys.get(item)
            if key is None:
                key = keys[item] = key_of(item)
            out.setdefault(key, []).append(item)
        return out

    before, after = keyed(header_inputs), keyed(inputs)
    parts: list[str] = []
    for key in sorted(set(before) | set(after)):
        olds = [r for r in before.get(key, []) if r not in after.get(key, [])]
        news = [r for r in after.get(key, []) if r not in before.get(key, [])]
        for old, new in zip(olds, news, strict=False):
            parts.append(f"{old} became {new}")
        parts.extend(f"{old} removed" for old in olds[len(news) :])
        parts.extend(f"{new} added" for new in news[len(olds) :])
    header = lock.header
    assert header is not None
    if header.layered_on != tier.layered_on:
        parts.append(f"layered on {header.layered_on or 'nothing'} became layered on {tier.layered_on or 'nothing'}")
    from tierlock.lockfiles.digest import _canonical_specifiers

    if _canonical_specifiers(header.requires_python) != _canonical_specifiers(project.requires_python):
        parts.append(
            f"requires-python {header.requires_python or '(none)'} became {project.requires_python or '(none)'}"
        )
    if sorted(canonicalize_name(g) for g in header.include_groups) != sorted(tier.include_groups):  # PEP 735 names
        parts.append(
            f"include-groups {', '.join(header.include_groups) or '(none)'} became "
            f"{', '.join(tier.include_groups) or '(none)'}"
        )
    if lock.format != project.format:
        parts.append(f"format {lock.format} became {project.format}")
    return "; ".join(parts) or "the settings recorded in the header changed"


def _layer_consistency(project: Project, tier: Tier, lock: Lock, lower: Lock, remedy: str) -> list[Finding]:
    below: dict[str, list[Any]] = {}
    for entry in lower.entries:
        below.setdefault(entry.name, []).append(entry)
    out: list[Finding] = []
    for entry in lock.entries:
        others = below.get(entry.name)
        if not others or any(o.version == entry.version for o in others):
            continue
        from tierlock.lockfiles.markers import overlap

        for other in others:
            if overlap(entry.marker, other.marker):
                detail = (
                    f"{entry.name} is pinned to {entry.version} here but to {other.version} in the "
                    f"{tier.layered_on} lockfile ({project.relpath(lower.path)}:{other.line})"
                )
                out.append(
                    Finding(tier.name, "layer-consistency", project.relpath(lock.path), entry.line, detail, remedy)
                )
                break
    return out


def merged_remedies(remedies: Iterable[str]) -> list[str]:
    """The distinct remedies, with every ``tierlock lock TIER [flags]`` of one set of flags merged into one command.

    Two missing lockfiles need one ``tierlock lock base brain``, not two commands.
    """
    order: list[str] = []
    tiers: dict[str, list[str]] = {}
    for remedy in remedies:
        words = remedy.split()
        if words[:2] == ["tierlock", "lock"] and len(words) >= 3 and not words[2].startswith("-"):
            flags = " ".join(words[3:])
            key = f"\0lock {flags}"
            if key not in tiers:
                tiers[key] = []
                order.append(key)
            if words[2] not in tiers[key]:
                tiers[key].append(words[2])
        elif remedy not in order:
            order.append(remedy)
    out: list[str] = []
    for item in order:
        if item in tiers:
            flags = item.split(" ", 1)[1]
            out.append(" ".join(["tierlock", "lock", *tiers[item], *([flags] if flags else [])]))
        else:
            out.append(item)
    return out


def one_remedy(remedies: Iterable[str], tiers: Sequence[str]) -> str:
    """The findings' *remedies* as one remedy for *tiers*: their commands chained (``tierlock lock a b && ...``,
    merged as :func:`merged_remedies` merges them); with an edit in words among several, which no chain can hold
    (``tierlock lock pandas && layer one on the other: ...`` ran the lock, then failed on the words), ``tierlock
    check TIERS``, which prints each finding with its own fix. Empty: no remedy."""
    from tierlock.remedies import argv_of, shell_join

    merged = merged_remedies(remedies)
    if len(merged) <= 1 or all(argv_of(r) is not None for r in merged):
        return " && ".join(merged)
    return shell_join(["tierlock", "check", *tiers])
