"""The no-build proof of ``tierlock check``: each tier's wheel coverage, its problems and their remedies.

For every ``no-build`` tier (``[tool.tierlock].no-build``, default ``base``)
and every declared platform, a package without a wheel is a problem
(``no-wheel``), and a lock without a usable artifact record is one too
(``no-artifacts``: nothing can be proven). A tier that may build gets a note
naming what would be built from source, never a failure. Without declared
platforms there is nothing to prove and nothing is read.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal

from tierlock.frozen import Frozen
from tierlock.lockfiles.fileread import ReadResult
from tierlock.tiers import Project, Tier
from tierlock.tiers.model import BASE
from tierlock.tiers.platforms import Platform, python_versions, versions_text

if TYPE_CHECKING:
    from tierlock.lockfiles.artifacts import Record
    from tierlock.lockfiles.coverage import Gap, TierCoverage

ProblemKind = Literal["no-wheel", "no-artifacts", "outside-environments"]


class CoverageProblem(Frozen):
    """One failure of the proof: which tier, what kind, where, what exactly, and how to fix it."""

    _fields = ("tier", "kind", "file", "line", "detail", "remedy", "facts")

    tier: str
    kind: ProblemKind
    file: str
    line: int | None
    detail: str
    remedy: str
    facts: Mapping[str, Any]
    """no-wheel: the gap (package, platform, Python versions, what exists) and every remedy in full."""

    def __init__(  # noqa: PLR0917 (the signature it had as a dataclass)
        self,
        tier: str,
        kind: ProblemKind,
        file: str,
        line: int | None,
        detail: str,
        remedy: str,
        facts: Mapping[str, Any] | None = None,
    ) -> None:
        self._init(tier, kind, file, line, detail, remedy, {} if facts is None else facts)


def project_coverage(
    project: Project, tiers: Sequence[Tier], locks: Mapping[str, ReadResult | None]
) -> list[TierCoverage]:
    """The coverage of each of *tiers* that has a lockfile, on every declared platform (none declared: [])."""
    if not project.platforms:
        return []  # (the records and the coverage of a project that declares no platform are not loaded)
    from tierlock.lockfiles.artifacts import record_of
    from tierlock.lockfiles.coverage import tier_coverage

    pythons = python_versions(project.requires_python)
    out: list[TierCoverage] = []
    for tier in tiers:
        result = locks.get(tier.name)
        if result is None:
            continue
        record = record_of(result.lock)
        out.append(
            tier_coverage(
                tier.name,
                result.lock,
                record,
                project.platforms,
                pythons,
                no_build=not project.builds(tier.name),
                lockfile=project.relpath(tier.lockfile),
                record_file=project.relpath(record.path) if record.path is not None else None,
            )
        )
    return out


def problems(project: Project, covered: Sequence[TierCoverage]) -> list[CoverageProblem]:
    """The failures of the no-build tiers: a missing or stale record, or a package without a wheel somewhere."""
    out: list[CoverageProblem] = []
    for coverage in covered:
        if not coverage.no_build:
            continue
        if not coverage.record.usable or coverage.single_platform is not None:
            detail, command = record_problem(project, coverage), record_fix(project, coverage)
            out.append(CoverageProblem(coverage.tier, "no-artifacts", coverage.lockfile, None, detail, command))
            continue
        out += outside(project, coverage)
        fixes_of = {(g[0].name, g[0].version): remedies(project, coverage.tier, g) for g in by_package(coverage.gaps)}
        relock = relock_command(project, coverage.tier)
        for gap in coverage.gaps:
            fixes = fixes_of[(gap.name, gap.version)]
            detail = f"{gap.describe()}; tier {coverage.tier} installs from wheels only (no-build)"
            remedy = f"{short_remedy(gap, coverage.tier)}; then run: {relock}"
            facts = {**gap.to_dict(), "remedies": fixes, "command": relock.split()}
            out.append(CoverageProblem(coverage.tier, "no-wheel", coverage.lockfile, gap.line, detail, remedy, facts))
    return out


def outside(project: Project, coverage: TierCoverage) -> list[CoverageProblem]:
    """A no-build tier's lock resolved for none of the environments of a declared platform (uv.lock's ``[tool.uv]
    environments``): nothing installs there, whatever wheels its packages publish (one problem per platform, with
    the environment to add; ``uv sync`` refuses such a machine, and so does ``install-tier``)."""
    from tierlock.lockfiles.lockplatform import environment_for

    pythons: dict[str, list[str]] = {}
    for cell in coverage.outside:
        pythons.setdefault(cell.platform, []).append(cell.python)
    shown = " or ".join(f"`{text}`" for text in coverage.environments)
    declared = "pyproject.toml" if project.lock is None else project.relpath(project.lock.parent / "pyproject.toml")
    uv = coverage.lockfile.rsplit("/", 1)[-1] == "uv.lock"  # (else a PEP 751 lock's own `environments`)
    where = "[tool.uv] environments" if uv else "its `environments`"
    out: list[CoverageProblem] = []
    for platform in [p for p in project.platforms if p.name in pythons]:
        versions = pythons[platform.name]
        # (the widest environment that overlaps none of the lock's: the platform's, else one per Python version)
        add = dict.fromkeys(environment_for(coverage.environments, _environment(platform, v)) for v in versions)
        detail = (
            f"{coverage.lockfile} was resolved only for the environments {where} names ({shown}): "
            f"{platform.label} on Python {versions_text(versions)} is in none of them, so nothing installs there "
            f"({'uv sync' if uv else 'its installer'} refuses it); tier {coverage.tier} installs from wheels only "
            "(no-build)"
        )
        edit = " and ".join(f'"{a}"' for a in add)
        relock, leave = relock_command(project, coverage.tier), f"take {platform.name} out of [tool.tierlock].platforms"
        remedy = (
            f"add {edit} to [tool.uv] environments in {declared}, or {leave}; then run: {relock}"
            if uv
            else f"{relock} for {edit} too, or {leave}"
        )
        out.append(CoverageProblem(coverage.tier, "outside-environments", coverage.lockfile, None, detail, remedy))
    return out


def _environment(platform: Platform, version: str) -> dict[str, str]:
    major, minor = (int(part) for part in version.split("."))
    return platform.marker_environment((major, minor))


def relock_command(project: Project, tier: str) -> str:
    """``tierlock lock base brain``: after an edit of *tier*'s requirements, it and every tier layered on it; on a
    project whose tiers read the lock it commits, that lock's own command (``uv lock``: tierlock never writes it)."""
    if project.lock is not None:
        from tierlock.lockfiles.sources import remedy

        return remedy(project)
    above = [str(t) for t in project.tiers if any(m.name == tier for m in project.chain(t))]
    return " ".join(["tierlock", "lock", *above])


