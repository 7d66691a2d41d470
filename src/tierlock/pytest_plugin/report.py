"""The header and summary lines: what the gate decided and what it kept out, counted in one way.

Both name only the tiers that matter in this run (:meth:`Gate.relevant`):
those that gate a selected test file, a marked test or a census importer,
and those a strict run requires. The summary counts, from the run's reports:

* test files not collected (gated files of the selection);
* tests skipped because a tier is not present: tests marked ``tier(...)``,
  tests named inside a gated file, and ``pytest.importorskip`` skips of a
  not-present tier's import root.
"""

from __future__ import annotations

import re
from typing import Any

from tierlock.pytest_plugin.collect import NOT_IMPORTED
from tierlock.pytest_plugin.gate import Gate

#: What every tierlock skip reason holds.
TIER_REASON = "; to run these tests: "
_IMPORTORSKIP = re.compile(r"could not import '([^']+)'")


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'s' if count != 1 else ''}"


def header_lines(gate: Gate) -> list[str]:
    relevant = gate.relevant()
    missing = [t for t in relevant if gate.states[t] != "present"]
    mode = "strict" if gate.strict else "lenient"
    if not relevant:
        line = f"tierlock: no tier gates a test of this run ({_plural(len(gate.states), 'tier')} checked)"
        return [line, f"tierlock: {mode} ({gate.why})"]
    parts = []
    for tier in relevant:
        part = f"{tier} {gate.states[tier]}"
        if gate.states[tier] != "present" and not (gate.globbed.get(tier) or gate.needed.get(tier)):
            part += " (none of its tests selected)"
        parts.append(part)
    line = "tierlock: " + " · ".join(parts)
    counted = []
    if gate.expected:
        counted.append(f"{_plural(gate.expected, 'test file')} not collected")
    if gate.named:
        counted.append(f"{_plural(gate.named, 'named test')} skipped")
    needed = [t for t in missing if gate.globbed.get(t) or gate.needed.get(t)]
    if needed:
        line += f" — {' and '.join(counted) + '; ' if counted else ''}to run them: {gate.remedy(needed)}"
    lines = [line, f"tierlock: {mode} ({gate.why})"]
    for tier in missing:
        lines.extend(f"tierlock:   {tier}: {text}" for text in gate.broken.get(tier, []) if " absent — " not in text)
    return lines


def skipped_by_tier(gate: Gate, reports: list[Any]) -> tuple[int, list[str]]:
    """(tests skipped because a tier is not present, the tiers they needed) from the skip *reports*."""
    count = 0
    tiers: list[str] = []
    import_roots = {name: tier for tier, names in gate.roots.items() for name in names}
    for report in reports:
        longrepr = getattr(report, "longrepr", None)
        text = str(longrepr[2]) if isinstance(longrepr, tuple) and len(longrepr) == 3 else ""
        if NOT_IMPORTED in text:
            continue  # a whole gated file: counted as a file not collected
        if TIER_REASON in text:
            count += 1
            tiers.extend(t for t in gate.states if f"tier {t} is " in text or f", {t} is " in text)
            continue
        match = _IMPORTORSKIP.search(text)
        if match:
            tier = import_roots.get(match.group(1).split(".")[0])
            if tier is not None:
                count += 1
                tiers.append(tier)
    return count, tiers


def summary_line(gate: Gate, reports: list[Any]) -> str:
    skipped, skipped_tiers = skipped_by_tier(gate, reports)
    files = gate.not_collected
    relevant = gate.relevant()
    missing = [t for t in relevant if gate.states[t] != "present"]
    for tier in skipped_tiers:
        if tier not in missing:
            missing.append(tier)
    if not missing:
        return f"tierlock: every tier this run needs is present ({_plural(len(gate.states), 'tier')} checked)"
    states = ", ".join(f"{t} {gate.states[t]}" for t in missing)
    if not files and not skipped:
        return f"tierlock: {states}; none of its tests were selected"
    return (
        f"tierlock: {_plural(files, 'test file')} not collected and {_plural(skipped, 'test')} skipped "
        f"because {states}; to run them: {gate.remedy(missing)}"
    )
