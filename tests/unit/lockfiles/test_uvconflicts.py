"""The conflict sets uv records in uv.lock, from the declared ones and the groups that include their groups.

The expected sets are what uv 0.13.9 wrote (offline) for these declarations; the uv-made lock itself is checked
in ``tests/cli/test_uv_lock_shapes_of_real_projects.py``."""

from __future__ import annotations

from typing import Any

from tierlock.lockfiles.uvconflicts import declared, includers

GROUPS: dict[str, Any] = {
    "test": ["testkit"],
    "tools": ["beta", {"include-group": "test"}],
    "core": ["alpha>=1.1"],
    "legacy": ["alpha<1.1"],
    "dev": [{"include-group": "core"}, "testkit"],
    "ci": [{"include-group": "dev"}],
}
UV = {
    "conflicts": [[{"extra": "brain"}, {"extra": "old"}], [{"group": "core"}, {"group": "legacy"}, {"group": "test"}]]
}


def _names(sets: set[frozenset[tuple[str, str, str]]]) -> list[list[str]]:
    return sorted(sorted(item[2] for item in s) for s in sets)


def test_each_conflicting_group_is_also_replaced_by_every_group_that_includes_it_in_every_combination() -> None:
    assert _names(declared("proj", UV, GROUPS)) == [  # what uv wrote
        ["brain", "old"],
        ["ci", "legacy", "test"],
        ["ci", "legacy", "tools"],
        ["core", "legacy", "test"],
        ["core", "legacy", "tools"],
        ["dev", "legacy", "test"],
        ["dev", "legacy", "tools"],
    ]


def test_groups_that_include_each_other_in_a_circle_infer_nothing() -> None:
    circle = {"a": [{"include-group": "b"}], "b": [{"include-group": "a"}], "c": []}
    assert includers(circle) == {}
    assert _names(declared("proj", {"conflicts": [[{"group": "a"}, {"group": "c"}]]}, circle)) == [["a", "c"]]


def test_another_packages_group_and_an_extra_are_never_replaced() -> None:
    uv = {"conflicts": [[{"package": "other", "group": "core"}, {"extra": "core"}]]}
    assert _names(declared("proj", uv, GROUPS)) == [["core", "core"]]


def test_damaged_declarations_are_read_as_far_as_they_go() -> None:
    assert declared("proj", {"conflicts": 1}, GROUPS) == set()
    assert _names(declared("proj", {"conflicts": [[1, {"group": "core"}], "x"]}, {"dev": 3, 4: [{}]})) == [
        [],
        ["core"],
    ]
