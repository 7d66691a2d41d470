"""Tiers asked together whose locks disagree: the refusal names one pair and only that pair's packages, and
its remedy is a command that install-tier accepts."""

from __future__ import annotations

import pytest
from packaging.utils import canonicalize_name
from packaging.version import Version

from tierlock.errors import UsageError
from tierlock.installer.target import disagreeing, refuse_sibling_conflicts
from tierlock.lockfiles.locks import LockEntry
from tierlock.remedies import argv_of


def pins(**versions: str) -> list[LockEntry]:
    return [LockEntry(canonicalize_name(n), Version(v), None, ()) for n, v in versions.items()]


def test_the_refusal_names_the_first_pair_and_only_the_packages_it_disagrees_on() -> None:
    chosen = [("a", pins(x="1", z="1")), ("b", pins(x="2", y="1", z="2")), ("c", pins(y="2"))]
    assert [r[0] for r in disagreeing(chosen)] == ["x", "z", "y"]
    with pytest.raises(UsageError) as caught:
        refuse_sibling_conflicts(chosen, command=lambda first, second: f"install-tier {first}")
    error = caught.value
    assert "tiers a and b cannot be armed together" in error.message
    assert "2 package(s) differently (x, z)" in error.message
    assert [p.message for p in error.problems] == ["x: a pins 1, b pins 2", "z: a pins 1, b pins 2"]
    assert argv_of(error.remedy) == [["install-tier", "a"]]


def test_tiers_that_agree_are_not_refused() -> None:
    refuse_sibling_conflicts([("a", pins(x="1")), ("b", pins(x="1", y="2"))], command=lambda a, b: "")