def record_fix(project: Project, coverage: TierCoverage) -> str:
    """The one command that records a tier's artifacts: its lock made again (``uv lock`` for a lock the project
    commits). A pip-tools lock is made again universal (``--backend uv``), a new body: with the tiers layered on
    it (else each says base-moved, a second command); a missing or stale record, the same body: the tier alone."""
    if coverage.single_platform is not None:
        return relock_command(project, coverage.tier) + " --backend uv"
    return relock_command(project, coverage.tier) if project.lock else f"tierlock lock {coverage.tier}"


def record_problem(project: Project, coverage: TierCoverage) -> str:
    """Why a no-build tier's wheels cannot be proven: its lock records no artifacts, or a stale or bad record."""
    record: Record = coverage.record
    where = coverage.record_file or coverage.lockfile
    names = ", ".join(p.name for p in project.platforms)
    if coverage.single_platform is not None:
        return (
            f"{coverage.lockfile} is a single-platform lock (pip-tools, made for {coverage.single_platform}): "
            f"it proves nothing about {names}; a universal lock (uv) records every pin's files for all of them"
        )
    if record.state == "absent":
        return (
            f"{coverage.lockfile} records no artifacts (the wheel files of each package and their tags), so no wheel "
            f"can be proven for {names}; locking it again records them in {where}"
        )
    return f"the artifact record {where} is {record.state} ({record.detail}); locking again rewrites it"


