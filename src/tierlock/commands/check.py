"""``tierlock check [TIER...]``: offline drift and integrity check of the lockfiles."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tierlock.errors import EXIT_FAILED, EXIT_OK

if TYPE_CHECKING:
    import argparse
    from collections.abc import Sequence

    from tierlock.cli import Context
    from tierlock.lockfiles.coverage import TierCoverage

#: Plain lines even on a terminal: the check is a fast path and never imports rich.
PLAIN = True
HELP = "check offline that every tier's lockfile matches its declaration (exit 1 on any problem)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "tiers",
        nargs="*",
        metavar="TIER",
        help="tiers to check, with the tiers they are layered on (default: every tier)",
    )
    parser.add_argument(
        "--strict",
        action="store_true",
        help="fail where a CI run fails (the pytest gate switched off), not only warn: for pre-commit hooks",
    )


def run(args: argparse.Namespace, ctx: Context) -> int:
    from tierlock.lockfiles.check import check, counted, merged_remedies

    project = ctx.project()
    report = check(project, args.tiers)
    # The census (tierlock.census): importers outside their tier's tests globs, globs matching no file.
    from tierlock.census import project_census

    result = project_census(project, args.tiers)
    census = result.findings()
    # The plugin switched off (-p no:tierlock, autoload disabled): nothing gates the tests; in CI that fails closed.
    from tierlock.gateoff import verdict

    off, strict = verdict(project.root)
    strict = strict or (bool(off) and args.strict)  # (a pre-commit hook judges a commit as CI will)
    ok = report.ok and not census and not strict
    if ctx.ui.json_mode:
        document = {**report.to_dict(), "ok": ok, "census": [f.to_dict() for f in census]}
        document["census_warnings"] = [w.to_dict() for w in result.warnings]
        document["gate_off"] = [o.to_dict() for o in off]
        ctx.ui.emit_json(document)
        return EXIT_OK if ok else EXIT_FAILED
    for finding in report.findings:
        ctx.ui.line(finding.render())
    for problem in census:
        ctx.ui.line(f"{problem.render()}; to fix: {problem.remedy}")
    for warning in result.warnings:
        ctx.ui.line(f"warning: {warning.render()}; to fix: {warning.remedy}")
    for place in off:
        ctx.ui.line(place.said(strict))
    for note in _notes(report.coverage):  # what a tier that may build would build from source
        ctx.ui.line(note)
    remedies = merged_remedies(f.remedy for f in report.findings)
    if any(f.fix for f in census):
        remedies.append("tierlock census --fix  (applies every census fix above)")
    tiers = counted(report)
    if ok:
        ctx.ui.line(f"ok: {tiers}; every lockfile matches its declaration{_proven(report.coverage)}")
        return EXIT_OK
    ctx.ui.line(f"{len(report.findings) + len(census) + (len(off) if strict else 0)} problem(s): {tiers}")
    for remedy in [*remedies, *(o.remedy for o in off if strict)]:
        ctx.ui.line(f"  to fix: {remedy}")
    return EXIT_FAILED


def _notes(covered: Sequence[TierCoverage]) -> list[str]:
    """:func:`tierlock.lockfiles.nobuild.notes` (none without a coverage: its module is then not loaded)."""
    if not covered:
        return []
    from tierlock.lockfiles.nobuild import notes

    return notes(covered)


def _proven(covered: Sequence[TierCoverage]) -> str:
    """:func:`tierlock.lockfiles.nobuild.proven` ("" without a coverage: its module is then not loaded)."""
    if not covered:
        return ""
    from tierlock.lockfiles.nobuild import proven

    return proven(covered)
