"""``tierlock init``: add a [tool.tierlock] table proposing the extras (and the groups asked for) as tiers."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from tierlock.errors import EXIT_OK, ConfigError
from tierlock.fsutil import read_bytes
from tierlock.scratch import write_atomic

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import Any

    from tierlock.census import Census, CensusTier
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
        "--extras",
        nargs="+",
        default=[],
        metavar="NAME",
        help="also turn these extras into tiers when they only carry tooling (dev, docs, test runners)",
    )
    parser.add_argument(
        "--no-groups", action="store_true", help="propose the extras only, without asking about dependency groups"
    )
    parser.add_argument(
        "--no-pytest-marker",
        action="store_true",
        help="do not register the tier marker in the project's pytest configuration",
    )


def _refuse_dependencies_elsewhere(path: Path, data: dict[str, Any]) -> None:
    """Refuse a project without ``[project]`` whose dependencies Poetry, setup.cfg, setup.py, a Pipfile or a
    requirements file declare: its tiers would read none of them (:mod:`tierlock.tiers.elsewhere`); nothing is
    written."""
    from tierlock.tiers import elsewhere

    root = path.parent
    found = elsewhere.poetry(data) or elsewhere.setuptools(root, data) or elsewhere.requirements(root, data)
    if found is not None:
        raise ConfigError(
            f"{path}: {elsewhere.message(found)}; nothing was written",
            file=str(path),
            remedy=found.remedy("tierlock init", root),
        )


def _find_pyproject(start: Path) -> Path:
    """The project's pyproject.toml; none at or above *start*, whose requirements file names what it installs: the
    step that writes one from it (migrate-to-uv), then ``init`` again."""
    from tierlock.fsutil import NoPyproject
    from tierlock.tiers import elsewhere
    from tierlock.tiers.loader import find_pyproject

    try:
        return find_pyproject(start)
    except NoPyproject:
        found = elsewhere.requirements(start, None)
        if found is None:
            raise
        raise ConfigError(
            f"{start.resolve()}: {elsewhere.message(found, pyproject=False)}; nothing was written",
            file=str(start.resolve() / found.where.split(" ", 1)[0]),
            remedy=found.remedy("tierlock init", start.resolve()),
        ) from None


def run(args: argparse.Namespace, ctx: Context) -> int:
    from tierlock.tiers.init import Around, Asked, environment_requires, is_tooling, propose, test_dirs
    from tierlock.tiers.loader import parse_toml
    from tierlock.tiers.reach import workspace_members

    path = _find_pyproject(Path(ctx.project_arg or "."))
    raw = read_bytes(path)  # at most 64 MiB
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path} is not UTF-8 text", file=str(path)) from exc
    root = path.parent
    data = parse_toml(text.removeprefix("\ufeff"), path)
    _refuse_dependencies_elsewhere(path, data)
    groups = list(args.groups)
    all_groups = bool(args.all_groups)
    declared = [str(g) for g in (data.get("dependency-groups") or {})]
    asked = bool(groups or all_groups or args.no_groups or args.extras)
    if declared and not asked and not ctx.ui.json_mode and _interactive():
        groups = _ask(ctx, declared, is_tooling)
    tool = data.get("tool")
    if isinstance(tool, dict) and "tierlock" in tool and (groups or all_groups or args.extras):
        return _add_sources(args, ctx, path, text, data, groups=groups)
    from tierlock.tiers import uvinit

    proposal = propose(
        text,
        path,
        Asked(groups, args.extras, all_groups, register_marker=not args.no_pytest_marker),
        Around(
            workspace_members(root, data),
            environment_requires(root),
            test_dirs(root),
            _census_of(root),
            local_locked=uvinit.uses_uv_lock(root),
        ),
    )
    plugin_group: str | None = None
    if uvinit.uses_uv_lock(root):  # the tiers read uv.lock, and the pytest plugin joins the lock
        proposal, plugin_group = uvinit.for_uv_project(proposal, path)
    if not args.dry_run:
        if proposal.marker_file is not None and proposal.marker_text is not None:
            write_atomic(proposal.marker_file, proposal.marker_text.encode("utf-8"))
        write_atomic(path, proposal.text.encode("utf-8"))
    if ctx.ui.json_mode:
        ctx.ui.emit_json(_document(path, proposal, written=not args.dry_run))
        return EXIT_OK
    _print(ctx, path, proposal, dry_run=args.dry_run, plugin_group=plugin_group)
    return EXIT_OK


def _census_of(root: Path) -> Callable[[Sequence[CensusTier]], Census]:
    """The census of the project's tests (its pytest settings, its own modules) for the tiers init proposes."""

    def run(tiers: Sequence[CensusTier]) -> Census:
        from tierlock.census import census, import_paths, pytest_settings

        folders, patterns = pytest_settings(root)
        return census(root, tiers, folders=folders, patterns=patterns, paths=import_paths(root))

    return run


