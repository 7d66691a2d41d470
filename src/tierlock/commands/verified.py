"""``tierlock verified``: the gate; exit 0 only when this commit's tree was verified as it stands."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tierlock.cli import Context

HELP = "exit 0 only when a passing, clean receipt of tierlock verify matches the current tree and config"
PLAIN = True


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--config", metavar="FILE", help="the runtime config the receipt must match (default: its own)")
    parser.add_argument(
        "--config-from", metavar="REF", help="require a receipt made with --config-from REF at REF's current content"
    )
    parser.add_argument("--evidence-dir", metavar="DIR", help="where verify wrote its runs (default: in the git dir)")


def run(args: argparse.Namespace, ctx: Context) -> int:
    from tierlock.evidence.gate import check, verify_command

    start = Path(ctx.project_arg or ".")
    if start.is_file():
        start = start.parent
    remedy = verify_command(args.config, args.config_from, args.evidence_dir, ctx.project_arg)
    verdict = check(
        start.resolve() if start.exists() else start,
        config=Path(args.config).resolve() if args.config else None,
        config_from=args.config_from,
        evidence_dir=Path(args.evidence_dir).resolve() if args.evidence_dir else None,
        remedy=remedy,
    )
    if ctx.ui.json_mode:
        ctx.ui.stdout.write(json.dumps(verdict.to_dict(), separators=(",", ":")) + "\n")
        ctx.ui._json_written = True
        return verdict.exit_code
    if verdict.ok:
        ctx.ui.line(f"verified: {verdict.message}")
    else:
        ctx.ui.note(f"not verified ({verdict.reason}): {verdict.message}")
        if verdict.remedy:
            ctx.ui.note(f"  to fix: {verdict.remedy}")
    return verdict.exit_code
