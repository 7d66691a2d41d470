"""Findings and their remedies: one finding per tier and file, with the fix that gates what really needs the tier.

* a file that needs the tier at import, in every test (an autouse fixture, a
  ``pytestmark``), or in each of its tests: add the file to the tier's
  ``tests`` globs;
* a file where only some tests need it: mark those tests
  ``@pytest.mark.tier(...)`` (named, with their lines); adding the file would
  also gate its other tests, and the remedy says how many;
* a ``conftest.py`` that needs it at import: every test below it fails
  without the tier, so its folder is the glob (``tests/io/**``). A conftest
  *fixture* that needs a tier is never a finding of the conftest: its users
  are the findings (adding the conftest to a glob would silence nothing
  real, since pytest still loads it for the tests that use the fixture).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tierlock.census.finding import Finding, Use

if TYPE_CHECKING:
    from tierlock.census.report import Census, TierReport

#: How many tests a remedy names before "and N more".
SHOWN = 5


def findings(census: Census) -> list[Finding]:
    out: list[Finding] = []
    for report in census.tiers:
        if not report.gates:
            continue
        out.extend(glob_findings(report))
        by_file: dict[str, list[Use]] = {}
        for use in report.outside:
            by_file.setdefault(use.file, []).append(use)
        for file, uses in by_file.items():
            out.append(importer(report.tier, file, uses, census.tests.get(file, [])))
    return out


def glob_findings(report: TierReport) -> list[Finding]:
    out = []
    for glob in report.globs:
        if report.glob_matches.get(glob):
            continue
        hint = report.glob_hints.get(glob)
        out.append(
            Finding(
                report.tier,
                "census-glob",
                "pyproject.toml",
                None,
                f"tests glob {glob!r} matches no file",
                f"fix the glob in [tool.tierlock.tiers.{report.tier}].tests (a typo gates nothing)"
                + (f"; did you mean {hint!r}?" if hint else ""),
            )
        )
    return out


def importer(tier: str, file: str, uses: list[Use], tests: list[tuple[str, int]]) -> Finding:
    """The finding for the uses of *tier* in *file* that no gate covers."""
    where = f"[tool.tierlock.tiers.{tier}].tests"
    first = uses[0]
    lines = sorted({u.line for u in uses})
    needing = list(dict.fromkeys(u.test for u in uses if u.test))  # only a use of scope test names its test
    if file.endswith("conftest.py") and first.scope == "module":
        folder = file.rsplit("/", 1)[0] if "/" in file else ""
        glob = f"{folder}/**" if folder else "**"
        finding = Finding(
            tier,
            "census-importer",
            file,
            first.line,
            f"needs tier {tier} ({first.how}) when pytest loads it: every test below it fails without the tier",
            f'add "{glob}" to {where} (the folder: the conftest and every test it serves), '
            f"or import {first.root or 'it'} inside the fixtures that need it",
        )
        finding.fix = {"tests": [glob]}
    elif any(u.scope != "test" for u in uses) or not tests or set(needing) >= {t for t, _ in tests}:
        module = any(u.scope == "module" for u in uses)
        finding = Finding(
            tier,
            "census-importer",
            file,
            first.line,
            f"needs tier {tier} ({first.how}) outside its tests globs" + _more(uses),
            f'add "{file}" to {where}'
            + ("" if module else f", or mark its tests: pytestmark = pytest.mark.tier({tier!r})"),
        )
        finding.fix = {"tests": [file]}
    else:
        finding = _mark(tier, file, uses, tests, needing)
    finding.lines = lines
    finding.roots = sorted({u.root for u in uses if u.root})
    return finding


def _mark(tier: str, file: str, uses: list[Use], tests: list[tuple[str, int]], needing: list[str]) -> Finding:
    at = dict(tests)
    named = [f"{t} (line {at[t]})" for t in needing[:SHOWN]]
    if len(needing) > SHOWN:
        named.append(f"and {len(needing) - SHOWN} more")
    others = len(tests) - len(needing)
    count = "the test" if len(needing) == 1 else f"the {len(needing)} tests"
    finding = Finding(
        tier,
        "census-importer",
        file,
        uses[0].line,
        f"{len(needing)} of its {len(tests)} tests need tier {tier} ({uses[0].how}) outside its tests globs",
        f"mark {count} @pytest.mark.tier({tier!r}): {', '.join(named)}; "
        f'or add "{file}" to [tool.tierlock.tiers.{tier}].tests, which also gates its {others} other test(s)',
    )
    finding.fix = {"mark": [{"test": t, "line": at[t]} for t in needing]}
    return finding


def _more(uses: list[Use]) -> str:
    places = len({(u.line, u.how) for u in uses})
    return f" and {places - 1} more place(s)" if places > 1 else ""


def ci_warnings(census: Census, ci_declared: bool) -> list[Finding]:
    """Tiers that gate their tests by markers only while ``ci-require`` is left to its default (tiers with globs)."""
    if ci_declared:
        return []
    out = []
    for report in census.tiers:
        if report.markers and not report.globs:
            out.append(
                Finding(
                    report.tier,
                    "census-ci",
                    "pyproject.toml",
                    None,
                    f"tier {report.tier} gates its tests by tier markers only, and without ci-require only tiers "
                    "with tests globs are required: CI would not fail when it is missing",
                    f'add ci-require = [..., "{report.tier}"] to [tool.tierlock] (every tier CI must have)',
                )
            )
    return out
