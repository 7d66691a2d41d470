"""``tierlock platforms [TIER...]``: the wheel coverage table of each tier's lock on every declared platform."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tierlock.cli import Context
    from tierlock.lockfiles.coverage import Gap, TierCoverage
    from tierlock.tiers import Project, Tier
    from tierlock.tiers.platforms import Platform

#: Plain lines even on a terminal: read offline from the lockfiles, like check.
PLAIN = True
HELP = (
    "show, per tier, platform and Python version, whether every locked package installs from a wheel "
    "(exit 1 when a no-build tier needs a build somewhere)"
)
EXAMPLE = "tierlock platforms --platform linux-x86_64 --platform macos-arm64 --platform windows-x86_64"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("tiers", nargs="*", metavar="TIER", help="tiers to show (default: every tier)")
    parser.add_argument(
        "--platform",
        action="append",
        default=[],
        metavar="NAME",
        help="a platform to prove instead of [tool.tierlock].platforms: a short name (linux-x86_64, "
        "linux-x86_64-musl, macos-arm64, windows-x86_64, ...) or a wheel platform tag (repeatable)",
    )


def run(args: argparse.Namespace, ctx: Context) -> int:
    from tierlock.errors import EXIT_FAILED, EXIT_OK
    from tierlock.frozen import replace
    from tierlock.lockfiles.check import read_locks
    from tierlock.lockfiles.nobuild import project_coverage

    project = ctx.project()
    tiers = project.select(args.tiers) if args.tiers else project.select(None)
    if args.platform:
        project = replace(project, platforms=_parse(args.platform))
    if not project.platforms:
        from tierlock.errors import UsageError

        raise UsageError(
            "no platforms to prove: [tool.tierlock].platforms declares none and no --platform was given",
            file=str(project.pyproject),
            remedy=EXAMPLE,
        )
    locks = read_locks(project, tiers)
    covered = project_coverage(project, tiers, locks)
    # a no-build tier without its lock proves nothing (before: left out, and "ok: every no-build tier installs")
    unlocked = [t for t in tiers if locks.get(t.name) is None and not project.builds(t.name)]
    ok = not unlocked and all(c.proven for c in covered if c.no_build)
    if ctx.ui.json_mode:
        ctx.ui.emit_json(document(project, covered, ok, unlocked))
    else:
        _text(ctx, project, covered, unlocked)
    return EXIT_OK if ok else EXIT_FAILED


def _parse(names: Sequence[str]) -> tuple[Platform, ...]:
    from tierlock.errors import UsageError
    from tierlock.tiers.platforms import parse

    out: list[Platform] = []
    for name in names:
        try:
            platform = parse(name)
        except ValueError as exc:
            raise UsageError(f"--platform {exc}", remedy=EXAMPLE) from None
        if all(p.tag != platform.tag for p in out):
            out.append(platform)
    return tuple(out)


def document(
    project: Project, covered: Sequence[TierCoverage], ok: bool, unlocked: Sequence[Tier] = ()
) -> dict[str, Any]:
    """The ``--json`` document: the platforms, the Python versions, each tier's cells and gaps with remedies (a
    no-build tier without its lock: ``"record": "no-lockfile"`` and the command that makes it)."""
    from tierlock.lockfiles.nobuild import by_package, relock_command, remedies
    from tierlock.tiers.platforms import python_versions, version_text

    tiers = []
    for coverage in covered:
        entry = coverage.to_dict()
        fixes = {(g[0].name, g[0].version): remedies(project, coverage.tier, g) for g in by_package(coverage.gaps)}
        for gap, shown in zip(coverage.gaps, entry["gaps"], strict=True):
            shown["remedies"] = fixes[(gap.name, gap.version)]
            shown["command"] = relock_command(project, coverage.tier).split()
        tiers.append(entry)
    tiers += [
        {
            "tier": str(tier.name),
            "no_build": True,
            "lockfile": project.relpath(tier.lockfile),
            "record": "no-lockfile",
            "record_file": None,
            "single_platform": None,
            "environments": [],
            "proven": False,
            "cells": [],
            "gaps": [],
            "command": relock_command(project, str(tier.name)).split(),
        }
        for tier in unlocked
    ]
    return {
        "ok": ok,
        "platforms": [
            {"name": p.name, "tag": p.tag, "os": p.os, "arch": p.arch, "libc": p.libc} for p in project.platforms
        ],
        "pythons": [version_text(v) for v, _ in python_versions(project.requires_python)],
        "tiers": tiers,
    }


def _text(ctx: Context, project: Project, covered: Sequence[TierCoverage], unlocked: Sequence[Tier]) -> None:
    from tierlock.lockfiles.nobuild import by_package, outside, record_fix, record_problem, relock_command
    from tierlock.tiers.platforms import python_versions, version_text, versions_text

    pythons = [version_text(v) for v, _ in python_versions(project.requires_python)]
    for coverage in covered:
        kind = "no-build" if coverage.no_build else "may build"
        title = f"{coverage.tier} ({kind}): {coverage.lockfile}"
        if not coverage.record.usable or coverage.single_platform is not None:
            ctx.ui.line(f"{title}: {record_problem(project, coverage)}; to fix: {record_fix(project, coverage)}")
            continue
        cells = {(c.platform, c.python): c for c in coverage.cells}
        rows = [[p.label, *(_cell(cells[(p.name, v)]) for v in pythons)] for p in project.platforms]
        ctx.ui.table(title, ["platform", *(f"Python {v}" for v in pythons)], rows)
        for gaps in by_package(coverage.gaps):
            _package(ctx, project, coverage, gaps)
        for problem in outside(project, coverage) if coverage.no_build else ():
            ctx.ui.line(f"  {problem.detail}")
            ctx.ui.line(f"    to fix: {problem.remedy}")
    names = ", ".join(p.name for p in project.platforms)
    for tier in unlocked:
        where, fix = project.relpath(tier.lockfile), relock_command(project, str(tier.name))
        ctx.ui.line(
            f"{tier.name} (no-build): {where}: no lockfile, so no wheel can be proven for {names}; to fix: {fix}"
        )
    _verdict(ctx, covered, unlocked, f"{names} (Python {versions_text(pythons)})")


def _verdict(ctx: Context, covered: Sequence[TierCoverage], unlocked: Sequence[Tier], where: str) -> None:
    """The last line(s): which no-build tiers would build, are locked for some platforms only, are not locked."""
    no_build = [c for c in covered if c.no_build and not c.proven]
    building = [c.tier for c in no_build if c.gaps or not c.record.usable or c.single_platform is not None]
    if building:
        ctx.ui.line(f"{len(building)} no-build tier(s) would build from source somewhere: {', '.join(building)}")
    elsewhere = [c.tier for c in no_build if c.outside]
    if elsewhere:
        ctx.ui.line(f"{len(elsewhere)} no-build tier(s) locked for some platforms only: {', '.join(elsewhere)}")
    if unlocked:
        listed = ", ".join(t.name for t in unlocked)
        ctx.ui.line(f"{len(unlocked)} no-build tier(s) not locked, nothing proven: {listed}")
    if not no_build and not unlocked:
        ctx.ui.line(f"ok: every no-build tier installs from wheels on {where}")


def _package(ctx: Context, project: Project, coverage: TierCoverage, gaps: Sequence[Gap]) -> None:
    """One package's gaps: each platform with its Python versions and what exists; then every remedy."""
    from tierlock.lockfiles.nobuild import relock_command, remedies
    from tierlock.tiers.platforms import versions_text

    first = gaps[0]
    place = f"{coverage.lockfile}:{first.line}" if first.line else coverage.lockfile
    ctx.ui.line(f"  {first.name} {first.version} ({place}) has no wheel for:")
    for gap in gaps:
        ctx.ui.line(f"    {gap.platform.label} on Python {versions_text(gap.pythons)}: the lock has {gap.what}")
    if not coverage.no_build:
        ctx.ui.line(f"    ({coverage.tier} may build: it is built from source there)")
        return
    for fix in remedies(project, coverage.tier, gaps):
        ctx.ui.line(f"    to fix: {fix}")
    ctx.ui.line(f"    then run: {relock_command(project, coverage.tier)}")


def _cell(cell: Any) -> str:
    """``3/3 wheels``, ``2/3, builds sdonly``, or ``not in the lock`` (outside the environments it was made for)."""
    if cell.outside:
        return "not in the lock"
    wheels = cell.packages - len(cell.builds)
    if not cell.builds:
        return f"{wheels}/{cell.packages} wheels"
    return f"{wheels}/{cell.packages}, builds {', '.join(cell.builds)}"
