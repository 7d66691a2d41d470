"""``tierlock schema``: print the runtime-config JSON Schema (draft 2020-12)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from tierlock.errors import EXIT_OK

if TYPE_CHECKING:
    from tierlock.cli import Context

HELP = 'print the JSON Schema of the runtime config (for editors: point "$schema" at it)'


def add_arguments(parser: argparse.ArgumentParser) -> None:
    del parser  # no options beyond the global ones


def run(args: argparse.Namespace, ctx: Context) -> int:
    from tierlock.validators.schema import schema

    ctx.ui.emit_json(schema())
    return EXIT_OK
