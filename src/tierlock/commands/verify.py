"""``tierlock verify``: run the setup and verification commands; bind the receipt to the tree."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tierlock.errors import EXIT_USAGE, TierlockError, UsageError

if TYPE_CHECKING:
    from tierlock.cli import Context
    from tierlock.evidence.runreceipt import Receipt
    from tierlock.evidence.verify import Result
    from tierlock.evidence.view import View
    from tierlock.output import UI

HELP = "run the runtime config's setup and verification commands; record a receipt bound to the commit and tree"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--config",
        metavar="FILE",
        help="the runtime config (default: discovered in the project folder, as in tierlock validate)",
    )
    parser.add_argument(
        "--only", nargs="+", metavar="KEY", help="run only these verification checks (setup still runs)"
    )
    parser.add_argument("--no-setup", action="store_true", help="skip the setup commands")
    parser.add_argument(
        "--allow-dirty",
        action="store_true",
        help="run on a tree with uncommitted changes (the receipt is marked dirty and never satisfies the gate)",
    )
    parser.add_argument(
        "--config-from",
        metavar="REF",
        help="run the setup and every verification check of the config REF holds (e.g. origin/main), "
        "found at REF as discovery finds it, whatever file the branch uses",
    )
    parser.add_argument(
        "--evidence-dir",
        metavar="DIR",
        help="where run folders go (default: <git dir>/tierlock/evidence, outside the working tree; "
        "a folder inside the tree is left out of the tree check)",
    )
    parser.add_argument(
        "--keep",
        type=_positive,
        default=None,
        metavar="N",
        help="keep the newest N runs, delete older ones (default: $TIERLOCK_EVIDENCE_KEEP, else 20)",
    )
    parser.add_argument(
        "--kill-grace",
        type=float,
        default=None,
        metavar="SECONDS",
        help="after a timeout or an interrupt, wait this long between SIGTERM and SIGKILL (default: 5)",
    )
    parser.add_argument("--fail-fast", action="store_true", help="stop at the first verification check that fails")
    parser.add_argument(
        "--twice",
        action="store_true",
        help="run the setup twice and fail unless the second run changes nothing (in the environment and the tree)",
    )
    parser.add_argument(
        "--no-repair",
        action="store_true",
        help="do not install a tier a failing check misses (by default: once, through install-tier, then verify again)",
    )


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError("keep at least 1 run")
    return value


def emit_line(ui: UI, document: dict[str, Any]) -> None:
    """The one JSON line of ``--json`` (compact: a caller reads one line)."""
    ui.json_line(document)  # redacted; the CLI then adds no second document on an error


def run(args: argparse.Namespace, ctx: Context) -> int:
    from tierlock.evidence import process, store
    from tierlock.evidence.config import InvalidConfig
    from tierlock.evidence.verify import Options, execute, prepare

    if args.kill_grace is not None and args.kill_grace < 0:
        raise UsageError("--kill-grace must be 0 or more seconds", remedy="tierlock verify --kill-grace 5")
    options = Options(
        config=Path(args.config) if args.config else None,
        project=Path(ctx.project_arg) if ctx.project_arg else None,
        only=args.only,
        no_setup=args.no_setup,
        allow_dirty=args.allow_dirty,
        config_from=args.config_from,
        evidence_dir=Path(args.evidence_dir) if args.evidence_dir else None,
        keep=args.keep or store.keep_from_env(),
        grace=process.GRACE_SECONDS if args.kill_grace is None else args.kill_grace,
        fail_fast=args.fail_fast,
        twice=args.twice,
        repair=not args.no_repair,
    )
    try:
        prepared = prepare(options)
    except InvalidConfig as err:
        return _invalid(err, ctx)
    except TierlockError as err:
        if not ctx.ui.json_mode:
            raise
        ctx.ui._json_written = True  # stderr gets the message; stdout gets the one line below
        ctx.ui.error(err)
        emit_line(ctx.ui, {"ok": False, "result": "refused", "exitCode": err.exit_code, "error": err.to_dict()})
        return err.exit_code
    view = _view(ctx)
    where = prepared.checkout
    bound = (
        f"commit {where.commit[:12]} (tree {where.tree[:12]})" if where and where.commit and where.tree else "unbound"
    )
    runs = 0 if options.no_setup else len(prepared.setup) * (2 if options.twice else 1)
    view.line(
        f"verify: {runs} setup and {len(prepared.checks)} verification command(s); {bound}; "
        f"environment {prepared.target.path} ({prepared.target.source})",
        "bold",
    )
    try:
        result = execute(prepared, view)
    finally:
        view.close()
    if ctx.ui.json_mode:
        emit_line(ctx.ui, result.summary())
    else:
        _report(result, ctx)
    return result.exit_code


def _view(ctx: Context) -> View:
    from tierlock.evidence import view

    return view.make(json_mode=ctx.ui.json_mode, fancy=ctx.ui.fancy, quiet=ctx.ui.quiet, stream=ctx.ui.stdout)


def _invalid(err: Any, ctx: Context) -> int:
    from tierlock.validators.renderers import RENDERERS

    result = err.result
    if ctx.ui.json_mode:
        ctx.ui._json_written = True
        ctx.ui.error(err)
        emit_line(
            ctx.ui,
            {"ok": False, "result": "invalid-config", "exitCode": EXIT_USAGE, "validation": RENDERERS["json"](result)},
        )
        return EXIT_USAGE
    for line in RENDERERS["text"](result):
        ctx.ui.note(line)
    ctx.ui.error(err)
    return EXIT_USAGE


def _report(result: Result, ctx: Context) -> None:
    receipt = result.receipt
    ui = ctx.ui
    for record in receipt.commands:
        if record.status != "passed" and record.tail:
            ui.line(f"--- last lines of {record.log['path']} ---", style="bold")
            for text in record.tail:
                ui.line(text)
            cut = record.tail_cut or {}
            if cut.get("lines") or cut.get("characters"):
                ui.line(
                    f"--- {cut.get('lines', 0)} earlier line(s) and {cut.get('characters', 0)} character(s) not shown"
                )
            else:
                ui.line("---")
    _report_stages(receipt, ctx)
    blocker = receipt.blocker
    if blocker:
        ui.line(f"blocked ({blocker.kind}): {blocker.reason}", style="bold red")
        ui.line(f"  to fix: {blocker.required_action}")
        ui.line(f"  log: {blocker.log}")
    checks = [c for c in receipt.commands if c.list == "verification"]
    failed = [c.name for c in checks if c.status != "passed"]
    passed = len(checks) - len(failed)
    summary = {
        "passed": f"passed: {passed} of {len(checks)} verification check(s)",
        "failed": f"FAILED: {len(failed)} of {len(checks)} verification check(s) failed ({', '.join(failed)})",
        "blocked": f"BLOCKED: {passed} of {len(checks)} verification check(s) passed; no verdict",
        "interrupted": "INTERRUPTED: the running command's process group was stopped",
    }[receipt.result]
    if receipt.result == "failed" and not failed:
        summary = (
            f"FAILED: the setup is not idempotent (--twice); {passed} of {len(checks)} verification check(s) passed"
        )
    ui.line(summary, style="bold green" if receipt.ok else "bold red")
    ui.line(f"receipt: {result.receipt_path}")
    if receipt.ok and not receipt.usable:
        ui.line("this receipt is not evidence: " + "; ".join(receipt.reasons), style="bold yellow")


def _report_stages(receipt: Receipt, ctx: Context) -> None:
    """The twice record, the repair and the processes that escaped, each in a line or two."""
    ui = ctx.ui
    twice = (receipt.setup or {}).get("twice")
    if twice is not None:
        counts = [
            f"run {run['run']}: "
            + ", ".join(
                f"{part} +{run[part]['added']} -{run[part]['removed']} ~{run[part]['changed']}"
                for part in ("environment", "tree")
            )
            for run in twice["runs"]
        ]
        ui.line(f"setup twice ({twice['commandsRun']} command(s) run): " + "; ".join(counts))
        if not twice["idempotent"] and len(twice["runs"]) == 2:
            from tierlock.evidence.idempotency import not_idempotent

            ui.line(not_idempotent(twice), style="bold red")
        elif twice["idempotent"]:
            first = (
                "the environment was already set up (run 1 changed nothing)"
                if twice["alreadySetUp"]
                else ("run 1 set the environment up")
            )
            ui.line(f"the setup is idempotent: {first}; run 2 changed nothing", style="green")
    repair = receipt.repair or {}
    if repair.get("attempted"):
        again = "verified again" if repair["reVerified"] else "not verified again"
        ui.line(f"repaired: install-tier {' '.join(repair['tiers'])} ({again}; only the second run counts)")
    for escaped in receipt.escaped or []:
        ui.line(
            f"a process escaped its command's group and was {'stopped' if escaped['stopped'] else 'NOT stopped'}: "
            f"pid {escaped['pid']} {escaped['command']}",
            style="bold yellow",
        )
