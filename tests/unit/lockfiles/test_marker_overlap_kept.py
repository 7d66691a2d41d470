"""Whether two markers overlap is kept by their texts for the process: the kept answer is always the one the
grid gives, for any pair, any order, any spelling, and the store stays bounded."""

from __future__ import annotations

import itertools

import pytest
from packaging.markers import Marker, default_environment

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
        ("python_full_version > '3.11.5' and python_version <= '3.11'", "implementation_name == 'cpython'", True),
        ("python_version > '3.10'", "sys_platform == 'linux'", True),  # 3.11.0, the next minor's first
        ("python_version > '3.11'", "sys_platform == 'linux'", True),
        ("python_full_version > '3.11.4'", "python_full_version < '3.11.6'", True),  # 3.11.5, one past, alone
        # a literal that is no version is passed over, the others still give their versions
        ("python_version != '' and python_version < '3.11'", "sys_platform == 'linux'", True),
    ],
)
def test_the_versions_tried_are_the_literals_and_their_neighbours(first: str, second: str, expected: bool) -> None:
    """(3.11.5, one past 3.11.4, is the only version tried that holds in the last case.)"""
    assert markers.overlap(Marker(first), Marker(second)) is expected


def test_a_marker_specialised_keeps_each_alternative_of_an_or() -> None:
    got = markers.specialise(Marker("sys_platform == 'linux' or python_version < '3.9'"), lambda *atom: None)
    assert got == Marker('(sys_platform == "linux") or (python_version < "3.9")')
    assert markers.specialise(Marker("extra == 'x' or python_version < '3.9'"), lambda v, o, x: v == "extra") is True


# A brute force: every Python version 3.6.0 to 3.14.12, three platforms, every set of the extras x and y — the
# markers tierlock's own `applies` says a tier needs. Two markers overlap exactly when one of these satisfies both.
_VERSIONS = [f"3.{minor}.{micro}" for minor in range(6, 15) for micro in range(13)]
_PLATFORMS = ("linux", "win32", "darwin")
_EXTRA_SETS: tuple[tuple[str, ...], ...] = ((), ("x",), ("y",), ("x", "y"))


_GROUP_SETS: tuple[tuple[str, ...], ...] = ((), ("dev",), ("docs",), ("dev", "docs"))


def _brute_overlap(first: Marker, second: Marker) -> bool:
    base = {k: str(v) for k, v in default_environment().items()}
    groups_tried = _GROUP_SETS if "dependency_groups" in f"{first} {second}" else ((),)
    for full, platform, extras, groups in itertools.product(_VERSIONS, _PLATFORMS, _EXTRA_SETS, groups_tried):
        env = {**base, "python_full_version": full, "implementation_version": full, "sys_platform": platform}
        env["python_version"] = ".".join(full.split(".")[:2])
        if markers.applies(first, env, extras=extras, groups=groups) and markers.applies(
            second, env, extras=extras, groups=groups
        ):
            return True
    return False


PAIRS = [
    # a two-part literal's neighbours: 3.11.1 (one past its .0) is the only version tried that holds for both
    ("python_full_version > '3.11'", "python_version <= '3.11'"),
    ("python_full_version >= '3.11.1'", "python_version < '3.12'"),
    ("python_full_version < '3.11'", "python_version >= '3.11'"),
    ("python_version == '3.11'", "python_full_version != '3.11'"),
    # the same extra on both sides: a tier that brings in x needs both entries
    ("extra == 'x'", "extra == 'x'"),
    ("extra == 'x'", "extra == 'y'"),
    ("extra == 'x' and python_version < '3.11'", "extra == 'y' and python_version >= '3.11'"),
    ("extra == 'x' and sys_platform == 'linux'", "extra == 'x' and sys_platform == 'win32'"),
    ("extra == 'x' and sys_platform == 'linux'", "extra != 'x' and sys_platform == 'linux'"),
    ("extra == 'x'", "sys_platform == 'win32'"),
    ("sys_platform == 'linux' or extra == 'y'", "sys_platform == 'win32'"),
    # a lockfile's (PEP 751) extras and dependency groups: sets, one for both markers
    ("'x' in extras", "'x' in extras"),
    ("'x' in extras", "'y' in extras"),
    ("'x' in extras", "'x' not in extras"),
    ("'x' in extras and python_version < '3.11'", "'x' in extras and python_version >= '3.11'"),
    ("'x' in extras or sys_platform == 'linux'", "'x' not in extras and sys_platform == 'win32'"),
    ("'X' in extras and 'y' not in extras", "'y' in extras"),
    ("'dev' in dependency_groups", "'docs' in dependency_groups"),
    ("'dev' in dependency_groups and 'docs' not in dependency_groups", "'docs' in dependency_groups"),
    ("'dev' in dependency_groups", "'x' in extras and sys_platform == 'darwin'"),
]


