"""``tierlock verified``: the gate; exit 0 only when this commit's tree was verified as it stands."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tierlock.cli import Context

HELP = (
    "exit 0 only when a passing, clean receipt of tierlock verify matches the current tree and config, "
    "and the working tree has no uncommitted change (--head: HEAD alone)"
)
PLAIN = True


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--config", metavar="FILE", help="the runtime config the receipt must match (default: its own)")
    parser.add_argument(
        "--config-from", metavar="REF", help="require a receipt made with --config-from REF at REF's current content"
    )
    parser.add_argument("--evidence-dir", metavar="DIR", help="where verify wrote its runs (default: in the git dir)")
    parser.add_argument(
        "--head",
        action="store_true",
        help="ask about HEAD's commit alone (by default uncommitted changes in the working tree make it fail)",
    )


def run(args: argparse.Namespace, ctx: Context) -> int:
    from tierlock.evidence import fastgate

    code = fastgate.run(
        ctx.project_arg,
        args.config,
        args.config_from,
        args.evidence_dir,
        json_mode=ctx.ui.json_mode,
        quiet=ctx.ui.quiet,
        head=args.head,
        stdout=ctx.ui.stdout,
    )
    ctx.ui._json_written = ctx.ui.json_mode  # the one line is written: the CLI must not add another
    return code
