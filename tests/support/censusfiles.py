"""Test files written for the census, and what it found, as plain tuples."""

from __future__ import annotations

import textwrap
from pathlib import Path

from tierlock.census import Census


def write(root: Path, rel: str, text: str = "import pyarrow\n") -> None:
    """Write *text* (dedented) to *root*/*rel*, making its folders."""
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text), encoding="utf-8")


def uses(result: Census, tier: str, part: str = "outside") -> list[tuple[str, int, str, bool]]:
    """(file, line, how, module level) of each use in one list (*part*) of *tier*'s report."""
    return [(u.file, u.line, u.how, u.module_level) for u in getattr(result.tier(tier), part)]
