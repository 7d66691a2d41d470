"""Which files the census reads: pytest's python_files, skipped folders, virtual environments, odd entries.

Real trees in tmp_path (symlinks, a symlink loop, a folder too deep to open); each test checks that
the files that should be read are, and only them, whatever comes first in the walk.
"""

from __future__ import annotations

import fnmatch
import os
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.support.censusfiles import write
from tierlock.census import Census, CensusTier, census

ARROW = CensusTier("arrow", ("pyarrow",), ("tests/arrow/**",))


def files(result: Census, tier: str = "arrow") -> list[str]:
    report = result.tier(tier)
    return sorted({u.file for u in (*report.inside, *report.outside)})


def test_folders_pytest_does_not_recurse_into_and_virtual_environments_are_not_read(tmp_path: Path) -> None:
    for folder in ("build", "dist", "node_modules", "venv", ".tox", "pkg.egg", "lib/site-packages", "__pycache__"):
        write(tmp_path, f"{folder}/test_skipped.py")
    write(tmp_path, "env312/pyvenv.cfg", "home = /usr/bin\n")
    write(tmp_path, "env312/lib/test_in_venv.py")
    write(tmp_path, "tests/builder/test_kept.py")
    write(tmp_path, "tests/test_kept.py")
    result = census(tmp_path, [ARROW])
    assert files(result) == ["tests/builder/test_kept.py", "tests/test_kept.py"]
    assert result.files_read == 2


def test_a_virtual_environment_among_the_folders_is_skipped_and_the_others_are_still_read(tmp_path: Path) -> None:
    write(tmp_path, "env312/pyvenv.cfg", "home = /usr/bin\n")
    write(tmp_path, "env312/test_in_venv.py")
    write(tmp_path, "tests/test_a.py")
    write(tmp_path, "tests/sub/test_b.py")
    result = census(tmp_path, [ARROW], folders=["tests", "env312"])
    assert files(result) == ["tests/sub/test_b.py", "tests/test_a.py"]


def test_a_folder_named_twice_by_the_test_paths_and_the_globs_is_read_once_and_the_rest_still_is(
    tmp_path: Path,
) -> None:
    write(tmp_path, "tests/arrow/test_fs.py")
    write(tmp_path, "tests/test_io.py")
    write(tmp_path, "tests/other/test_other.py")
    tier = CensusTier("arrow", ("pyarrow",), ("tests/arrow/**", "tests/arrow/test_*.py"))
    result = census(tmp_path, [tier], folders=["tests"])
    assert files(result) == ["tests/arrow/test_fs.py", "tests/other/test_other.py", "tests/test_io.py"]
    assert result.files_read == 3
    assert list(result.tier("arrow").glob_matches.values()) == [1, 1]


def test_a_test_path_that_is_a_file_is_read_and_only_python_files_are_test_files(tmp_path: Path) -> None:
    write(tmp_path, "tests/test_only.py")
    write(tmp_path, "tests/test_not_named.py")
    write(tmp_path, "tests/README.md", "import pyarrow\n")
    tier = CensusTier("arrow", ("pyarrow",), ("tests/README.md", "tests/test_only.py"))
    result = census(tmp_path, [tier], folders=["tests/test_only.py", "tests/README.md"], walk_globs=False)
    assert files(result) == ["tests/test_only.py"]
    assert result.files_read == 1
    assert result.tier("arrow").glob_matches == {"tests/README.md": 1, "tests/test_only.py": 1}


def test_only_files_matching_python_files_and_conftests_are_read(tmp_path: Path) -> None:
    write(tmp_path, "tests/helpers.py")
    write(tmp_path, "tests/test_default.py")
    write(tmp_path, "tests/check_io.py")
    write(tmp_path, "tests/check_notes.txt")
    write(tmp_path, "tests/conftest.py")
    result = census(tmp_path, [ARROW], patterns=["check_*"])
    assert files(result) == ["tests/check_io.py", "tests/conftest.py"]
    assert files(census(tmp_path, [ARROW])) == ["tests/conftest.py", "tests/test_default.py"]


