"""Whether two markers overlap is kept by their texts for the process: the kept answer is always the one the
grid gives, for any pair, any order, any spelling, and the store stays bounded."""

from __future__ import annotations

import itertools

import pytest
from packaging.markers import Marker

from tierlock.lockfiles import markers

MARKERS = [
    "python_version < '3.11'",
    "python_full_version >= '3.11'",
    "python_version >= '3.12'",
    "sys_platform == 'linux'",
    "sys_platform == 'win32' and platform_machine == 'AMD64'",
    "sys_platform == 'win32' and platform_machine != 'AMD64'",
    "platform_machine in 'x86_64 AMD64'",
    "os_name == 'nt' or python_version < '3.12'",
    "os_name != 'nt' and python_version >= '3.12'",
    "implementation_name == 'pypy'",
    "python_version < '3.11' and implementation_name != 'pypy'",
]


@pytest.fixture(autouse=True)
def _nothing_kept() -> None:
    markers._OVERLAPS.clear()


def _slow(first: Marker, second: Marker) -> bool:
    return markers._overlap(first, second, (str(first), str(second)))


def test_every_pair_asked_twice_gets_the_answer_the_grid_gives_both_times() -> None:
    for first, second in itertools.product(MARKERS, repeat=2):
        a, b = Marker(first), Marker(second)
        expected = _slow(a, b)
        assert markers.overlap(a, b) is expected
        assert markers.overlap(Marker(first), Marker(second)) is expected
    assert len(markers._OVERLAPS) == len(MARKERS) ** 2


def test_another_spelling_of_the_same_marker_is_the_same_question() -> None:
    first = Marker("python_version<'3.11'")
    same = Marker('python_version < "3.11"')
    second = Marker("python_version >= '3.11'")
    assert markers.overlap(first, second) is False
    assert markers.overlap(same, second) is False
    assert len(markers._OVERLAPS) == 1


def test_a_kept_answer_is_never_given_for_markers_of_other_texts() -> None:
    assert markers.overlap(Marker("python_version < '3.11'"), Marker("python_version >= '3.11'")) is False
    assert markers.overlap(Marker("python_version < '3.11'"), Marker("python_version >= '3.10'")) is True
    assert markers.overlap(Marker("python_version >= '3.11'"), Marker("python_version < '3.11'")) is False


def test_no_marker_overlaps_everything_and_is_not_kept() -> None:
    assert markers.overlap(None, Marker("sys_platform == 'linux'")) is True
    assert markers.overlap(Marker("sys_platform == 'linux'"), None) is True
    assert markers._OVERLAPS == {}


def test_the_kept_answers_stay_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(markers, "_KEPT", 3)
    for version in range(10):
        a, b = Marker(f"python_version < '3.{version}'"), Marker(f"python_version >= '3.{version + 1}'")
        assert markers.overlap(a, b) is False
        assert len(markers._OVERLAPS) <= 3
    a, b = Marker("python_version < '3.5'"), Marker("python_version >= '3.4'")
    assert markers.overlap(a, b) is True


@pytest.mark.parametrize(
    ("first", "second", "expected"),
    [
        ("python_full_version < '3.11'", "python_full_version >= '3.11'", False),  # a two-part version: its .0
        ("python_full_version < '3.11.0'", "python_full_version >= '3.11.0'", False),
        ("python_full_version > '3.11.4' and python_version <= '3.11'", "implementation_name == 'cpython'", True),
    ],
)
def test_the_versions_tried_are_the_literals_and_their_neighbours(first: str, second: str, expected: bool) -> None:
    """(3.11.5, one past 3.11.4, is the only version tried that holds in the last case.)"""
    assert markers.overlap(Marker(first), Marker(second)) is expected


def test_a_marker_specialised_keeps_each_alternative_of_an_or() -> None:
    got = markers.specialise(Marker("sys_platform == 'linux' or python_version < '3.9'"), lambda *atom: None)
    assert got == Marker('(sys_platform == "linux") or (python_version < "3.9")')
    assert markers.specialise(Marker("extra == 'x' or python_version < '3.9'"), lambda v, o, x: v == "extra") is True