def short_remedy(gap: Gap, tier: str) -> str:
    """One remedy line per package, whichever platforms it misses (every remedy in full: ``tierlock platforms``)."""
    return (
        f"require a version of {gap.name} with wheels where it has none, leave it out there with a marker, "
        f"or move it to a tier that may build (every remedy: tierlock platforms {tier})"
    )


def remedies(project: Project, tier: str, gaps: Sequence[Gap]) -> list[str]:
    """Every way out of the *gaps* of one package, each a change after which its lock installs from wheels there."""
    first = gaps[0]
    where = _where(project, gaps)
    locked = f"the locked {first.version} has {has(gaps)}"
    out = [f"require a version of {first.name} that publishes wheels for {where} ({locked})"]
    marker = package_marker(project, gaps)
    if marker is not None:
        out.append(f'leave it out there with a marker on its requirement: "{first.name}; {marker}"')
    if any(g.platform.libc == "musl" for g in gaps):
        out.append("(no marker can leave it out on musl alone: markers cannot tell musl from glibc)")
    if tier == BASE:
        out.append(f"move {first.name} out of [project].dependencies into an extra or group (a tier that may build)")
    else:
        out.append(f"move {first.name} to a tier that may build, or take {tier} out of [tool.tierlock].no-build")
    return out


def _where(project: Project, gaps: Sequence[Gap]) -> str:
    """``every declared platform on Python 3.13, 3.14``, or each platform with its Python versions."""
    same = {g.pythons for g in gaps}
    if len(same) == 1 and {g.platform.tag for g in gaps} == {p.tag for p in project.platforms}:
        return f"every declared platform on Python {versions_text(gaps[0].pythons)}"
    return "; ".join(f"{g.platform.name} on Python {versions_text(g.pythons)}" for g in gaps)


def has(gaps: Sequence[Gap]) -> str:
    """What the lock has of the package: ``only an sdist (x-1.0.tar.gz)``, ``5 wheel(s), none for those``."""
    first = gaps[0]
    if first.exists == "other-wheels":
        return f"{len(first.files)} wheel(s), none for those"
    return first.what


def by_package(gaps: Sequence[Gap]) -> list[list[Gap]]:
    """The gaps grouped by package (name and version), in lockfile order."""
    groups: dict[tuple[str, str], list[Gap]] = {}
    for gap in gaps:
        groups.setdefault((gap.name, gap.version), []).append(gap)
    return list(groups.values())


def package_marker(project: Project, gaps: Sequence[Gap]) -> str | None:
    """A marker that keeps the package everywhere but where it has no wheel (None: no marker can say it).

    Musl gaps are left out (markers cannot tell musl from glibc). None too when the
    marker would leave the package out on every declared platform and Python version.
    """
    glibc = [g for g in gaps if g.platform.libc != "musl"]
    everywhere = {g.platform.tag for g in glibc} == {p.tag for p in project.platforms if p.libc != "musl"}
    if glibc and everywhere and len({g.pythons for g in glibc}) == 1:  # the same Pythons on every platform
        only = _python_clause(project, glibc[0].pythons)
        return only if only and _holds_somewhere(project, only) else None
    clauses = [clause for g in glibc if (clause := _keep_clause(project, g, gaps))]
    if not clauses or len(clauses) < len(glibc):
        return None
    clauses = list(dict.fromkeys(clauses))
    marker = clauses[0] if len(clauses) == 1 else " and ".join(f"({c})" if " or " in c else c for c in clauses)
    return marker if _holds_somewhere(project, marker) else None


