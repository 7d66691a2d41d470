"""``tierlock remove TIER``: uninstall what only that tier needs."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from tierlock.commands.install import target_arguments

if TYPE_CHECKING:
    from tierlock.cli import Context

HELP = "uninstall the packages of a tier that neither base nor another armed tier needs"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("tier", metavar="TIER", help="the tier to remove")
    target_arguments(parser)
    parser.add_argument("--backend", choices=("auto", "uv", "pip"), default=None, help="installer backend")
    parser.add_argument("--dry-run", action="store_true", help="list what would be removed; change nothing")


def run(args: argparse.Namespace, ctx: Context) -> int:
    from tierlock.installer.run import Request, remove

    project = ctx.project()
    request = Request(
        tiers=(args.tier,), python=args.python, system=args.system, backend=args.backend, dry_run=args.dry_run
    )
    removal = remove(project, args.tier, request, ctx.ui)
    if ctx.ui.json_mode:
        ctx.ui.emit_json(removal.to_json())
        return 0
    names = ", ".join(removal.remove) or "(none)"
    if removal.dry_run:
        ctx.ui.line(f"{removal.tier}: would remove {len(removal.remove)} package(s): {names}")
    else:
        ctx.ui.line(f"{removal.tier}: removed {len(removal.remove)} package(s): {names}; receipt deleted")
    if removal.keep:
        ctx.ui.line(f"kept {len(removal.keep)} package(s) that base or another armed tier needs")
    return 0
