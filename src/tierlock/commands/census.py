"""``tierlock census [TIER...]``: which test files need which tier, read statically."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tierlock.cli import Context

#: Plain lines even on a terminal: the census runs in every CI job (through check) and never imports rich.
PLAIN = True
HELP = "list, per tier, the test files its globs cover and the files outside them that import its roots"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("tiers", nargs="*", metavar="TIER", help="tiers to report (default: every tier)")


def run(args: argparse.Namespace, ctx: Context) -> int:
    from tierlock.census import project_census

    project = ctx.project()
    result = project_census(project, args.tiers)
    if ctx.ui.json_mode:
        ctx.ui.emit_json(result.to_dict())
        return 0
    for report in result.tiers:
        globs = ", ".join(f"{g} ({report.glob_matches.get(g, 0)} files)" for g in report.globs) or "none"
        ctx.ui.line(f"tier {report.tier}: tests globs: {globs}")
        ctx.ui.line(f"  covered: {len(report.covered)} test file(s)")
        for rel in report.covered:
            ctx.ui.line(f"    {rel}")
        files = len({u.file for u in report.outside})
        if report.outside and not report.gates:
            ctx.ui.line(f"  {files} file(s) import its roots; it gates no tests (no tests globs), so none is a problem")
        elif report.outside:
            ctx.ui.line(f"  importers outside its globs: {files} file(s)")
            ctx.ui.line("\n".join(f"    {u.render()}" for u in report.outside))
        if report.fixtures:
            ctx.ui.line("  conftest fixtures needing it (their users need the tier too):")
            ctx.ui.line("\n".join(f"    {u.render()}" for u in report.fixtures))
        if report.accepted:
            ctx.ui.line("  accepted ([tool.tierlock.census.accept]):")
            ctx.ui.line("\n".join(f"    {u.render()}" for u in report.accepted))
    findings = result.findings()
    ctx.ui.line(
        f"census: {result.files_read} test file(s) read, {result.files_parsed} parsed, "
        f"{len(result.tiers)} tier(s), {len(findings)} problem(s)" + ("; see: tierlock check" if findings else "")
    )
    return 0
