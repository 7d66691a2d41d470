"""``tierlock setup-command [DIR]``: the setup command a repository needs."""

from __future__ import annotations

import argparse
import shlex
from pathlib import Path
from typing import TYPE_CHECKING

from tierlock.errors import EXIT_FAILED, EXIT_OK, CheckFailed, ConfigError

if TYPE_CHECKING:
    from tierlock.cli import Context

HELP = "propose the setup command: the runtime config's setup, else the one lockfile at the root"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("dir", nargs="?", metavar="DIR", help="the repository root (default: --project or .)")


def run(args: argparse.Namespace, ctx: Context) -> int:
    from tierlock.validators import discover, validate_runtime_config
    from tierlock.validators.renderers import display_path
    from tierlock.validators.setup_command import propose

    root = Path(args.dir or ctx.project_arg or ".")
    if not root.is_dir():
        from tierlock.fsutil import existing

        existing(root)  # nothing there ("no such folder") or a special file: said as such
        raise ConfigError(f"{root} is not a folder", remedy="pass the repository root")
    found = discover(root)
    config = None
    if found is not None:
        result = validate_runtime_config(found)
        if not result.parsed:
            why = result.errors[0].message if result.errors else "not a runtime config"
            raise ConfigError(f"{display_path(str(found))} cannot be read: {why}", remedy=f"tierlock validate {found}")
        if not result.ok:
            raise CheckFailed(
                f"{display_path(str(found))} is invalid ({len(result.errors)} error(s)); no setup proposed",
                remedy=f"tierlock validate {found}",
            )
        config = result.config
    proposal = propose(root, config, display_path(str(found)) if found else None)
    if ctx.ui.json_mode:
        ctx.ui.emit_json(proposal.to_dict())
    else:
        for command in proposal.commands:
            ctx.ui.line(shlex.join(command))
        ctx.ui.note(("" if proposal.ok else "no setup command proposed: ") + proposal.reason)
    return EXIT_OK if proposal.ok else EXIT_FAILED
