"""How `check` states what it covered: one way of counting, in words a person reads."""

from __future__ import annotations

import pytest

from tierlock.lockfiles.findings import scope


@pytest.mark.parametrize(
    ("tiers", "requested", "said"),
    [
        (["base", "crypto"], [], "every tier"),
        (["base", "crypto"], ["crypto"], "crypto and the base it is layered on"),
        (["base", "crypto"], ["base", "crypto"], "base and crypto"),
        (["base", "a", "b"], ["a", "b"], "a and b and the base they are layered on"),
        (["base", "arrow", "pandas"], ["pandas"], "pandas and the tiers it is layered on (base and arrow)"),
        (["base", "x", "y", "z"], ["x", "y", "z"], "x, y and z and the base they are layered on"),
        (
            ["base", "core", "arrow", "pandas"],
            ["pandas"],
            "pandas and the tiers it is layered on (base, core and arrow)",
        ),
        (["a", "b", "c", "d"], ["a", "b", "c", "d"], "a, b, c and d"),
    ],
)
def test_the_scope_names_the_tiers_asked_for_and_those_below_them(
    tiers: list[str], requested: list[str], said: str
) -> None:
    assert scope(tiers, requested) == said
