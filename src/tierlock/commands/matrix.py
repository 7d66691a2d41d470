"""``tierlock matrix``: print a CI job matrix, one job per tier combination worth testing; ``--check`` proves it."""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tierlock.cli import Context
    from tierlock.matrix import Coverage, Job
    from tierlock.tiers import Project

HELP = "print a CI job matrix (GitHub Actions strategy.matrix JSON, or GitLab parallel:matrix): one job per tier"
PLAIN = True


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--format",
        choices=("github", "gitlab"),
        default="github",
        help="github: one line of JSON for fromJSON (default); gitlab: a parallel:matrix YAML block",
    )
    parser.add_argument(
        "--check",
        action="store_true",
        help="prove from the census that every test file needing a ci-require tier runs in at least one job "
        "(exit 1 naming each file no job runs)",
    )


def census_needs(project: Project) -> dict[str, set[str]]:
    """Test file -> the tiers it needs: its tier's ``tests`` globs, and each root it uses, given to the smallest
    tier providing it (a file importing pyarrow needs ``arrow``, not the ``full`` tier that also holds it)."""
    from tierlock.census import CensusTier, accept_table, census, census_tiers, pytest_settings

    tiers = census_tiers(project, accept_table(project.pyproject, project.tiers))
    ranked = sorted(range(len(tiers)), key=lambda i: (len(tiers[i].roots), i))
    owner: dict[str, str] = {}
    for i in ranked:
        for root in tiers[i].roots:
            owner.setdefault(root, tiers[i].name)
    owned = [
        CensusTier(t.name, tuple(r for r in t.roots if owner[r] == t.name), t.globs, t.covered_by, t.accept)
        for t in tiers
    ]
    folders, patterns = pytest_settings(project.root)
    result = census(project.root, owned, folders=folders, patterns=patterns)
    needs: dict[str, set[str]] = {}
    for report in result.tiers:
        files = set(report.covered) | {u.file for u in (*report.inside, *report.outside, *report.accepted)}
        for file in files:
            if not file.endswith("conftest.py"):
                needs.setdefault(file, set()).add(report.tier)
    return needs


def run(args: argparse.Namespace, ctx: Context) -> int:
    from tierlock import matrix
    from tierlock.errors import EXIT_OK

    project = ctx.project()
    needs = census_needs(project)
    planned = matrix.jobs(project, needs)
    if args.check:
        return _check(ctx, matrix.coverage(project, needs, planned), planned)
    if ctx.ui.json_mode:
        ctx.ui.emit_json({"ok": True, "jobs": [job.to_dict() for job in planned]})
        return EXIT_OK
    if args.format == "gitlab":
        ctx.ui.stdout.write(matrix.gitlab(planned))
    else:
        ctx.ui.stdout.write(json.dumps(matrix.github(planned), separators=(",", ":")) + "\n")
    return EXIT_OK


def _check(ctx: Context, found: Coverage, jobs: list[Job]) -> int:
    from tierlock.errors import EXIT_FAILED, EXIT_OK

    if ctx.ui.json_mode:
        ctx.ui.emit_json(
            {
                "ok": found.ok,
                "jobs": [j.to_dict() for j in jobs],
                "files": len(found.runs_in) + len(found.uncovered),
                "runs_in": found.runs_in,
                "uncovered": [{"file": f, "why": why} for f, why in found.uncovered.items()],
            }
        )
        return EXIT_OK if found.ok else EXIT_FAILED
    out = ctx.ui.stdout
    for file, why in found.uncovered.items():
        out.write(f"{file}: runs in no job: {why}\n")
    total = len(found.runs_in) + len(found.uncovered)
    if found.uncovered:
        out.write(
            f"{len(found.uncovered)} of {total} test file(s) needing a ci-require tier run in no job of "
            f"{len(jobs)}\n  to fix: remove the conflict between those tiers from [tool.tierlock].conflicts, "
            "or split the file so each part needs tiers one job arms\n"
        )
        return EXIT_FAILED
    out.write(f"every test file needing a ci-require tier runs in a job: {total} file(s), {len(jobs)} job(s)\n")
    return EXIT_OK
