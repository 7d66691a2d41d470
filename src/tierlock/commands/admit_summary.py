"""The human summary ``tierlock admit`` prints on a terminal (pure)."""

from __future__ import annotations

from tierlock.admission import Admission


def summary(result: Admission) -> list[str]:
    """One line per part with its verdict and denominators, then the decision."""
    lines = []
    for part in result.parts:
        counts = ", ".join(f"{key.replace('_', ' ')}: {value}" for key, value in part.counts.items())
        lines.append(f"{part.name}: {part.verdict}" + (f" ({counts})" if counts else ""))
    tiers = ", ".join(result.tiers) or "no tier required"
    lines.append(f"admitted: {tiers}" if result.ok else f"not admitted: {tiers}")
    return lines
