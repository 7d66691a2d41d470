"""``tierlock remove TIER``: uninstall what only that tier needs."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from tierlock.commands.install import target_arguments
from tierlock.errors import EXIT_OK

if TYPE_CHECKING:
    from tierlock.cli import Context

HELP = "uninstall the packages of a tier that neither base, another armed tier, nor another installed package needs"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("tier", metavar="TIER", help="the tier to remove")
    target_arguments(parser)
    parser.add_argument("--backend", choices=("auto", "uv", "pip"), default=None, help="installer backend")
    parser.add_argument("--dry-run", action="store_true", help="list what would be removed; change nothing")


def run(args: argparse.Namespace, ctx: Context) -> int:
    from tierlock.installer.removal import remove
    from tierlock.installer.run import Request

    project = ctx.project()
    request = Request(
        tiers=(args.tier,), python=args.python, system=args.system, backend=args.backend, dry_run=args.dry_run
    )
    removal = remove(project, args.tier, request, ctx.ui)
    if ctx.ui.json_mode:
        ctx.ui.emit_json(removal.to_json())
        return EXIT_OK
    if removal.layered:  # a dry run: the removal itself is refused (installer/removal.py)
        layered = " ".join(removal.layered)
        ctx.ui.line(
            f"{removal.tier}: would remove nothing - armed tier(s) {', '.join(removal.layered)} are layered on it "
            f"and need all of its {len(removal.keep)} package(s). To remove both: "
            f"tierlock remove {layered}{_target(args)} && tierlock remove {removal.tier}{_target(args)}"
        )
        return EXIT_OK
    names = ", ".join(removal.remove) or "(none)"
    if removal.dry_run:
        ctx.ui.line(f"{removal.tier}: would remove {len(removal.remove)} package(s): {names}")
    else:
        receipt = "receipt deleted" if removal.receipt_deleted else "there was no receipt"
        ctx.ui.line(f"{removal.tier}: removed {len(removal.remove)} package(s): {names}; {receipt}")
    if removal.keep:
        kept = ", ".join(f"{name} ({why})" for name, why in sorted(removal.keep.items()))
        ctx.ui.line(f"kept {len(removal.keep)} package(s): {kept}")
    return EXIT_OK


def _target(args: argparse.Namespace) -> str:
    import shlex

    out = f" --python {shlex.quote(args.python)}" if args.python else ""
    return out + (" --system" if args.system else "")
