"""``tierlock install TIER...`` (and its twin script ``install-tier``)."""

from __future__ import annotations

import argparse
import time
from typing import TYPE_CHECKING

from tierlock.errors import EXIT_OK

if TYPE_CHECKING:
    from tierlock.cli import Context
    from tierlock.installer.fastpath import NoOp
    from tierlock.installer.plan import Action, Plan
    from tierlock.installer.run import Outcome

HELP = "arm tiers in an environment exactly from their lockfiles, repairing husks"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("tiers", nargs="*", metavar="TIER", help="the tiers to arm (with what they are layered on)")
    target_arguments(parser)
    parser.add_argument(
        "--backend",
        choices=("auto", "uv", "pip", "pip-tools"),
        default=None,
        help="installer backend (default: [tool.tierlock].backend, else auto = uv when available, else pip; "
        "pip-tools means pip)",
    )
    from tierlock import indexopts

    indexopts.add_arguments(parser)
    parser.add_argument("--dry-run", action="store_true", help="print the plan; install nothing, write nothing")
    parser.add_argument(
        "--replace-armed",
        action="store_true",
        help="replace packages another armed tier pins, on purpose (that tier's receipt is marked stale)",
    )
    parser.add_argument(
        "--armed",
        action="store_true",
        help="also every tier that has a receipt in the target (with no TIER named, this is the default)",
    )
    parser.add_argument(
        "--deep",
        action="store_true",
        help="also compare every installed file with its RECORD hash and repair the packages that differ",
    )
    parser.add_argument(
        "--no-install-project",
        action="store_true",
        help="do not install the project itself from its tree (by default a project that is a package is "
        "installed editable, as uv sync does; workspace members the lock reaches still are)",
    )
    parser.add_argument("--reinstall", action="store_true", help="reinstall every package of the tiers")
    parser.add_argument(
        "--reinstall-package",
        metavar="NAME",
        action="append",
        default=[],
        help="reinstall this locked package even when it is whole (repeatable)",
    )


def target_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--python",
        metavar="PATH",
        default=None,
        help="the interpreter (or environment folder) to act on (default: the active venv, else the project's "
        "environment: $TIERLOCK_PROJECT_ENVIRONMENT, $UV_PROJECT_ENVIRONMENT, [tool.tierlock].venv or .venv)",
    )
    parser.add_argument(
        "--system",
        action="store_true",
        help="allow a target that is not a virtual environment (never an externally managed one)",
    )


def run(args: argparse.Namespace, ctx: Context) -> int:
    started = time.perf_counter()
    pending = None
    forcing = args.deep or args.reinstall or args.reinstall_package or args.armed
    if not args.dry_run and args.tiers and not forcing:
        # The no-op fast path: receipts and stat() only; no project loading, no planning, no subprocess.
        # (The console scripts try it before argparse already, in tierlock._entry.)
        from tierlock.installer import fastpath

        noop, why = fastpath.try_noop(
            args.tiers,
            project_arg=ctx.project_arg,
            python=args.python,
            system=args.system,
            install_project=not args.no_install_project,
        )
        if noop is not None:
            return report_noop(noop, ctx, time.perf_counter() - started)
        ctx.ui.detail(f"full plan: {why}")
        from tierlock import environment

        pending = environment.start(args.python)  # the target starts while the project loads

    from tierlock import indexopts
    from tierlock.installer.run import Request, install

    project = ctx.project()
    request = Request(
        tiers=tuple(args.tiers),
        python=args.python,
        system=args.system,
        backend="pip" if args.backend == "pip-tools" else args.backend,
        dry_run=args.dry_run,
        index=indexopts.requirement_lines(indexopts.from_args(args)) if indexopts.given(args) else (),
        replace_armed=getattr(args, "replace_armed", False),
        deep=args.deep,
        reinstall=args.reinstall,
        reinstall_packages=tuple(args.reinstall_package),
        armed=args.armed,
        install_project=not getattr(args, "no_install_project", False),
    )
    outcome = install(project, request, ctx.ui, pending=pending)
    if ctx.ui.json_mode:
        ctx.ui.emit_json(outcome.to_json())
    else:
        report(outcome, ctx)
    return EXIT_OK


def report_noop(noop: NoOp, ctx: Context, duration: float) -> int:
    from tierlock.installer import fastpath

    if ctx.ui.json_mode:
        ctx.ui.emit_json(fastpath.to_json(noop, duration))
    else:
        ctx.ui.line(fastpath.summary(noop))
    return EXIT_OK


def report(outcome: Outcome, ctx: Context) -> None:
    ui = ctx.ui
    tiers = ", ".join(outcome.tiers)
    if outcome.result == "unchanged" and outcome.plan is None:
        ui.line(
            f"{tiers}: already present ({outcome.packages} package(s), "
            f"{outcome.files_checked} file(s) checked against the receipt); nothing to do"
        )
        return
    plan = outcome.plan
    if plan is None:
        return
    if outcome.result == "planned":
        rows = [[s.action, s.entry.name, str(s.entry.version), s.reason] for s in plan.steps]
        counts = plan.counts()
        summary = ", ".join(f"{n} to {a}" if a != "satisfied" else f"{n} satisfied" for a, n in counts.items())
        ui.table(f"plan for {tiers} in {outcome.prefix}: {summary}", ["action", "package", "version", "why"], rows)
        return
    if outcome.result == "unchanged":  # a receipt that was missing (an arming interrupted after its backend) is written
        done = "receipt written" if outcome.receipts else "nothing to do"
        ui.line(f"{tiers}: already present ({outcome.packages} package(s) verified by the probe); {done}")
        return
    for path in outcome.cleared:
        ui.line(f"  deleted {path}: left by an interrupted pip uninstall or upgrade")
    receipt = "receipt written" if outcome.receipts else "receipt unchanged (it already said this)"
    ui.line(
        f"{tiers}: {outcome.result} - {_changed(outcome, plan)} with {outcome.backend} "
        f"in {outcome.duration:.1f}s; verified by the probe, {receipt}"
    )


def _changed(outcome: Outcome, plan: Plan) -> str:
    """What the backend did: ``1 installed of 2 package(s)``, and the packages of the project's tree it installed
    (``app from the project tree``, alone when every pinned package was there already)."""
    changed = ", ".join(f"{len(plan.of(a))} {done}" for a, done in _DONE if plan.of(a))
    tree = [str(s.package.name) for s in outcome.local if s.action == "install"]
    if not tree:
        return f"{changed} of {outcome.packages} package(s)"
    built = f"{', '.join(tree)} from the project tree"
    if not changed:
        return f"{built} ({outcome.packages} package(s) already present)"
    return f"{changed} of {outcome.packages} package(s), and {built},"


_DONE: tuple[tuple[Action, str], ...] = (("install", "installed"), ("replace", "replaced"), ("repair", "repaired"))
