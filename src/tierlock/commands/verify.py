"""``tierlock verify``: run the setup and verification commands; bind the receipt to the tree."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tierlock.errors import TierlockError, UsageError

if TYPE_CHECKING:
    from tierlock.cli import Context
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
        help="also run every verification check of the config committed at REF (e.g. origin/main)",
    )
    parser.add_argument(
        "--evidence-dir",
        metavar="DIR",
        help="where run folders go (default: <git dir>/tierlock/evidence, outside the working tree)",
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
    from tierlock.evidence import receipt
    from tierlock.evidence import run as runner
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
        keep=args.keep or receipt.keep_from_env(),
        grace=runner.GRACE_SECONDS if args.kill_grace is None else args.kill_grace,
        fail_fast=args.fail_fast,
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
    view.line(
        f"verify: {len(prepared.setup) if not options.no_setup else 0} setup and {len(prepared.checks)} "
        f"verification command(s); {bound}",
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
    from tierlock.validators.report import RENDERERS

    result = err.result
    if ctx.ui.json_mode:
        ctx.ui._json_written = True
        ctx.ui.error(err)
        emit_line(
            ctx.ui,
            {"ok": False, "result": "invalid-config", "exitCode": 2, "validation": RENDERERS["json"](result)},
        )
        return 2
    for line in RENDERERS["text"](result):
        ctx.ui.note(line)
    ctx.ui.error(err)
    return 2


def _report(result: Result, ctx: Context) -> None:
    doc = result.document
    ui = ctx.ui
    for record in doc["commands"]:
        if record["status"] != "passed" and record["tail"]:
            ui.line(f"--- last lines of {record['log']['path']} ---", style="bold")
            for text in record["tail"]:
                ui.line(text)
            ui.line("---")
    blocker = doc["blocker"]
    if blocker:
        ui.line(f"blocked ({blocker['kind']}): {blocker['reason']}", style="bold red")
        ui.line(f"  to fix: {blocker['requiredAction']}")
        ui.line(f"  log: {blocker['log']}")
    checks = [c for c in doc["commands"] if c["list"] == "verification"]
    failed = [c.get("key") or c["command"] for c in checks if c["status"] != "passed"]
    passed = len(checks) - len(failed)
    style = "bold green" if doc["ok"] else "bold red"
    summary = {
        "passed": f"passed: {passed} of {len(checks)} verification check(s)",
        "failed": f"FAILED: {len(failed)} of {len(checks)} verification check(s) failed ({', '.join(failed)})",
        "blocked": f"BLOCKED: {passed} of {len(checks)} verification check(s) passed; no verdict",
        "interrupted": "INTERRUPTED: the running command's process group was stopped",
    }[doc["result"]]
    ui.line(summary, style=style)
    ui.line(f"receipt: {result.receipt_path}")
    if doc["ok"] and not doc["evidence"]["usable"]:
        ui.line("this receipt is not evidence: " + "; ".join(doc["evidence"]["reasons"]), style="bold yellow")