@pytest.mark.parametrize(("first", "second"), PAIRS)
def test_two_markers_overlap_exactly_when_some_environment_and_extras_need_both(first: str, second: str) -> None:
    a, b = Marker(first), Marker(second)
    expected = _brute_overlap(a, b)
    assert markers.overlap(a, b) is expected
    assert markers.overlap(b, a) is expected


def test_the_same_extra_on_both_sides_overlaps_and_other_conditions_still_separate() -> None:
    assert markers.overlap(Marker("extra == 'x'"), Marker("extra == 'x'")) is True
    split = (Marker("extra == 'x' and python_version < '3.11'"), Marker("extra == 'x' and python_version >= '3.11'"))
    assert markers.overlap(*split) is False


@pytest.mark.parametrize(
    ("op", "expected"), [("<", True), (">=", True), ("<=", False), (">", False), ("==", False), ("!=", False)]
)
def test_a_condition_on_python_version_is_equivalent_to_the_same_on_its_full_version(op: str, expected: bool) -> None:
    """Every version tried is a real one (a full version that is no version holds for one spelling only), and 3.11.1
    is tried: ``python_version <= "3.11"`` takes it in, ``python_full_version <= "3.11"`` does not."""
    short, full = Marker(f"python_version {op} '3.11'"), Marker(f"python_full_version {op} '3.11'")
    assert markers.equivalent(short, full) is expected


def test_a_marker_specialised_keeps_every_condition_of_an_and() -> None:
    marker = Marker("sys_platform == 'linux' and python_version < '3.9' and extra == 'x'")
    got = markers.specialise(marker, lambda v, o, x: True if v == "extra" else None)
    assert got == Marker('(sys_platform == "linux") and (python_version < "3.9")')
    assert markers.specialise(marker, lambda v, o, x: False if v == "extra" else None) is False


def _words(prefix: str, count: int) -> str:
    return " ".join(f"{prefix}{i}" for i in range(count))


def test_a_grid_of_twenty_thousand_environments_is_tried_and_one_more_is_assumed_to_overlap() -> None:
    """Each ``in`` literal is tried whole, word by word, cut by a character at either end, with more after it, as
    the empty value and as no value of it; platforms keep the two apart.
    4 x 50 x 100 = 20,000 environments are tried (no overlap); 3 x 59 x 113 = 20,001 are not (assumed)."""
    tried = (
        Marker(f"(sys_platform == 'a' or sys_platform == 'b') and platform_machine in '{_words('m', 44)}'"),
        Marker(f"sys_platform == 'nope' and os_name in '{_words('o', 94)}'"),
    )
    too_many = (
        Marker(f"sys_platform == 'a' and platform_machine in '{_words('m', 53)}'"),
        Marker(f"sys_platform == 'nope' and os_name in '{_words('o', 107)}'"),
    )
    assert markers.overlap(*tried) is False
    assert markers.overlap(*too_many) is True


def test_every_set_of_fourteen_extras_is_tried_and_one_more_name_is_assumed_to_overlap() -> None:
    """2**14 = 16,384 sets are tried (the two never hold together: n0 is in one set and not in the other)."""

    def apart(count: int) -> tuple[Marker, Marker]:
        rest = " and ".join(f"'n{i}' in extras" for i in range(1, count))
        return Marker("'n0' in extras"), Marker(f"'n0' not in extras and {rest}")

    assert markers.overlap(*apart(14)) is False
    assert markers.overlap(*apart(15)) is True


def test_a_marker_that_holds_for_every_python_is_equivalent_to_no_marker() -> None:
    """(A version tried beside `3.0` is a real one: `3.-1.99` would hold for neither version condition.)"""
    always = Marker("python_version >= '3.0' or python_version < '3.0'")
    assert markers.equivalent(always, None) is True
    assert markers.equivalent(always, Marker("sys_platform == 'linux' or sys_platform != 'linux'")) is True
    assert markers.equivalent(Marker("python_version >= '3.0'"), None, ">=3.9") is True


def test_a_single_condition_left_after_specialising_is_the_condition_itself() -> None:
    got = markers.specialise(Marker("sys_platform == 'linux' and extra == 'x'"), lambda v, o, x: v == "extra" or None)
    assert str(got) == 'sys_platform == "linux"'
