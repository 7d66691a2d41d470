"""``tierlock export [TIER...]``: print the exact requirements of tiers and their layers."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from tierlock.errors import EXIT_OK

if TYPE_CHECKING:
    from tierlock.cli import Context

HELP = "print the exact requirements of tiers and what they are layered on (for Docker, pip-audit, licence tools)"
PLAIN = True


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("tiers", nargs="*", metavar="TIER", help="tiers to export (default: every tier)")
    parser.add_argument("--hashes", action="store_true", help="add each package's --hash options")
    parser.add_argument("-o", "--output", metavar="FILE", help="write to FILE instead of stdout")


def run(args: argparse.Namespace, ctx: Context) -> int:
    from tierlock.exporting import collect, requirements_text, to_json

    project = ctx.project()
    for name in args.tiers:
        project.tier(name)
    export = collect(project, args.tiers)
    if ctx.ui.json_mode:
        ctx.ui.emit_json(to_json(export))
        return EXIT_OK
    text = requirements_text(export, hashes=args.hashes)
    if args.output:
        from pathlib import Path

        from tierlock.scratch import write_atomic

        write_atomic(Path(args.output), text.encode("utf-8"))
        ctx.ui.note(f"wrote {len(export.entries)} requirement(s) of {', '.join(export.tiers)} to {args.output}")
        return EXIT_OK
    ctx.ui.write(text)
    return EXIT_OK
