"""``tierlock validate [FILE]``: check a runtime config against every rule at once."""

from __future__ import annotations

import argparse
import contextlib
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from tierlock.errors import ConfigError, TierlockError, UsageError

if TYPE_CHECKING:
    from tierlock.cli import Context

HELP = "validate the runtime config (setup and verification commands): every error, with positions"
FORMATS = ("text", "json", "github", "sarif")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "file",
        nargs="?",
        metavar="FILE",
        help="a .json or .toml runtime config, or a pyproject.toml (default: discovered in the project folder)",
    )
    parser.add_argument("--format", choices=FORMATS, default=None, help="output format (default: text; --json: json)")
    where = parser.add_mutually_exclusive_group()
    where.add_argument(
        "--checkout",
        metavar="DIR",
        help="checkout root for the cwd rule (default: the git top level holding the config, else its folder)",
    )
    where.add_argument("--no-checkout", action="store_true", help="check cwd lexically only (no filesystem)")
    parser.add_argument("--fail-fast", action="store_true", help="stop at the first error")


def find_config(start: Path) -> Path:
    """The runtime config discovered from *start* (its project folder, then *start* itself)."""
    from tierlock.fsutil import NoPyproject, find_pyproject
    from tierlock.validators import DISCOVERY, discover

    folders = [start]
    with contextlib.suppress(NoPyproject):  # a named folder that does not exist, a FIFO pyproject.toml: refused
        folders.insert(0, find_pyproject(start).parent)
    for folder in folders:
        found = discover(folder)
        if found is not None:
            return found
    from tierlock.links import doc

    raise ConfigError(
        f"no runtime config found in {folders[0]}: looked for {', '.join(DISCOVERY[:2])} "
        "and [tool.tierlock.runtime] in pyproject.toml",
        remedy=f"create tierlock.runtime.json as described at {doc('reference/runtime-config.md')}, or pass FILE",
    )


def run(args: argparse.Namespace, ctx: Context) -> int:
    from tierlock.validators import validate_runtime_config
    from tierlock.validators.core import internal_error
    from tierlock.validators.renderers import RENDERERS

    if ctx.ui.json_mode and args.format in ("text", "github"):
        raise UsageError(
            f"--json and --format {args.format} conflict: with --json, stdout carries one JSON document",
            remedy=f"drop --json to get {args.format} lines, or use --format json or sarif",
        )
    if args.file:
        path = Path(args.file)
        if not path.exists():
            raise ConfigError(f"{path} does not exist", file=str(path), remedy="pass the path of a runtime config")
    else:
        path = find_config(Path(ctx.project_arg or "."))
    checkout: Path | Literal[False] | None = None
    if args.no_checkout:
        checkout = False
    elif args.checkout:
        checkout = Path(args.checkout)
        if not checkout.is_dir():
            raise ConfigError(f"--checkout {checkout} is not a folder", remedy="pass the checkout root")
    fmt = args.format or ("json" if ctx.ui.json_mode else "text")
    try:
        result = validate_runtime_config(path, checkout=checkout, fail_fast=args.fail_fast)
        rendered = RENDERERS[fmt](result)
    except TierlockError:  # a usage or configuration error (exit 2): said as such, not as a bug
        raise
    except Exception as exc:  # the last-resort guard: an internal-error report (exit 3), never a traceback
        result = internal_error(path, exc)
        rendered = RENDERERS[fmt](result)
    if fmt in ("json", "sarif"):
        ctx.ui.emit_json(rendered)
        return result.exit_code
    for note in result.notes:
        ctx.ui.detail(note)
    lines: list[str] = rendered
    for i, line in enumerate(lines):
        last = i == len(lines) - 1
        style = ("bold green" if result.ok else "bold red") if last else "red" if i < len(result.errors) else "yellow"
        ctx.ui.line(line, style=style)
    return result.exit_code
