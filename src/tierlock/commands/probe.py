"""``tierlock probe [TIER...]``: is each tier consumable here? Files only, no imports."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tierlock.errors import EXIT_FAILED, EXIT_OK

if TYPE_CHECKING:
    import argparse
    from collections.abc import Mapping, Sequence
    from pathlib import Path

    from tierlock.cli import Context
    from tierlock.installer.rearm import Rearming
    from tierlock.probing import DistributionProbe, TierProbe
    from tierlock.tiers import Project

#: Plain lines even on a terminal: the probe is a fast path and never imports rich.
PLAIN = True
HELP = "check from files alone (never importing) whether tiers are present, partial or absent"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("tiers", nargs="*", metavar="TIER", help="tiers to probe (default: every declared tier)")
    parser.add_argument(
        "--closure", action="store_true", help="also probe every package of the tier's lockfile for this environment"
    )
    parser.add_argument("--deep", action="store_true", help="also verify the RECORD hash of every installed file")
    parser.add_argument(
        "--python",
        metavar="PATH",
        help="probe the environment of this interpreter or environment folder "
        "(default: as for install-tier and status: the active venv, else the project's environment: "
        "$TIERLOCK_PROJECT_ENVIRONMENT, $UV_PROJECT_ENVIRONMENT, [tool.tierlock].venv or .venv)",
    )


def document(results: list[TierProbe], answers: Mapping[str, Rearming] | None = None) -> dict[str, Any]:
    """The --json document (*answers*: per tier not present, what re-arming it does to the others probed)."""
    return {
        "ok": all(r.present for r in results),
        "python": str(results[0].python) if results else None,
        "tiers_checked": len(results),
        "packages_checked": sum(len(r.checked) for r in results),
        "files_checked": sum(r.files_checked for r in results),
        "tiers": [_row(r, (answers or {}).get(r.tier)) for r in results],
    }


def _row(probed: TierProbe, answer: Rearming | None) -> dict[str, Any]:
    row = probed.to_dict()
    if answer is not None and answer.remedy != probed.install_command:
        from tierlock.remedies import argv_of

        row.update(remedy=answer.remedy, remedy_argv=argv_of(answer.remedy))
    row["stales"] = list(answer.loops) if answer is not None else []
    row["apart_from"] = list(answer.apart) if answer is not None else []
    return row


def _rearmable(
    project: Project, prefix: Path, results: Sequence[TierProbe], tiers: Sequence[str]
) -> tuple[list[TierProbe], dict[str, Rearming]]:
    """*results* with the install command install-tier accepts here (``--replace-armed`` when another armed
    tier pins what it replaces: :mod:`tierlock.installer.rearm`), and per tier not present what re-arming it does
    to the other tiers probed and required (*tiers*, ``ci-require``): a present tier's as it is (no remedy)."""
    missing = [r for r in results if not r.present]
    if not missing:
        return list(results), {}
    from tierlock.frozen import replace
    from tierlock.installer import rearm

    wanted = {*tiers, *(str(t) for t in project.ci_require)}
    present = [r.tier for r in results if r.present]
    answers = {r.tier: rearm.rearming(project, prefix, r, wanted, present) for r in missing}
    out = [
        r
        if r.present or answers[r.tier].command == r.install_command
        else replace(r, install_command=answers[r.tier].command)
        for r in results
    ]
    return out, answers


def run(args: argparse.Namespace, ctx: Context) -> int:
    from tierlock import environment

    environment.start_early(args.python)  # the target starts (or its kept answer is read) while the project loads

    from tierlock.installer.location import resolve_existing
    from tierlock.probing import Prober

    # The same target as install-tier and status (--python, else the active venv, else the project's own).
    project = ctx.project()
    # An unknown tier is a usage error before the environment is looked at.
    tiers = project.select(list(args.tiers or ()))
    target = resolve_existing(args.python, project, [t.name for t in tiers])
    prober = Prober(project, target, python=args.python)  # remedies name --python as it was given
    results = [prober.probe(t, closure=args.closure, deep=args.deep) for t in tiers]
    results, answers = _rearmable(project, target.prefix, results, [t.name for t in tiers])
    if ctx.ui.json_mode:
        ctx.ui.emit_json(document(results, answers))
    else:
        render(results, ctx, answers)
    return EXIT_OK if all(r.present for r in results) else EXIT_FAILED


def _reasons(r: TierProbe, broken: list[DistributionProbe], ctx: Context, *, verbose: bool) -> None:
    """The reasons of the *broken* packages of *r*, capped as :mod:`tierlock.volume` caps them (loaded here: a
    tier that is all there has none)."""
    from tierlock import volume

    for d in broken if verbose else broken[: volume.PACKAGES]:
        shown = volume.capped(d.reasons, verbose=verbose, what="reason", hint=volume.CLI_HINT, limit=volume.REASONS)
        for text in shown:
            ctx.ui.line(f"  {_label(r.tier, d)} — {text}")
    if not verbose and len(broken) > volume.PACKAGES:
        ctx.ui.line(f"  {r.tier}: {volume.more(len(broken) - volume.PACKAGES, 'package', volume.CLI_HINT)}")


def render(results: list[TierProbe], ctx: Context, answers: Mapping[str, Rearming] | None = None) -> None:
    rows = []
    for r in results:
        ok = sum(1 for d in r.checked if d.present)
        rows.append([r.tier, r.state, f"{ok}/{len(r.checked)}", str(r.files_checked)])
    python = results[0].python if results else None
    ctx.ui.table(f"probe of {len(results)} tier(s) in {python}", ["tier", "state", "present", "files checked"], rows)
    verbose = ctx.ui.verbose
    for r in results:
        broken = [d for d in r.checked if d.reasons]
        if broken:
            _reasons(r, broken, ctx, verbose=verbose)
        for d in r.checked:
            if verbose or d.state == "present-editable":
                for note in d.notes:
                    ctx.ui.line(f"  {_label(r.tier, d)} — note: {note}")
        for note in r.notes:
            ctx.ui.line(f"  {r.tier}: note: {note}")
        if not r.present:
            _fix(r, (answers or {}).get(r.tier), ctx)


def _fix(r: TierProbe, answer: Rearming | None, ctx: Context) -> None:
    """The remedy of a tier not present: its install, or why re-arming it is not the fix and what is."""
    if answer is None:
        ctx.ui.line(f"  {r.tier} is {r.state}; to fix: {r.install_command}")
        return
    from tierlock.installer.rearm import said

    why = said(answer)
    if why is not None:
        ctx.ui.line(f"  {r.tier}: {why}")
    if answer.remedy is not None:
        ctx.ui.line(f"  {r.tier} is {r.state}; to fix: {answer.remedy}")


def _label(tier: str, dist: DistributionProbe) -> str:
    """``brain: numpy partial 2.3.3``: the tier, the package, its state and the version read."""
    return f"{tier}: {dist.name} {dist.state}" + (f" {dist.version}" if dist.version else "")
