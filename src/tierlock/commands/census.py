"""``tierlock census [TIER...] [--fix]``: which test files need which tier, read statically (exit 1 on a finding)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from tierlock.errors import EXIT_FAILED, EXIT_OK

if TYPE_CHECKING:
    from tierlock.census import Census
    from tierlock.cli import Context

#: Plain lines even on a terminal: the census runs in every CI job (through check) and never imports rich.
PLAIN = True
HELP = "list, per tier, the test files its globs cover and the files outside them that need it (exit 1 on a finding)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("tiers", nargs="*", metavar="TIER", help="tiers to report (default: every tier)")
    parser.add_argument(
        "--fix",
        action="store_true",
        help="apply each finding's fix: add the files to the tier's tests globs, mark the tests named",
    )


#: What the summary line says after its command (``tierlock check`` shows the census's findings too).
_BESIDE = "tierlock check lists them beside the lockfiles' findings"


def run(args: argparse.Namespace, ctx: Context) -> int:
    from tierlock.census import project_census

    project = ctx.project()
    result = project_census(project, args.tiers)
    fixable = [f for f in result.findings() if f.fix]
    if args.fix and fixable:
        from tierlock.census.fixing import apply
        from tierlock.tiers import load_project

        changed = apply(project.root, project.pyproject, fixable)
        result = project_census(load_project(project.pyproject), args.tiers)  # the table as it is now
        if not ctx.ui.json_mode:  # (a finding that no edit fixes is not counted: it is said below, with its fix)
            ctx.ui.line(f"fixed {len(fixable)} finding(s) in {len(changed)} file(s): {', '.join(changed)}")
    findings = result.findings()
    if ctx.ui.json_mode:
        ctx.ui.emit_json(result.to_dict())
        return EXIT_FAILED if findings else EXIT_OK
    _report(ctx, result)
    for warning in result.warnings:
        ctx.ui.line(f"warning: {warning.render()}; to fix: {warning.remedy}")
    for finding in findings:  # what --fix leaves to a person (a glob matching no file), each with its own fix
        if not finding.fix:
            ctx.ui.line(f"{finding.render()}; to fix: {finding.remedy}")
    fixable = [f for f in findings if f.fix]
    what = "them all" if len(fixable) == len(findings) else f"{len(fixable)} of them"
    ctx.ui.line(
        f"census: {result.files_read} test file(s) read, {result.files_parsed} parsed, "
        f"{len(result.tiers)} tier(s), {len(findings)} problem(s)"
        + (f"; fix {what}: tierlock census --fix ({_BESIDE})" if fixable else "")
    )
    return EXIT_FAILED if findings else EXIT_OK


def _report(ctx: Context, result: Census) -> None:
    for report in result.tiers:
        globs = ", ".join(f"{g} ({report.glob_matches.get(g, 0)} files)" for g in report.globs) or "none"
        ctx.ui.line(f"tier {report.tier}: tests globs: {globs}")
        ctx.ui.line(f"  covered: {len(report.covered)} test file(s)")
        for rel in report.covered:
            ctx.ui.line(f"    {rel}")
        files = len({u.file for u in report.outside})
        if report.outside and not report.gates:
            ctx.ui.line(f"  {files} file(s) need it; it gates no tests (no tests globs, not in ci-require): no problem")
        elif report.outside:
            ctx.ui.line(f"  needed outside its globs: {files} file(s)")
            ctx.ui.line("\n".join(f"    {u.render()}" for u in report.outside))
        if report.elsewhere:
            smaller = sorted({u.tier for u in report.elsewhere})
            ctx.ui.line(f"  {len(report.elsewhere)} use(s) of its roots belong to a smaller tier: {', '.join(smaller)}")
        if report.fixtures:
            ctx.ui.line("  conftest fixtures needing it (their users need the tier too):")
            ctx.ui.line("\n".join(f"    {u.render()}" for u in report.fixtures))
        if report.accepted:
            ctx.ui.line("  accepted ([tool.tierlock.census.accept]):")
            ctx.ui.line("\n".join(f"    {u.render()}" for u in report.accepted))
