"""A remedy that would loop between two tiers is never printed: re-arming a tier that another armed tier's pins
block (``--replace-armed``) makes that tier stale; when this run needs it too, the fix is the two locks agreeing
(``tierlock check`` names the edit), not an install that only swaps which of the two is missing."""

from __future__ import annotations

from typing import Any

import pytest

from tierlock.pytest_plugin.decision import Gate


def _gate(**rest: Any) -> Gate:
    return Gate(
        root="/p",
        strict=rest.pop("strict", True),
        why="CI detected",
        states=rest.pop("states", {"brain": "partial", "fast": "present"}),
        gated={},
        install={"brain": "install-tier brain", "fast": "install-tier fast"},
        broken={"brain": ["corelib: partial"]},
        rearm={"brain": ["fast"]},
        **rest,
    )


@pytest.mark.parametrize(
    ("fields", "remedy", "loops"),
    [
        ({"required": ["brain"]}, "install-tier brain --replace-armed", []),
        ({"required": ["brain", "fast"]}, "tierlock check", ["fast"]),
        ({"required": ["brain"], "globbed": {"fast": 2}}, "tierlock check", ["fast"]),
        ({"strict": False, "globbed": {"fast": 0, "brain": 1}}, "install-tier brain --replace-armed", []),
        ({"strict": False, "globbed": {"fast": 1, "brain": 1}}, "tierlock check", ["fast"]),
    ],
    ids=["other-not-needed", "both-required", "others-tests-selected", "laptop-alone", "laptop-both-selected"],
)
def test_the_remedy_of_a_tier_whose_rearm_stales_a_tier_this_run_needs_is_the_lock_fix(
    fields: dict[str, Any], remedy: str, loops: list[str]
) -> None:
    gate = _gate(**fields)
    assert gate.loops("brain") == loops
    assert gate.remedy(["brain"]) == remedy
    said = gate.state_of("brain")
    assert ("fast's pin a package differently and this run needs both" in said) == bool(loops), said


def test_a_tier_no_armed_tier_blocks_keeps_its_install_beside_the_lock_fix_of_one_that_loops() -> None:
    gate = _gate(required=["brain", "fast", "tool"], states={"brain": "partial", "fast": "present", "tool": "absent"})
    gate.install["tool"] = "install-tier tool"
    assert gate.remedy(["brain", "tool"]) == "install-tier tool && tierlock check"
    assert gate.loops("tool") == []


def test_a_tier_declared_in_conflict_with_the_armed_one_keeps_its_replacing_install_on_a_laptop() -> None:
    gate = _gate(strict=False, globbed={"fast": 1, "brain": 1}, apart={"brain": "fast"})
    assert gate.loops("brain") == []
    assert gate.remedy(["brain"]) == "install-tier brain --replace-armed"
