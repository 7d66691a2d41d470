"""What the plugin prints: the header, the summary, and the lines of a run that fails closed.

The header and the summary name only the tiers that matter in this run
(:meth:`Gate.relevant`), damaged tiers always. The header says what the gate
read before collection; the summary counts what happened, per tier:

* test files not collected (gated files the run selected);
* tests skipped because the tier is missing: tests marked ``tier(...)``,
  tests named inside a gated file, and every skip, error or failure the
  run-time backstop attributed to the tier.
"""

from __future__ import annotations

import os

from tierlock import volume
from tierlock.errors import EXIT_TIER_MISSING
from tierlock.pytest_plugin.decision import Gate
from tierlock.pytest_plugin.strictness import COVERAGE_LOSS, JOB_TIERS_VAR

NOT_IMPORTED = "named on the command line but not imported:"
#: The skip reason of a test named inside a gated file (``file.py::test``): one skipped test.
NAMED_NOT_IMPORTED = "in a gated file, not imported:"
_SHOWN = volume.PACKAGES
"""How many tests a fail-closed block names per tier before saying how many more."""
#: How to see every line a listing cut short.
HINT = "pytest -v lists them all"


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'s' if count != 1 else ''}"


def _mode(gate: Gate) -> str:
    mode = f"tierlock: {'strict' if gate.strict else 'lenient'} ({gate.why})"
    if gate.job:
        mode += f"; matrix job {JOB_TIERS_VAR}={' '.join(gate.job)}: other tiers' tests are not collected"
    return mode


def _missing(gate: Gate, tier: str) -> bool:
    return gate.states.get(tier) != "present" or tier in gate.damaged


def _selected(gate: Gate, tier: str) -> bool:
    return bool(gate.globbed.get(tier) or gate.needed.get(tier))


def _part(gate: Gate, tier: str) -> str:
    part = f"{tier} {gate.state_of(tier)}"
    if gate.outside_job(tier):
        return part + " (another matrix job)"
    if _missing(gate, tier) and not _selected(gate, tier):
        known = "selected" if gate.exact else "known before collection"  # (a conftest computes collect_ignore)
        part += f" (none of its test files {known})"
    return part


def _listing(lines: list[str], verbose: bool) -> list[str]:
    """A tier's package lines: the first few, each with its first reasons (all of them with ``-v``)."""
    shortened = [volume.shorten(line, verbose=verbose, hint=HINT) for line in lines]
    return volume.capped(shortened, verbose=verbose, hint=HINT)


def header_lines(gate: Gate, *, verbose: bool = False) -> list[str]:
    relevant = gate.relevant()
    if not relevant:
        line = f"tierlock: no tier gates a test of this run ({_plural(len(gate.states), 'tier')} checked)"
        return [line, _mode(gate)]
    line = "tierlock: " + " · ".join(_part(gate, t) for t in relevant)
    counted = []
    if not gate.exact:
        counted.append("its test files are counted at collection (a conftest computes collect_ignore)")
    elif gate.expected:
        counted.append(f"{_plural(gate.expected, 'test file')} not collected")
    if gate.named:
        counted.append(f"{_plural(gate.named, 'named test')} skipped")
    missing = [t for t in relevant if _missing(gate, t) and not gate.outside_job(t)]
    needed = [t for t in missing if _selected(gate, t)]
    fix = [t for t in missing if t in gate.damaged and t not in needed]
    if needed:
        line += f" — {' and '.join(counted) + '; ' if counted else ''}to run them: {gate.remedy(needed)}"
    elif fix:
        line += f"; to fix: {gate.remedy(fix)}"
    lines = [line, _mode(gate), *(f"tierlock: {why}" for why in gate.outside[:1] if missing)]
    for tier in missing:
        shown = gate.damaged.get(tier) or [t for t in gate.broken.get(tier, []) if " absent — " not in t]
        lines.extend(f"tierlock:   {tier}: {text}" for text in _listing(shown, verbose))
    return lines


def _skipped(gate: Gate, tier: str) -> int:
    return sum(1 for _, what, outcome in gate.at_run.get(tier, []) if outcome == "skipped" and NOT_IMPORTED not in what)


def _failed(gate: Gate, tier: str) -> int:
    """Tests the backstop attributed to *tier* that kept their failure or error (a strict run fails closed on them)."""
    return sum(1 for _, _, outcome in gate.at_run.get(tier, []) if outcome != "skipped")


def summary_lines(gate: Gate) -> list[str]:
    """One line per tier that is missing here: what the run left out because of it, and its remedy."""
    reached = gate.reached()
    missing = [t for t in gate.relevant() if _missing(gate, t) or gate.outside_job(t)]
    missing += [t for t in gate.at_run if t not in missing]
    # (a module the project's conftest left out after a failed import, which no static reading tied to the tier)
    missing += [t for t in gate.states if reached.get(t) and t not in missing]
    if not missing:
        return [f"tierlock: every tier this run needs is present ({_plural(len(gate.states), 'tier')} checked)"]
    lines = []
    for tier in missing:
        files, skipped, failed = len(reached.get(tier, ())), _skipped(gate, tier), _failed(gate, tier)
        why = f"{tier} runs in another matrix job" if gate.outside_job(tier) else f"{tier} {gate.state_of(tier)}"
        fix = gate.matrix() if gate.outside_job(tier) else gate.remedy(_together(gate, tier, reached))
        if not files and not skipped and not failed:
            needed = gate.needed.get(tier, 0)  # read before collection: their skips named no package
            verb = "needs" if needed == 1 else "need"
            said = f"{_plural(needed, 'selected test file')} {verb} it; to run them: {fix}" if needed else ""
            lines.append(f"tierlock: {why}; {said or 'none of its tests were selected'}")
            continue
        counts = f"{_plural(files, 'test file')} not collected and {_plural(skipped, 'test')} skipped"
        if failed:
            counts = counts.replace(" and ", ", ", 1) + f" and {_plural(failed, 'test')} failed"
        lines.append(f"tierlock: {counts} because {why}; to run them: {fix}")
    return lines


