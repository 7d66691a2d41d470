"""``tierlock install TIER...`` (and its twin script ``install-tier``)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from tierlock.errors import UsageError

if TYPE_CHECKING:
    from tierlock.cli import Context

HELP = "arm tiers in an environment from their lockfiles (not available yet)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("tiers", nargs="*", metavar="TIER")


def run(args: argparse.Namespace, ctx: Context) -> int:
    raise UsageError(
        "installing tiers is not available yet in this version of tierlock; nothing was installed",
        remedy="install the tier's packages with pip for now: pip install -e '.[TIER]'",
    )
