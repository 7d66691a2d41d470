"""``tierlock status [TIER...]``: per tier, present, partial (and why), absent, or installed from an older lock."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tierlock.errors import EXIT_OK

if TYPE_CHECKING:
    import argparse

    from tierlock.cli import Context

HELP = "say per tier whether it is present, partial (and why), absent, or installed from an older lock"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("tiers", nargs="*", metavar="TIER", help="the tiers to report (default: all)")
    parser.add_argument(
        "--python",
        metavar="PATH",
        default=None,
        help="the interpreter (or environment folder) to inspect (default: the active venv, else the project's "
        "environment, as for install-tier)",
    )
    parser.add_argument("--deep", action="store_true", help="also verify the RECORD hash of every installed file")


def run(args: argparse.Namespace, ctx: Context) -> int:
    from tierlock import environment

    environment.start_early(args.python)  # the target starts (or its kept answer is read) while the project loads

    from tierlock.installer.status import lines, status

    project = ctx.project()
    target, rows = status(project, args.tiers, args.python, deep=args.deep)
    if ctx.ui.json_mode:
        ctx.ui.emit_json({"ok": True, "target": str(target.prefix), "tiers": [r.to_json() for r in rows]})
        return EXIT_OK
    for line in lines(target, rows, verbose=ctx.ui.verbose):
        ctx.ui.line(line)
    return EXIT_OK