def _together(gate: Gate, tier: str, reached: dict[str, set[str]]) -> list[str]:
    """*tier*, then every other missing tier a test or test file left out for it needs too (so its remedy runs
    them all): a test skipped for several tiers, a file several tiers' globs gate (*reached*: tier -> files)."""
    ids = {nodeid for nodeid, _, _ in gate.at_run.get(tier, [])}
    files = reached.get(tier, set())
    out = [tier]
    for other in [*gate.at_run, *reached]:
        if other in out or gate.outside_job(other):  # (another matrix job's tier is armed there, not here)
            continue
        if any(e[0] in ids for e in gate.at_run.get(other, [])) or not files.isdisjoint(reached.get(other, ())):
            out.append(other)
    return out


def _required(gate: Gate, tier: str) -> str:
    return f"required in this matrix job ({JOB_TIERS_VAR})" if tier in gate.job else "required in CI (ci-require)"


def fail_closed_message(gate: Gate, failing: list[str], *, verbose: bool = False) -> list[str]:
    """The lines a strict run prints once before collection: what is missing or damaged, and the one fix."""
    lines: list[str] = []
    for tier in failing:
        if tier in gate.damaged:
            lines.append(f"tierlock: tier {tier} is {_required(gate, tier)} and it is damaged:")
            lines.extend(f"  - {line}" for line in _listing(gate.damaged[tier], verbose))
            lines.append("  damage is never intended, whatever this run selects")
            lines.extend(_looping(gate, tier))
            continue
        lines.append(f"tierlock: tier {tier} is {_required(gate, tier)} but it is {gate.states[tier]}:")
        lines.extend(f"  - {line}" for line in _listing(gate.broken[tier], verbose))
        if tier in gate.apart:
            lines.append(
                f"  it is declared in conflict with {gate.apart[tier]}, present here: one environment never holds "
                f"both; test each in its own job ({JOB_TIERS_VAR})"
            )
        lines.extend(_looping(gate, tier))
        needed = gate.globbed.get(tier, 0) + gate.needed.get(tier, 0)
        if needed:
            lines.append(f"  this run selects {needed} test file(s) that need it")
    lines.extend(f"  {why}" for why in gate.outside[:1])
    lines.append(f"  to fix: {gate.remedy(failing)}")
    lines.append(
        f"tierlock: stopping before collection ({gate.why}), because {COVERAGE_LOSS}. "
        f"Exit code {EXIT_TIER_MISSING}. To run without the tier on purpose: --tierlock-lenient or TIERLOCK_STRICT=0."
    )
    return lines


def _looping(gate: Gate, tier: str) -> list[str]:
    """Why no install-tier is the fix: re-arming *tier* makes stale another tier this run needs too."""
    others = gate.loops(tier)
    if not others:
        return []
    return [
        f"  its lock and {', '.join(others)}'s pin a package differently, and this run needs both: re-arming one "
        "makes the other stale; tierlock check names the edit that lets the two locks agree"
    ]


def _kept_out(gate: Gate, rel: str) -> str:
    """Why a test file of a tier was not collected: its globs, or the project's code ignored it (it needs the tier)."""
    if gate.tiers_of(rel.replace(os.sep, "/")):
        return "a test file of its globs"
    return "a test file that needs it, ignored by the project's conftest after a failed import"


def fail_closed_at_end(gate: Gate, failing: list[str], relpath: dict[str, str]) -> list[str]:
    """The lines of a strict run that found, while it ran, tests needing a missing tier (each test named)."""
    lines: list[str] = []
    reached = gate.reached()
    for tier in failing:
        entries = [f"{nodeid} ({what})" for nodeid, what, _ in gate.at_run.get(tier, [])]
        if not gate.exact:
            entries += [
                f"{relpath.get(f, f)} ({_kept_out(gate, relpath.get(f, f))})" for f in sorted(reached.get(tier, ()))
            ]
        count = _plural(len(entries), "test")
        state = gate.state_of(tier)
        lines.append(
            f"tierlock: tier {tier} is {_required(gate, tier)} but it is {state}; {count} of this run needed it:"
        )
        lines.extend(f"  - {entry}" for entry in entries[:_SHOWN])
        if len(entries) > _SHOWN:
            lines.append(f"  - and {len(entries) - _SHOWN} more")
    lines.append(f"  to fix: {gate.remedy(failing)}")
    lines.append(
        f"tierlock: failing closed ({gate.why}), because {COVERAGE_LOSS}. Exit code {EXIT_TIER_MISSING}. "
        "To run without the tier on purpose: --tierlock-lenient or TIERLOCK_STRICT=0."
    )
    return lines
