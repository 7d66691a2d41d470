"""``tierlock matrix``: print a CI job matrix, one job per tier combination worth testing."""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tierlock.cli import Context

HELP = "print a CI job matrix (GitHub Actions strategy.matrix JSON, or GitLab parallel:matrix): one job per tier"
PLAIN = True


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--format",
        choices=("github", "gitlab"),
        default="github",
        help="github: one line of JSON for fromJSON (default); gitlab: a parallel:matrix YAML block",
    )


def run(args: argparse.Namespace, ctx: Context) -> int:
    from tierlock import matrix

    project = ctx.project()
    if ctx.ui.json_mode:
        ctx.ui.emit_json({"ok": True, "jobs": [job.to_dict() for job in matrix.jobs(project)]})
        return 0
    if args.format == "gitlab":
        ctx.ui.write(matrix.gitlab(project))
    else:
        ctx.ui.write(json.dumps(matrix.github(project), separators=(",", ":")) + "\n")
    return 0
