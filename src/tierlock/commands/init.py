"""``tierlock init``: add a [tool.tierlock] table proposing the extras (and the groups asked for) as tiers."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from tierlock.errors import ConfigError
from tierlock.fsutil import read_bytes, write_atomic

if TYPE_CHECKING:
    from collections.abc import Callable

    from tierlock.cli import Context
    from tierlock.tiers.init import Proposal

HELP = "add a [tool.tierlock] table to pyproject.toml: one tier per extra (dependency groups when asked)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--dry-run", action="store_true", help="print what would be added; write nothing")
    parser.add_argument(
        "--groups",
        nargs="+",
        default=[],
        metavar="NAME",
        help="also turn these dependency groups into tiers (default: asked on a terminal, none otherwise)",
    )
    parser.add_argument("--all-groups", action="store_true", help="turn every dependency group into a tier")
    parser.add_argument(
        "--no-groups", action="store_true", help="propose the extras only, without asking about dependency groups"
    )
    parser.add_argument(
        "--no-pytest-marker",
        action="store_true",
        help="do not register the tier marker in the project's pytest configuration",
    )


def run(args: argparse.Namespace, ctx: Context) -> int:
    from tierlock.tiers.init import environment_requires, is_tooling, propose, test_dirs
    from tierlock.tiers.loader import find_pyproject
    from tierlock.tiers.reach import workspace_members
    from tierlock.tiers.testimports import scan

    path = find_pyproject(Path(ctx.project_arg or "."))
    raw = read_bytes(path)  # at most 64 MiB
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path} is not UTF-8 text", file=str(path)) from exc
    root = path.parent
    from tierlock.tiers.loader import parse_toml

    data = parse_toml(text.removeprefix("\ufeff"), path)
    groups = list(args.groups)
    all_groups = bool(args.all_groups)
    declared = [str(g) for g in (data.get("dependency-groups") or {})]
    asked = bool(groups or all_groups or args.no_groups)
    if declared and not asked and not ctx.ui.json_mode and _interactive():
        groups = _ask(ctx, declared, is_tooling)
    tool = data.get("tool")
    if isinstance(tool, dict) and "tierlock" in tool and (groups or all_groups):
        return _add_groups(args, ctx, path, text, data, groups=groups)
    proposal = propose(
        text,
        path,
        existing_test_dirs=test_dirs(root),
        groups=groups,
        all_groups=all_groups,
        members=workspace_members(root, data),
        test_imports=scan(root),
        register_marker=not args.no_pytest_marker,
        requires_of=environment_requires(root),
    )
    if not args.dry_run:
        if proposal.marker_file is not None and proposal.marker_text is not None:
            write_atomic(proposal.marker_file, proposal.marker_text.encode("utf-8"))
        write_atomic(path, proposal.text.encode("utf-8"))
    if ctx.ui.json_mode:
        ctx.ui.emit_json(_document(path, proposal, written=not args.dry_run))
        return 0
    verb = "would add" if args.dry_run else "added"
    ctx.ui.line(f"{verb} [tool.tierlock] to {path} with {len(proposal.tiers)} tier(s) besides base:")
    ctx.ui.line(proposal.added.replace("\r\n", "\n").strip("\n"))
    for skipped in proposal.skipped:
        ctx.ui.line(f"skipped {skipped.source}: {skipped.reason}")
    if proposal.groups_left_out:
        names = " ".join(proposal.groups_left_out)
        ctx.ui.line(
            f"left out {len(proposal.groups_left_out)} dependency group(s), usually tooling rather than gating tiers: "
            f"{', '.join(proposal.groups_left_out)}"
        )
        ctx.ui.line(f"  to make some of them tiers, run: tierlock init --groups {names}  (name those you want)")
    if proposal.marker_file is not None:
        ctx.ui.line(f"{verb} the tier marker to {proposal.marker_file.name} {proposal.marker_where}")
    if not args.dry_run:
        ctx.ui.line("next: review the table, then run `tierlock tiers` and `tierlock lock`")
    return 0


def _add_groups(
    args: argparse.Namespace,
    ctx: Context,
    path: Path,
    text: str,
    data: dict[str, object],
    *,
    groups: list[str],
) -> int:
    """An existing table: add tiers for the named groups (tomlkit round-trip; every other byte kept)."""
    from tierlock.tiers.init import add_groups
    from tierlock.tiers.reach import workspace_members

    added, skipped, new_text = add_groups(
        text, path, groups, all_groups=bool(args.all_groups), members=workspace_members(path.parent, data)
    )
    if not args.dry_run and added:
        write_atomic(path, new_text.encode("utf-8"))
    if ctx.ui.json_mode:
        ctx.ui.emit_json(
            {
                "pyproject": str(path),
                "written": bool(added) and not args.dry_run,
                "tiers": [{"name": n, "source": s} for n, s in added],
                "skipped": [{"name": s.name, "source": s.source, "reason": s.reason} for s in skipped],
            }
        )
        return 0
    verb = "would add" if args.dry_run else "added"
    for name, source in added:
        ctx.ui.line(f"{verb} tier {name} ({source}) to [tool.tierlock.tiers] in {path}")
    for s in skipped:
        ctx.ui.line(f"skipped {s.source}: {s.reason}")
    if not added and not skipped:
        ctx.ui.line("every named group is already a tier; nothing changed")
    return 0


def _document(path: Path, proposal: Proposal, *, written: bool) -> dict[str, object]:
    return {
        "pyproject": str(path),
        "written": written,
        "added": proposal.added,
        "tiers": [
            {
                "name": n,
                "source": s,
                "layered_on": proposal.layered.get(n),
                "tests": list(proposal.tests.get(n, ())),
            }
            for n, s in proposal.tiers
        ],
        "skipped": [{"name": s.name, "source": s.source, "reason": s.reason} for s in proposal.skipped],
        "groups_left_out": list(proposal.groups_left_out),
        "conflicts": [list(c) for c in proposal.conflicts],
        "pytest_marker": (
            {"file": str(proposal.marker_file), "where": proposal.marker_where} if proposal.marker_file else None
        ),
    }


def _interactive() -> bool:
    try:
        return sys.stdin.isatty() and sys.stdout.isatty()
    except (AttributeError, ValueError):
        return False


def _ask(ctx: Context, declared: list[str], tooling: Callable[[str], bool]) -> list[str]:
    """Ask which dependency groups become tiers (default: none)."""
    ctx.ui.line("Dependency groups are usually tooling (dev, docs, lint, tests); a tier gates tests and CI.")
    for name in declared:
        ctx.ui.line(f"  {name}{'  (tooling)' if tooling(name) else ''}")
    try:
        answer = input("Groups to turn into tiers (names separated by spaces; empty: none): ")
    except EOFError:
        return []
    return answer.split()
