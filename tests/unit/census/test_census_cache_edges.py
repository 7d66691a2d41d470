"""The census's per-file cache: what is reused, what is read again, and what it never trusts.

A cache here is pytest's layout (:class:`tierlock.census.FolderCache` under ``.pytest_cache``) or a small
in-memory one that counts its writes; the census always gives the answer of an uncached run.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from tests.support.censusfiles import write
from tests.support.pyproject import pyproject
from tierlock.census import CACHE_KEY, Census, CensusTier, FolderCache, census
from tierlock.cli import main

ARROW = CensusTier("arrow", ("pyarrow",), ("tests/arrow/**",))
POLARS = CensusTier("polars", ("polars",), ("tests/polars/**",))


class CountingCache:
    """A cache like pytest's (JSON values), that counts its writes."""

    def __init__(self) -> None:
        self.data: dict[str, Any] = {}
        self.writes = 0

    def get(self, key: str, default: Any) -> Any:
        return json.loads(json.dumps(self.data[key])) if key in self.data else default

    def set(self, key: str, value: object) -> None:
        self.writes += 1
        self.data[key] = json.loads(json.dumps(value))


def tree(root: Path) -> None:
    write(root, "tests/conftest.py", "import pytest\n\n@pytest.fixture\ndef table():\n    import pyarrow\n")
    write(root, "tests/a/test_one.py", "import pyarrow\n")
    write(root, "tests/a/test_plain.py", "def test_plain():\n    pass\n")
    write(root, "tests/b/test_two.py", "def test_two(table):\n    pass\n")
    write(root, "tests/b/test_polars.py", "import polars\n")


def seen(result: Census) -> dict[str, list[tuple[str, int, str]]]:
    return {r.tier: [(u.file, u.line, u.how) for u in (*r.inside, *r.outside, *r.fixtures)] for r in result.tiers}


def counts(result: Census) -> tuple[int, int, int]:
    return result.files_read, result.files_parsed, result.files_cached


def test_an_unchanged_tree_is_taken_whole_from_the_cache_without_writing_it_again(tmp_path: Path) -> None:
    tree(tmp_path)
    cache = CountingCache()
    first = census(tmp_path, [ARROW], cache=cache)
    assert counts(first) == (5, 3, 0)
    assert cache.writes == 1
    second = census(tmp_path, [ARROW], cache=cache)
    assert counts(second) == (5, 0, 5)
    assert cache.writes == 1
    assert seen(second) == seen(first)


def test_a_changed_file_is_parsed_again_once_and_its_new_facts_are_kept(tmp_path: Path) -> None:
    tree(tmp_path)
    cache = CountingCache()
    census(tmp_path, [ARROW], cache=cache)
    write(tmp_path, "tests/a/test_plain.py", "def test_plain():\n    import pyarrow\n")
    second = census(tmp_path, [ARROW], cache=cache)
    assert counts(second) == (5, 1, 4)
    assert cache.writes == 2
    third = census(tmp_path, [ARROW], cache=cache)
    assert counts(third) == (5, 0, 5)
    assert ("tests/a/test_plain.py", 2, "import pyarrow") in seen(third)["arrow"]
    assert seen(third) == seen(census(tmp_path, [ARROW]))


def test_a_file_skipped_for_naming_no_root_is_read_again_when_the_roots_change(tmp_path: Path) -> None:
    tree(tmp_path)
    cache = CountingCache()
    census(tmp_path, [ARROW], cache=cache)
    second = census(tmp_path, [POLARS], cache=cache)
    assert seen(second)["polars"] == [("tests/b/test_polars.py", 1, "import polars")]
    assert cache.writes == 2


def test_a_run_over_part_of_the_tree_keeps_what_the_whole_run_learnt(tmp_path: Path) -> None:
    tree(tmp_path)
    cache = CountingCache()
    census(tmp_path, [ARROW], cache=cache)
    write(tmp_path, "tests/a/test_one.py", "import pyarrow\nimport os\n")
    part = census(tmp_path, [ARROW], cache=cache, folders=["tests/conftest.py", "tests/a"])
    assert counts(part) == (3, 1, 2)
    assert cache.writes == 2
    whole = census(tmp_path, [ARROW], cache=cache)
    assert counts(whole) == (5, 0, 5)


def test_a_part_run_with_other_roots_drops_the_skipped_files_of_the_old_roots(tmp_path: Path) -> None:
    tree(tmp_path)
    cache = CountingCache()
    census(tmp_path, [ARROW], cache=cache)  # tests/b/test_polars.py names no root of arrow: skipped
    census(tmp_path, [POLARS], cache=cache, folders=["tests/a"])
    whole = census(tmp_path, [POLARS], cache=cache)
    assert seen(whole)["polars"] == [("tests/b/test_polars.py", 1, "import polars")]


@pytest.mark.parametrize("schema", [0, 1, 3, "4", None])
def test_a_cache_entry_of_another_schema_is_not_trusted(tmp_path: Path, schema: object) -> None:
    tree(tmp_path)
    cache = CountingCache()
    census(tmp_path, [ARROW], cache=cache)
    entry = cache.data[CACHE_KEY]
    # Claim that test_plain.py imports pyarrow, under the right size and mtime.
    stamp = entry["files"]["tests/a/test_plain.py"][0]
    entry["files"]["tests/a/test_plain.py"] = [stamp, [[["pyarrow", 1, "import pyarrow", True, None]], [], [], {}, {}]]
    entry["schema"] = schema
    again = census(tmp_path, [ARROW], cache=cache)
    assert seen(again) == seen(census(tmp_path, [ARROW]))
    assert counts(again) == (5, 3, 0)


