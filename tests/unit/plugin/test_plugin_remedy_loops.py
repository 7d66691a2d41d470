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


def test_a_remedy_for_pytest_outside_any_venv_says_system_only_when_it_names_that_python(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import sys

    monkeypatch.setattr(sys, "base_prefix", sys.prefix)  # (pytest as a container's own Python runs it)
    monkeypatch.setattr("os.path.isfile", lambda path: False)  # (not externally managed)
    named = _gate(required=["brain"], python="/usr/local/bin/python")
    assert named.remedy(["brain"]) == "install-tier brain --python /usr/local/bin/python --system --replace-armed"
    assert _gate(required=["brain"]).remedy(["brain"]) == "install-tier brain --replace-armed"


def test_a_damaged_tier_whose_rearm_loops_is_still_said_damaged() -> None:
    gate = _gate(required=["brain", "fast"], damaged={"brain": ["corelib: partial"]})
    assert gate.state_of("brain") == (
        "partial, damaged; its lock and fast's pin a package differently and this run needs both"
    )
