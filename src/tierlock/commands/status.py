"""``tierlock status [TIER...]``: per tier, present, partial, absent, or installed from an older lock."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from tierlock import volume

if TYPE_CHECKING:
    from tierlock.cli import Context

HELP = "say per tier whether it is present, partial (and why), absent, or installed from an older lock"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("tiers", nargs="*", metavar="TIER", help="the tiers to report (default: all)")
    parser.add_argument(
        "--python",
        metavar="PATH",
        default=None,
        help="the interpreter (or environment folder) to inspect (default: the active venv, else this interpreter)",
    )


def run(args: argparse.Namespace, ctx: Context) -> int:
    from tierlock.installer.status import status

    project = ctx.project()
    target, rows = status(project, args.tiers, args.python)
    if ctx.ui.json_mode:
        ctx.ui.emit_json({"ok": True, "target": str(target.prefix), "tiers": [r.to_json() for r in rows]})
        return 0
    table = []
    for row in rows:
        state = row.state + (" (older lock)" if row.stale else "") + (" (pruned)" if row.pruned else "")
        receipt = row.receipt.installed_at if row.receipt else "-"
        packages = f"{row.satisfied}/{row.packages}" if row.packages else "-"
        table.append([row.tier, state, packages, receipt, row.remedy or "-"])
    ctx.ui.table(f"tiers in {target.prefix}", ["tier", "state", "packages ok", "receipt", "to fix"], table)
    for row in rows:
        shown = volume.capped(row.problems, verbose=ctx.ui.verbose, what="problem", hint=volume.CLI_HINT)
        for problem in shown:
            ctx.ui.line(f"  {row.tier}: {problem}")
    return 0