def _holds_somewhere(project: Project, marker: str) -> bool:
    """Whether *marker* keeps the package on some declared platform at some allowed Python version."""
    from packaging.markers import Marker

    parsed = Marker(marker)
    return any(
        parsed.evaluate(p.marker_environment(v, micro))
        for p in project.platforms
        for v, micro in python_versions(project.requires_python)
    )


def _keep_clause(project: Project, gap: Gap, gaps: Sequence[Gap]) -> str | None:
    """``sys_platform != 'win32'`` (or with ``python_version``): holds everywhere but where *gap* is."""
    where = _platform_clause(project.platforms, gap, gaps)
    python = _python_clause(project, gap.pythons)
    if python == "":
        return where
    return None if python is None else f"{where} or {python}"


def _python_clause(project: Project, pythons: Sequence[str]) -> str | None:
    """``python_version < '3.13'``: holds on every allowed version but *pythons* ("": all of them; None: no range)."""
    allowed = [f"{v[0]}.{v[1]}" for v, _ in python_versions(project.requires_python)]
    failing = [allowed.index(v) for v in pythons]
    if failing == list(range(len(allowed))):
        return ""
    if failing == list(range(failing[0], len(allowed))):
        return f"python_version < {_quote(pythons[0])}"
    if failing == list(range(len(failing))):
        return f"python_version >= {_quote(allowed[len(failing)])}"
    return None


def _platform_clause(platforms: Sequence[Platform], gap: Gap, gaps: Sequence[Gap]) -> str:
    """``sys_platform != 'linux'``, with ``platform_machine`` when another machine of that OS has a wheel there."""
    platform = gap.platform
    sys_platform = platform.marker_environment((3, 0))["sys_platform"]
    same_os = [p for p in platforms if p.os == platform.os and p.libc != "musl"]
    missing = {g.platform.tag for g in gaps if set(gap.pythons) <= set(g.pythons)}
    if all(p.tag in missing for p in same_os):
        return f"sys_platform != {_quote(sys_platform)}"
    return f"sys_platform != {_quote(sys_platform)} or platform_machine != {_quote(platform.arch)}"


def _quote(value: str) -> str:
    return f"'{value}'"


def notes(covered: Sequence[TierCoverage]) -> list[str]:
    """For each tier that may build: what it builds from source, per platform (one line each, in declared order)."""
    out: list[str] = []
    for coverage in covered:
        if coverage.no_build or not coverage.gaps:
            continue
        by_platform: dict[str, list[Gap]] = {c.platform: [] for c in coverage.cells}
        for gap in coverage.gaps:
            by_platform[gap.platform.name].append(gap)
        for platform, gaps in by_platform.items():
            if gaps:
                listed = ", ".join(f"{g.name} {g.version} ({_brief(g)})" for g in gaps)
                out.append(f"note: {coverage.tier} builds from source on {platform}: {listed}")
    return out


def proven(covered: Sequence[TierCoverage]) -> str:
    """``; base installs from wheels on 3 platform(s), Python 3.11-3.14`` for the proven no-build tiers ("": none)."""
    tiers = [c for c in covered if c.no_build and c.proven]
    if not tiers:
        return ""
    platforms = list(dict.fromkeys(c.platform for c in tiers[0].cells))
    pythons = list(dict.fromkeys(c.python for c in tiers[0].cells))
    names = ", ".join(c.tier for c in tiers)
    verb = "installs" if len(tiers) == 1 else "install"
    return f"; {names} {verb} from wheels on {len(platforms)} platform(s), Python {versions_text(pythons)}"


def _brief(gap: Gap) -> str:
    what = {"sdist-only": "sdist only", "other-wheels": "no wheel there", "nothing": "no hashed file"}
    return f"{what.get(gap.exists, 'not recorded')}, Python {versions_text(gap.pythons)}"