@pytest.mark.parametrize(
    "facts",
    [
        pytest.param(5, id="not-a-list"),
        pytest.param([[], [], []], id="too-short"),
        pytest.param([[["pyarrow", "one", "import pyarrow", True, None]], [], [], {}, {}], id="a-bad-line"),
        pytest.param([[], [], [], {"table": {"line": 4}}, {}], id="a-fixture-as-a-table"),
        pytest.param([[], [], [], {"table": [4, False]}, {}], id="a-fixture-too-short"),
        pytest.param([[], [], [], [], {}], id="fixtures-as-a-list"),
        pytest.param([[], [], [], {}, ["table"]], id="uses-as-a-list"),
    ],
)
def test_a_damaged_cache_entry_is_read_again_from_the_file(tmp_path: Path, facts: object) -> None:
    tree(tmp_path)
    cache = CountingCache()
    census(tmp_path, [ARROW], cache=cache)
    entry = cache.data[CACHE_KEY]
    for rel in ("tests/conftest.py", "tests/b/test_two.py"):
        entry["files"][rel][1] = facts
    again = census(tmp_path, [ARROW], cache=cache)
    assert seen(again) == seen(census(tmp_path, [ARROW]))
    assert counts(again) == (5, 2, 3)


def test_the_folder_cache_lives_in_an_existing_pytest_cache_only(tmp_path: Path) -> None:
    tree(tmp_path)
    census(tmp_path, [ARROW], cache=FolderCache(tmp_path))
    assert not (tmp_path / ".pytest_cache").exists()
    (tmp_path / ".pytest_cache").mkdir()
    census(tmp_path, [ARROW], cache=FolderCache(tmp_path))
    stored = json.loads((tmp_path / ".pytest_cache" / "v" / "tierlock" / "census").read_text(encoding="utf-8"))
    assert sorted(stored["files"]) == [
        "tests/a/test_one.py",
        "tests/a/test_plain.py",
        "tests/b/test_polars.py",
        "tests/b/test_two.py",
        "tests/conftest.py",
    ]
    assert counts(census(tmp_path, [ARROW], cache=FolderCache(tmp_path))) == (5, 0, 5)
    write(tmp_path, "tests/a/test_plain.py", "def test_plain():\n    import pyarrow\n")
    assert counts(census(tmp_path, [ARROW], cache=FolderCache(tmp_path))) == (5, 1, 4)
    assert counts(census(tmp_path, [ARROW], cache=FolderCache(tmp_path))) == (5, 0, 5)


def test_an_unreadable_folder_cache_is_ignored_and_replaced(tmp_path: Path) -> None:
    tree(tmp_path)
    path = tmp_path / ".pytest_cache" / "v" / "tierlock" / "census"
    path.parent.mkdir(parents=True)
    path.write_text("{not json", encoding="utf-8")
    first = census(tmp_path, [ARROW], cache=FolderCache(tmp_path))
    assert counts(first) == (5, 3, 0)
    assert len(json.loads(path.read_text(encoding="utf-8"))["files"]) == 5
    assert counts(census(tmp_path, [ARROW], cache=FolderCache(tmp_path))) == (5, 0, 5)


def test_a_folder_cache_that_cannot_be_written_leaves_the_census_uncached(tmp_path: Path) -> None:
    tree(tmp_path)
    (tmp_path / ".pytest_cache").mkdir()
    (tmp_path / ".pytest_cache" / "v").write_text("a file where pytest keeps a folder", encoding="utf-8")
    for _ in range(2):
        assert counts(census(tmp_path, [ARROW], cache=FolderCache(tmp_path))) == (5, 3, 0)
    assert [p.name for p in (tmp_path / ".pytest_cache").iterdir()] == ["v"]
    assert not [n for n in os.listdir(tmp_path / ".pytest_cache") if n.endswith(".tmp")]


PYPROJECT = pyproject(
    name="shop",
    version="0.1",
    requires_python=None,
    dependencies=None,
    extras={"arrow": ["pyarrow"]},
    tiers={"arrow": {"tests": ["tests/arrow/**"]}},
)


def test_the_census_command_uses_the_projects_pytest_cache_when_there_is_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "pyproject.toml").write_text(PYPROJECT, encoding="utf-8")
    tree(tmp_path)

    def run() -> tuple[int, int, int]:
        code = main(["--project", str(tmp_path), "--json", "census"])
        doc = json.loads(capsys.readouterr().out)
        assert code == (0 if doc["ok"] else 1)
        return doc["files_read"], doc["files_parsed"], doc["files_cached"]

    assert run() == (5, 3, 0)
    assert run() == (5, 3, 0)
    assert not (tmp_path / ".pytest_cache").exists()
    (tmp_path / ".pytest_cache").mkdir()
    assert run() == (5, 3, 0)
    assert run() == (5, 0, 5)
