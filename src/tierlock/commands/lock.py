"""``tierlock lock [TIER...]``: compile each tier's exact closure with hashes into its lockfile."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from tierlock.errors import EXIT_BACKEND, EXIT_OK

if TYPE_CHECKING:
    from collections.abc import Sequence

    from tierlock.cli import Context
    from tierlock.lockfiles.lock import Locked, LockOptions, NotLocked
    from tierlock.lockfiles.resolvers import Backend
    from tierlock.tiers.model import Project

HELP = "compile each tier's exact closure (pins and hashes) into its lockfile"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("tiers", nargs="*", metavar="TIER", help="tiers to lock (default: every tier)")
    parser.add_argument(
        "--backend",
        choices=("auto", "uv", "pip", "pip-tools"),
        default=None,
        help="uv (universal lock) or pip-tools (this platform only); default: [tool.tierlock].backend, else auto",
    )
    parser.add_argument(
        "-U", "--upgrade", action="store_true", help="upgrade every package to its newest allowed version"
    )
    parser.add_argument(
        "-P",
        "--upgrade-package",
        action="append",
        default=[],
        metavar="NAME",
        help="upgrade this package only (repeatable); other pins are kept",
    )
    parser.add_argument("-i", "--index-url", metavar="URL", help="the package index (passed to the backend)")
    parser.add_argument("--extra-index-url", action="append", default=[], metavar="URL", help="an extra index")
    parser.add_argument("-f", "--find-links", action="append", default=[], metavar="DIR_OR_URL", help="find-links")
    parser.add_argument("--no-index", action="store_true", help="use no index, only --find-links")
    parser.add_argument("--dry-run", action="store_true", help="show the diff each lockfile would get; write nothing")


def run(args: argparse.Namespace, ctx: Context) -> int:
    from tierlock import lockstart

    try:
        if not args.dry_run:
            lockstart.start(ctx.argv)  # the last run's uv compiles, while the project is read (each checked first)
        code = _run(args, ctx)
    except BaseException:
        lockstart.abandon()
        raise
    lockstart.finish()
    return code


def _run(args: argparse.Namespace, ctx: Context) -> int:
    from tierlock.lockfiles.lock import LockFailed, lock_project
    from tierlock.lockfiles.resolvers import choose

    project = ctx.project()
    for name in args.tiers:
        project.tier(name)  # an unknown tier is a usage error before any work
    from tierlock.lockfiles.sources import refuse_locking

    refuse_locking(project, upgrade=args.upgrade, packages=args.upgrade_package)  # uv.lock is uv's to write
    if args.upgrade_package:
        from tierlock.lockassist import check_upgrade_names

        check_upgrade_names(project, args.upgrade_package, ctx.argv, ctx.prog)
    backend = choose(args.backend or project.backend, log=ctx.ui.detail)
    options = _options(args)
    if args.dry_run:
        from tierlock.commands.lock_dry_run import dry_run

        return dry_run(project, args.tiers, backend, options, ctx)
    failed: tuple[NotLocked, ...] = ()
    with ctx.ui.progress() as progress:
        try:
            done = lock_project(project, args.tiers, backend, options, progress=progress)
        except LockFailed as exc:  # every other tier was locked: report them, then every failure
            done, failed = list(exc.locked), exc.failures
    if ctx.ui.json_mode:
        ctx.ui.emit_json(
            {
                "ok": not failed,
                "backend": backend.name,
                "backend_version": backend.version(),
                "universal": backend.universal,
                "platform": backend.platform(),
                "locked": [d.to_dict(project) for d in done],
                "failed": [f.to_dict() for f in failed],
            }
        )
        return EXIT_BACKEND if failed else EXIT_OK
    _report(done, failed, backend, project, ctx)
    return EXIT_BACKEND if failed else EXIT_OK


def _options(args: argparse.Namespace) -> LockOptions:
    from tierlock.lockfiles.lock import LockOptions
    from tierlock.lockfiles.resolvers import IndexOptions

    return LockOptions(
        upgrade=args.upgrade,
        upgrade_packages=tuple(args.upgrade_package),
        index=IndexOptions(
            index_url=args.index_url,
            extra_index_urls=tuple(args.extra_index_url),
            find_links=tuple(_local(link) for link in args.find_links),
            no_index=args.no_index,
        ),
    )


def _report(
    done: Sequence[Locked], failed: Sequence[NotLocked], backend: Backend, project: Project, ctx: Context
) -> None:
    """The lines a person reads: each tier locked and its pin changes, then every tier not locked."""
    for d in done:
        what = "created" if d.created else ("updated" if d.changes else "unchanged pins")
        extra = "" if d.reason == "requested" else f" ({d.reason})"
        ctx.ui.line(f"{d.tier}: {project.relpath(d.path)}: {d.counted}, {what}{extra}")
        for change in d.changes:
            ctx.ui.line(f"  {change}")
        if d.sdist_only:  # built from source wherever they are installed: say it now, not at install time
            ctx.ui.line(f"  only an sdist (built from source on install): {', '.join(d.sdist_only)}")
        if d.artifacts.startswith("not recorded"):
            ctx.ui.line(f"  artifacts {d.artifacts}")
    scope = "universal" if backend.universal else f"this platform only: {backend.platform()}"
    ctx.ui.line(f"locked {len(done)} tier(s) with {backend.name} {backend.version()} ({scope})")
    if not failed:
        return
    lines = [f"ERROR {len(failed)} tier(s) not locked (their lockfiles are unchanged):"]
    for f in failed:
        lines.append(f"  {f.tier}: {f.message}")
        lines.extend(f"    | {line}" for line in (f.detail or "").splitlines())
        lines.append(f"    to fix: {f.remedy}")
    ctx.ui.alert(lines)  # even with -q: these are errors


def _local(link: str) -> str:
    """A find-links folder relative to where the user stands (the backend runs elsewhere)."""
    from pathlib import Path

    return link if "://" in link else str(Path(link).resolve())
