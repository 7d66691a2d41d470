"""``tierlock admit [--tier NAME...]``: the CI gate in one command."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tierlock.errors import EXIT_FAILED, EXIT_OK

if TYPE_CHECKING:
    import argparse

    from tierlock.cli import Context

HELP = "the CI gate: lockfiles in sync, runtime config valid, required tiers present; a summary or one JSON line"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--tier",
        action="append",
        default=[],
        metavar="NAME",
        help="a tier that must be present (repeatable; default: the project's ci-require)",
    )
    parser.add_argument(
        "--python",
        metavar="PATH",
        help="probe the environment of this interpreter or environment folder "
        "(default: as for install-tier and status: the active venv, else the project's environment: "
        "$TIERLOCK_PROJECT_ENVIRONMENT, $UV_PROJECT_ENVIRONMENT, [tool.tierlock].venv or .venv)",
    )


def run(args: argparse.Namespace, ctx: Context) -> int:
    from tierlock import environment
    from tierlock.admission import admit

    project = ctx.project()
    if args.tier or project.ci_require:  # the tiers to probe (none: no environment is looked at)
        environment.start_early(args.python)  # the target starts while the lockfiles and tests are checked
    result = admit(project, args.tier, args.python)
    document = {"ok": result.ok, **result.to_dict()}
    if ctx.ui.json_mode:
        ctx.ui.emit_json(document, one_line=True)
        return EXIT_OK if result.ok else EXIT_FAILED
    for part in result.parts:
        for problem in part.lines(verbose=ctx.ui.verbose):
            ctx.ui.note(f"admit: {part.name}: {problem}")
        if part.remedy and not part.ok:
            ctx.ui.note(f"admit: {part.name}: to fix: {part.remedy}")
    if ctx.ui.terminal:  # people: a summary
        from tierlock.commands.admit_summary import summary

        for line in summary(result):
            ctx.ui.line(line)
    else:  # CI logs and scripts: one JSON line
        ctx.ui.emit_json(document, one_line=True)
    return EXIT_OK if result.ok else EXIT_FAILED
