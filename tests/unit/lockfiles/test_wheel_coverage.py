"""Wheel coverage per declared platform and Python: what covers where, the gaps, and the nearest wheel tags.

Pure: locks, records and platforms are built in memory from real wheel file names.
"""

from __future__ import annotations

from packaging.utils import canonicalize_name
from packaging.version import Version

from tests.support.artifactlocks import (
    GLIBC,
    LINUX,
    MUSL,
    NAT,
    PYTHONS,
    SDIST,
    WIN,
    WINEXTRA,
    entry,
    lock,
    record,
    wheel,
)
from tierlock.lockfiles.artifacts import Record
from tierlock.lockfiles.coverage import gaps_of, nearest_tags, tier_coverage, wheel_tags
from tierlock.lockfiles.locks import LockEntry


def test_a_glibc_wheel_covers_glibc_only_and_a_marker_limits_where_a_package_applies() -> None:
    cells, gaps = gaps_of([NAT, GLIBC, WINEXTRA], record(NAT, GLIBC, WINEXTRA), [LINUX, MUSL, WIN], PYTHONS)
    assert [(g.name, g.platform.name, g.pythons, g.exists) for g in gaps] == [  # in lockfile order
        ("natpkg", "linux-x86_64-musl", ("3.11", "3.12"), "other-wheels"),
        ("glibconly", "linux-x86_64", ("3.12",), "other-wheels"),
        ("glibconly", "linux-x86_64-musl", ("3.11", "3.12"), "other-wheels"),
        ("glibconly", "windows-x86_64", ("3.11", "3.12"), "other-wheels"),
    ]
    linux311 = next(c for c in cells if (c.platform, c.python) == ("linux-x86_64", "3.11"))
    assert (linux311.packages, linux311.builds) == (2, ())  # winextra does not apply on Linux
    win312 = next(c for c in cells if (c.platform, c.python) == ("windows-x86_64", "3.12"))
    assert (win312.packages, win312.builds) == (3, ("glibconly",))  # its abi3 wheel serves 3.12


def test_a_package_the_record_does_not_know_or_has_no_hashed_file_for_is_a_gap_that_says_so() -> None:
    unknown = entry("ghost", "1.0", [wheel("ghost-1.0-py3-none-any.whl")])
    empty = LockEntry(canonicalize_name("bare"), Version("1.0"), None, ("sha256:" + "c" * 64,), 4)
    found = Record("recorded", {("bare", "1.0"): ()})
    _, gaps = gaps_of([unknown, empty], found, [LINUX], PYTHONS[:1])
    assert [(g.name, g.exists, g.what) for g in gaps] == [
        ("ghost", "unknown", "no file recorded for it (the index listed none of its hashed files)"),
        ("bare", "nothing", "no file the lock has a hash for"),
    ]


def test_a_gap_describes_the_package_platform_pythons_and_what_exists() -> None:
    (gap,) = gaps_of([SDIST], record(SDIST), [MUSL], PYTHONS)[1]
    assert gap.describe() == (
        "sdonly 1.0 has no wheel for linux-x86_64-musl (musllinux_1_2_x86_64) on Python 3.11, 3.12: "
        "the lock has only an sdist (sdonly-1.0.tar.gz)"
    )
    assert gap.to_dict() == {
        "package": "sdonly",
        "version": "1.0",
        "platform": "linux-x86_64-musl",
        "platform_tag": "musllinux_1_2_x86_64",
        "pythons": ["3.11", "3.12"],
        "exists": "sdist-only",
        "files": ["sdonly-1.0.tar.gz"],
        "nearest_tags": [],
        "line": 3,
    }


def test_the_nearest_tags_put_the_platform_first_then_the_python_then_the_os() -> None:
    wheels = [
        "p-1-cp312-cp312-win_amd64.whl",
        "p-1-cp310-cp310-manylinux_2_17_x86_64.whl",
        "p-1-cp311-cp311-macosx_11_0_arm64.whl",
        "p-1-cp311-cp311-manylinux_2_34_x86_64.whl",
    ]
    assert nearest_tags(wheels, LINUX, ["3.11"]) == (
        "cp310-cp310-manylinux_2_17_x86_64",
        "cp311-cp311-manylinux_2_34_x86_64",
        "cp311-cp311-macosx_11_0_arm64",
    )
    assert nearest_tags(wheels, MUSL, ["3.11"], limit=1) == ("cp311-cp311-manylinux_2_34_x86_64",)  # linux, x86_64
    assert wheel_tags("not-a-wheel.whl") == frozenset()


