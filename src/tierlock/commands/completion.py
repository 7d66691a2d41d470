"""``tierlock completion SHELL``: print the shell completion script for bash, zsh or fish."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from tierlock.errors import EXIT_OK

if TYPE_CHECKING:
    from tierlock.cli import Context

HELP = "print the shell completion script (bash, zsh or fish)"
PLAIN = True


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("shell", nargs="?", choices=("bash", "zsh", "fish"), help="the shell")
    parser.add_argument(
        "--list-tiers", action="store_true", help="print the project's tier names, one a line (what the scripts call)"
    )


def run(args: argparse.Namespace, ctx: Context) -> int:
    from tierlock.cli import build_parser
    from tierlock.completion import script
    from tierlock.errors import UsageError

    if args.list_tiers:
        for name in ctx.project().tiers:
            ctx.ui.write(f"{name}\n")
        return EXIT_OK
    if args.shell is None:
        raise UsageError("name a shell: bash, zsh or fish", remedy="tierlock completion bash")
    text = script(args.shell, build_parser())
    if ctx.ui.json_mode:
        ctx.ui.emit_json({"ok": True, "shell": args.shell, "script": text})
    else:
        ctx.ui.write(text)
    return EXIT_OK