def test_a_broken_link_and_a_link_to_a_folder_named_like_test_files_are_skipped_and_their_neighbours_read(
    tmp_path: Path,
) -> None:
    names = [f"test_{letter}.py" for letter in "abcdefghij"]
    for name in names:
        write(tmp_path, f"tests/{name}")
    for letter in "vwxyz":  # several, so that one comes before a neighbour in any listing order
        (tmp_path / "tests" / f"test_broken_{letter}.py").symlink_to(tmp_path / "nowhere.py")
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "tests" / "test_folder.py").symlink_to(tmp_path / "elsewhere", target_is_directory=True)
    result = census(tmp_path, [ARROW], folders=["tests"])
    assert files(result) == [f"tests/{name}" for name in names]
    assert (result.files_read, result.files_parsed) == (11, 10)


def test_a_symlink_loop_below_the_test_paths_is_walked_once(tmp_path: Path) -> None:
    write(tmp_path, "tests/test_a.py")
    (tmp_path / "tests" / "loop").symlink_to(tmp_path / "tests", target_is_directory=True)
    result = census(tmp_path, [ARROW])
    assert files(result) == ["tests/test_a.py"]


def test_a_folder_too_deep_to_open_is_skipped_and_the_other_folders_are_read(tmp_path: Path) -> None:
    write(tmp_path, "tests/test_a.py")
    # Nested folders until the absolute path is longer than the system allows (PATH_MAX): scandir fails on it.
    name = "d" * 200
    fd = os.open(tmp_path, os.O_RDONLY)
    current = "deep"
    os.mkdir(current, dir_fd=fd)
    depth = len(str(tmp_path / current))
    while depth <= 4200:
        inner = os.open(current, os.O_RDONLY, dir_fd=fd)
        os.close(fd)
        fd, current = inner, name
        os.mkdir(current, dir_fd=fd)
        depth += len(name) + 1
    os.close(fd)
    assert depth > 4096
    result = census(tmp_path, [ARROW], folders=["tests", "deep"])
    assert files(result) == ["tests/test_a.py"]


SKIP_NAMES = st.one_of(
    st.text(alphabet="abcCVSgeisvnt._-{}*?[]/", max_size=14),
    st.sampled_from(["site-packages", "node_modules", "{arch}", "_darcs", "x.egg", ".egg", "."]),
)


@given(SKIP_NAMES)
def test_a_folder_is_skipped_exactly_where_pytests_norecursedirs_patterns_match_it(name: str) -> None:
    from tierlock.census import tree

    assert tree.skip_dir(name) == (any(fnmatch.fnmatch(name, p) for p in tree.SKIP_DIRS) or name == "site-packages")


def test_the_skipped_folders_are_told_without_matching_patterns(monkeypatch: pytest.MonkeyPatch) -> None:
    """(Every command that walks the tests asks: ten patterns compiled each time would cost it half a millisecond.)"""
    from tierlock.census import tree

    def never(_name: str, _pattern: str) -> bool:
        raise AssertionError("a pattern matched")

    monkeypatch.setattr(fnmatch, "fnmatch", never)
    names = ("build", ".tox", "pkg.egg", "{arch}", "tests", "eggs", "site-packages")
    assert [tree.skip_dir(name) for name in names] == [True, True, True, True, False, False, True]


@given(st.text(alphabet="ab_.py*?[]!-", max_size=8), st.text(alphabet="ab_.py*?[]!-", max_size=6))
def test_a_file_name_matches_a_pattern_as_fnmatch_says(name: str, pattern: str) -> None:
    from tierlock.census.tree import name_matches

    assert name_matches(name, pattern) == fnmatch.fnmatch(name, pattern)
    for plain in ("test_*.py", "*_test.py", "*.py", "a*a"):
        assert name_matches(name, plain) == fnmatch.fnmatch(name, plain)
