"""``tierlock init``: add a [tool.tierlock] table proposing one tier per extra and group."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from tierlock.errors import ConfigError
from tierlock.fsutil import write_atomic

if TYPE_CHECKING:
    from tierlock.cli import Context

HELP = "add a [tool.tierlock] table to pyproject.toml, one tier per extra and dependency group"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--dry-run", action="store_true", help="print what would be added; write nothing")


def run(args: argparse.Namespace, ctx: Context) -> int:
    from tierlock.tiers.init import propose, test_dirs
    from tierlock.tiers.loader import find_pyproject

    path = find_pyproject(Path(ctx.project_arg or "."))
    raw = path.read_bytes()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path} is not UTF-8 text", file=str(path)) from exc
    proposal = propose(text, path, existing_test_dirs=test_dirs(path.parent))
    if not args.dry_run:
        write_atomic(path, proposal.text.encode("utf-8"))
    if ctx.ui.json_mode:
        ctx.ui.emit_json(
            {
                "pyproject": str(path),
                "written": not args.dry_run,
                "added": proposal.added,
                "tiers": [{"name": n, "source": s} for n, s in proposal.tiers],
            }
        )
        return 0
    verb = "would add" if args.dry_run else "added"
    ctx.ui.line(f"{verb} [tool.tierlock] to {path} with {len(proposal.tiers)} tier(s) besides base:")
    ctx.ui.line(proposal.added.replace("\r\n", "\n").strip("\n"))
    if not args.dry_run:
        ctx.ui.line("next: review the table, then run `tierlock tiers`")
    return 0
