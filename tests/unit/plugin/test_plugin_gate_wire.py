"""The gate's decision as plain data (what an xdist controller hands its workers) comes back whole.

A worker never decides: it takes :meth:`Gate.from_wire` of the controller's :meth:`Gate.wire`. Every field
must survive the trip, the ci-require tiers and the tiers the run fails closed on included, and a gate made
with only its required fields must hand on empty lists and tables, not ``None``.
"""

from __future__ import annotations

from typing import Any

import pytest

from tierlock.pytest_plugin import Gate

DECIDED: dict[str, Any] = {
    "root": "/project",
    "strict": True,
    "why": "CI detected",
    "states": {"base": "present", "brain": "absent"},
    "gated": {"brain": ["tests/brain/**"]},
    "install": {"brain": "install-tier brain"},
    "broken": {"brain": ["brainpkg: absent — not installed"]},
    "required": ["brain"],
    "expected": 2,
    "named": 1,
    "selection": ["/project/tests"],
    "roots": {"brain": ["brainpkg"]},
    "needed": {"brain": 1},
    "needing": {"brain": ["tests/test_models.py"]},
    "tests_needing": {"brain": {"tests/test_models.py::TestFit.test_fit": "brainpkg", "tests/test_io.py": "brainpkg"}},
    "globbed": {"brain": 2},
    "layers": {"base": None, "brain": "base"},
    "failing": ["brain"],
    "globs": {"brain": ["tests/brain/**"]},
    "damaged": {"brain": ["brainrt: partial — compiled artifact brainrt/_core.so is missing"]},
    "owners": {"brainpkg": "brain"},
    "words": {"brainpkg": "brain"},
    "job": ["base", "brain"],
    "apart": {"fast": "brain"},
    "rearm": {"brain": ["fast"]},
    "python": "/venv/bin/python",
    "outside": ["the target /venv runs Python 3.10.13, which ...", "rm -f ... && python3.12 -m venv /venv", "/venv"],
    "exact": False,
    "project": "services/api",
}

BARE: dict[str, Any] = {
    "root": "/project",
    "strict": False,
    "why": "not CI",
    "states": {},
    "gated": {},
    "install": {},
    "broken": {},
}


def test_every_field_of_a_decision_comes_back_from_the_wire() -> None:
    gate = Gate.from_wire(DECIDED)
    assert gate.wire() == DECIDED
    assert Gate.from_wire(gate.wire()).wire() == DECIDED


def test_a_field_the_decision_does_not_know_is_refused() -> None:
    with pytest.raises(TypeError, match="unknown fields of a decision: colour"):
        Gate.from_wire({**BARE, "colour": "blue"})


def test_a_gate_made_with_only_its_required_fields_hands_on_empty_lists_and_tables() -> None:
    wired = Gate(**BARE).wire()
    assert wired == {
        **BARE,
        "required": [],
        "expected": 0,
        "named": 0,
        "selection": [],
        "roots": {},
        "needed": {},
        "needing": {},
        "tests_needing": {},
        "globbed": {},
        "layers": {},
        "failing": [],
        "globs": {},
        "damaged": {},
        "owners": {},
        "words": {},
        "apart": {},
        "rearm": {},
        "job": [],
        "python": None,
        "outside": [],
        "exact": True,
        "project": None,
    }
    assert Gate.from_wire(wired).wire() == wired