def _print(ctx: Context, path: Path, proposal: Proposal, *, dry_run: bool, plugin_group: str | None) -> None:
    from tierlock.tiers import uvinit

    verb = "would add" if dry_run else "added"
    inferred = proposal.inferred
    ctx.ui.line(f"{verb} [tool.tierlock] to {path} with {len(proposal.tiers)} tier(s) besides base:")
    ctx.ui.line(proposal.added.replace("\r\n", "\n").strip("\n"))
    for skipped in proposal.skipped:
        ctx.ui.line(f"skipped {skipped.source}: {skipped.reason}")
    for tier, parts in inferred.aggregates.items():
        ctx.ui.line(f"tier {tier} aggregates {', '.join(parts)}: it gets no tests of its own (theirs cover it)")
    if inferred.extras_left_out:
        names = " ".join(inferred.extras_left_out)
        ctx.ui.line(
            f"left out {len(inferred.extras_left_out)} extra(s) that only carry tooling (linters, docs builders, "
            f"test runners): {', '.join(inferred.extras_left_out)}"
        )
        ctx.ui.line(f"  to make some of them tiers, run: tierlock init --extras {names}  (name those you want)")
    if proposal.groups_left_out:
        names = " ".join(proposal.groups_left_out)
        ctx.ui.line(
            f"left out {len(proposal.groups_left_out)} dependency group(s), usually tooling rather than gating tiers: "
            f"{', '.join(proposal.groups_left_out)}"
        )
        ctx.ui.line(f"  to make some of them tiers, run: tierlock init --groups {names}  (name those you want)")
    for tier, files in inferred.unsettled.items():
        tests = sum(len(u.tests) for u in files)
        ctx.ui.line(
            f"not settled: tier {tier}: {tests} test(s) in {len(files)} file(s) need it beside tests that do not "
            "(a tests glob would gate those too); mark them @pytest.mark.tier("
            f"{tier!r}), listed by: tierlock census {tier}"
        )
    if proposal.marker_file is not None:
        ctx.ui.line(f"{verb} the tier marker to {proposal.marker_file.name} {proposal.marker_where}")
    if plugin_group is not None:
        ctx.ui.line(f"{verb} {uvinit.PLUGIN_DISTRIBUTION} (the pytest plugin) to the {plugin_group} dependency group")
    if not dry_run:
        ctx.ui.line(
            uvinit.next_step(plugin_group)
            if uvinit.uses_uv_lock(path.parent)
            else "next: review the table, then run: tierlock tiers && tierlock lock"
        )


def _add_sources(
    args: argparse.Namespace,
    ctx: Context,
    path: Path,
    text: str,
    data: dict[str, object],
    *,
    groups: list[str],
) -> int:
    """An existing table: add tiers for the named groups and extras (tomlkit round-trip; every other byte kept)."""
    from tierlock.tiers.init import Asked, add_sources
    from tierlock.tiers.reach import workspace_members

    asked = Asked(groups, args.extras, bool(args.all_groups))
    added, skipped, new_text = add_sources(text, path, asked, workspace_members(path.parent, data))
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
        return EXIT_OK
    verb = "would add" if args.dry_run else "added"
    for name, source in added:
        ctx.ui.line(f"{verb} tier {name} ({source}) to [tool.tierlock.tiers] in {path}")
    for s in skipped:
        ctx.ui.line(f"skipped {s.source}: {s.reason}")
    if not added and not skipped:
        ctx.ui.line("every named group and extra is already a tier; nothing changed")
    return EXIT_OK


def _document(path: Path, proposal: Proposal, *, written: bool) -> dict[str, object]:
    inferred = proposal.inferred
    return {
        "pyproject": str(path),
        "written": written,
        "added": proposal.added,
        "tiers": [
            {
                "name": n,
                "source": s,
                "layered_on": inferred.layered.get(n),
                "tests": list(inferred.tests.get(n, ())),
                "import_roots": {d: list(r) for d, r in inferred.import_roots.get(n, {}).items()},
                "aggregates": list(inferred.aggregates.get(n, ())),
            }
            for n, s in proposal.tiers
        ],
        "ci_require": list(inferred.ci_require),
        "unsettled": {
            tier: [{"file": u.file, "tests": list(u.tests), "other_tests": u.others} for u in files]
            for tier, files in inferred.unsettled.items()
        },
        "skipped": [{"name": s.name, "source": s.source, "reason": s.reason} for s in proposal.skipped],
        "groups_left_out": list(proposal.groups_left_out),
        "extras_left_out": list(inferred.extras_left_out),
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