def test_many_wheels_elsewhere_are_counted_beyond_the_nearest_three() -> None:
    many = entry(
        "m", "1", [wheel(f"m-1-cp311-cp311-{p}.whl") for p in ("win_amd64", "win32", "win_arm64", "macosx_11_0_arm64")]
    )
    (gap,) = gaps_of([many], record(many), [LINUX], PYTHONS[:1])[1]
    assert gap.what.startswith("wheels only for ")
    assert gap.what.endswith(" (and 1 more)")


def test_a_tier_without_a_usable_record_or_with_a_single_platform_lock_proves_nothing() -> None:
    absent = tier_coverage("base", lock(NAT), Record("absent"), [LINUX], PYTHONS, no_build=True, lockfile="b")
    assert (absent.proven, absent.cells, absent.gaps) == (False, (), ())
    single = tier_coverage(
        "base",
        lock(NAT, platform="linux-x86_64/cpython-3.11"),
        record(NAT),
        [LINUX],
        PYTHONS,
        no_build=True,
        lockfile="b",
    )
    assert (single.proven, single.single_platform) == (False, "linux-x86_64/cpython-3.11")
    good = tier_coverage("base", lock(NAT), record(NAT), [LINUX], PYTHONS, no_build=True, lockfile="b", record_file="r")
    assert good.proven
    assert good.to_dict()["record_file"] == "r"
    assert good.to_dict()["cells"][0] == {
        "platform": "linux-x86_64",
        "python": "3.11",
        "packages": 1,
        "builds": [],
        "outside": False,
    }


def test_a_nearer_machine_outranks_another_machine_of_the_same_os_and_python() -> None:
    wheels = ["p-1-cp312-cp312-manylinux_2_34_aarch64.whl", "p-1-cp312-cp312-manylinux_2_34_x86_64.whl"]
    assert nearest_tags(wheels, LINUX, ["3.12"]) == (
        "cp312-cp312-manylinux_2_34_x86_64",
        "cp312-cp312-manylinux_2_34_aarch64",
    )


def test_a_wheel_list_no_longer_than_the_nearest_says_no_more() -> None:
    two = entry("t", "1", [wheel(f"t-1-cp311-cp311-{p}.whl") for p in ("win_amd64", "win32")])
    (gap,) = gaps_of([two], record(two), [LINUX], PYTHONS[:1])[1]
    assert gap.what == "wheels only for cp311-cp311-win_amd64, cp311-cp311-win32"  # an x86_64 machine first


def test_the_nearest_tags_weigh_platform_python_os_and_machine_in_that_order() -> None:
    # accepted here and for this Python, over accepted here only
    both = ["p-1-cp311-cp311-manylinux_2_17_x86_64.whl", "p-1-cp312-cp312-manylinux_2_17_x86_64.whl"]
    assert nearest_tags(both, LINUX, ["3.12"])[0] == "cp312-cp312-manylinux_2_17_x86_64"
    # this Python on another OS ties with this OS and machine for another Python (the name decides)
    tied = ["p-1-cp312-cp312-win32.whl", "p-1-cp310-cp310-manylinux_2_34_x86_64.whl"]
    assert nearest_tags(tied, LINUX, ["3.12"])[0] == "cp310-cp310-manylinux_2_34_x86_64"
    # this Python outranks this OS alone
    python = ["p-1-cp312-cp312-win32.whl", "p-1-cp310-cp310-manylinux_2_34_aarch64.whl"]
    assert nearest_tags(python, LINUX, ["3.12"])[0] == "cp312-cp312-win32"
    # this OS alone outranks nothing in common
    os_only = ["p-1-cp310-cp310-macosx_10_9_i386.whl", "p-1-cp310-cp310-manylinux_2_34_aarch64.whl"]
    assert nearest_tags(os_only, LINUX, ["3.12"])[0] == "cp310-cp310-manylinux_2_34_aarch64"
