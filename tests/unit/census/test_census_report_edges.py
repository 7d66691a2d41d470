"""What the census reports per tier: covered files, glob counts and hints, findings and their remedies.

Through :func:`tierlock.census.census` on real trees; the findings are compared whole (kind, place, detail,
remedy, rendering), as ``tierlock check`` prints them.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.censusfiles import write
from tierlock.census import Census, CensusTier, census

ARROW = CensusTier("arrow", ("pyarrow",), ("tests/arrow/**",))
POLARS = CensusTier("polars", ("polars",), ("tests/polars/**",))


def where(result: Census, tier: str, part: str) -> list[tuple[str, int]]:
    return [(u.file, u.line) for u in getattr(result.tier(tier), part)]


def test_findings_of_each_gating_tier_come_whole_with_their_remedies(tmp_path: Path) -> None:
    write(tmp_path, "tests/arrow/test_fs.py")
    write(tmp_path, "tests/test_io.py", "import pytest\nimport pyarrow\n\n\ndef test_io(table):\n    import pyarrow\n")
    write(tmp_path, "tests/conftest.py", "import pytest\n\n@pytest.fixture\ndef table():\n    import polars\n")
    test_tier = CensusTier("test", ("pytest",), ())
    arrow = CensusTier("arrow", ("pyarrow",), ("tests/arrow/**", "nowhere/**", "tests/arow/**"))
    result = census(tmp_path, [test_tier, arrow, POLARS])
    assert [f.to_dict() for f in result.findings()] == [
        {
            "tier": "arrow",
            "kind": "census-glob",
            "file": "pyproject.toml",
            "line": None,
            "detail": "tests glob 'nowhere/**' matches no file",
            "remedy": "fix the glob in [tool.tierlock.tiers.arrow].tests (a typo gates nothing)",
            "remedy_argv": None,
        },
        {
            "tier": "arrow",
            "kind": "census-glob",
            "file": "pyproject.toml",
            "line": None,
            "detail": "tests glob 'tests/arow/**' matches no file",
            "remedy": "fix the glob in [tool.tierlock.tiers.arrow].tests (a typo gates nothing)"
            "; did you mean 'tests/arrow/**'?",
            "remedy_argv": None,
        },
        {  # one finding per tier and file, with each line
            "tier": "arrow",
            "kind": "census-importer",
            "file": "tests/test_io.py",
            "line": 2,
            "detail": "needs tier arrow (import pyarrow) outside its tests globs and 1 more place(s)",
            "remedy": 'add "tests/test_io.py" to [tool.tierlock.tiers.arrow].tests',
            "remedy_argv": None,
            "lines": [2, 6],
            "roots": ["pyarrow"],
            "fix": {"tests": ["tests/test_io.py"]},
        },
        {
            "tier": "polars",
            "kind": "census-glob",
            "file": "pyproject.toml",
            "line": None,
            "detail": "tests glob 'tests/polars/**' matches no file",
            "remedy": "fix the glob in [tool.tierlock.tiers.polars].tests (a typo gates nothing)",
            "remedy_argv": None,
        },
        {  # the conftest's fixture is no finding of the conftest: its one user is
            "tier": "polars",
            "kind": "census-importer",
            "file": "tests/test_io.py",
            "line": 5,
            "detail": "needs tier polars (fixture table (tests/conftest.py:5 needs polars)) outside its tests globs",
            "remedy": 'add "tests/test_io.py" to [tool.tierlock.tiers.polars].tests'
            ", or mark its tests: pytestmark = pytest.mark.tier('polars')",
            "remedy_argv": None,
            "lines": [5],
            "roots": ["polars"],
            "fix": {"tests": ["tests/test_io.py"]},
        },
    ]
    rendered = [f.render() for f in result.findings()]
    assert rendered[0] == "pyproject.toml: arrow: census-glob: tests glob 'nowhere/**' matches no file"
    assert rendered[2] == (
        "tests/test_io.py:2: arrow: census-importer: needs tier arrow (import pyarrow) outside its tests globs"
        " and 1 more place(s)"
    )
    assert repr(result.findings()[2]) == f"Finding({rendered[2]!r})"
    assert result.to_dict()["ok"] is False
    assert [u.module_level for u in result.tier("polars").fixtures] == [False]
    assert where(result, "test", "outside") == [("tests/conftest.py", 1), ("tests/test_io.py", 1)]


def test_a_census_without_findings_is_ok_and_a_glob_matching_one_file_is_no_finding(tmp_path: Path) -> None:
    write(tmp_path, "tests/arrow/test_fs.py")
    write(tmp_path, "tests/test_io.py", "import os\n")
    result = census(tmp_path, [ARROW, CensusTier("polars", ("polars",), ())])
    assert result.findings() == []
    doc = result.to_dict()
    assert doc["ok"] is True
    assert doc["tiers"][0]["globs"] == [{"glob": "tests/arrow/**", "files": 1}]
    assert doc["tiers"][1]["globs"] == []


def test_each_tier_is_found_by_name_and_an_unknown_one_is_a_key_error(tmp_path: Path) -> None:
    write(tmp_path, "tests/test_io.py", "import pyarrow\nimport polars\n")
    result = census(tmp_path, [ARROW, POLARS])
    assert result.tier("polars").tier == "polars"
    assert where(result, "polars", "outside") == [("tests/test_io.py", 2)]
    assert result.importer_files("arrow") == {"tests/test_io.py"}
    with pytest.raises(KeyError):
        result.tier("gpu")


def test_globs_count_every_file_they_match_and_covered_lists_only_test_files(tmp_path: Path) -> None:
    write(tmp_path, "tests/arrow/test_fs.py")
    write(tmp_path, "tests/arrow/test_io.py")
    write(tmp_path, "tests/arrow/conftest.py", "import pytest\n")
    write(tmp_path, "tests/arrow/data.csv", "a,b\n")
    result = census(tmp_path, [ARROW])
    report = result.tier("arrow")
    assert report.glob_matches == {"tests/arrow/**": 4}
    assert report.covered == ["tests/arrow/test_fs.py", "tests/arrow/test_io.py"]
    assert where(result, "arrow", "inside") == [("tests/arrow/test_fs.py", 1), ("tests/arrow/test_io.py", 1)]


def test_a_run_limited_to_some_files_reports_only_their_uses_but_counts_every_file(tmp_path: Path) -> None:
    write(tmp_path, "tests/test_a.py")
    write(tmp_path, "tests/test_b.py")
    write(tmp_path, "tests/test_c.py")
    result = census(tmp_path, [ARROW], limit_to=["tests/test_b.py"])
    assert where(result, "arrow", "outside") == [("tests/test_b.py", 1)]
    assert result.files_read == 3


def test_only_the_tiers_asked_for_are_reported_and_the_others_still_cover_through_layering(tmp_path: Path) -> None:
    write(tmp_path, "tests/polars/test_frame.py", "import pyarrow\nimport polars\n")
    write(tmp_path, "tests/test_io.py", "import pyarrow\n")
    arrow = CensusTier("arrow", ("pyarrow",), ("tests/arrow/**",), covered_by=("polars", "unknown"))
    result = census(tmp_path, [arrow, POLARS], report=["polars"])
    assert [r.tier for r in result.tiers] == ["polars"]
    result = census(tmp_path, [arrow, POLARS], report=["arrow"])
    assert [r.tier for r in result.tiers] == ["arrow"]
    assert where(result, "arrow", "inside") == [("tests/polars/test_frame.py", 1)]
    assert where(result, "arrow", "outside") == [("tests/test_io.py", 1)]


def test_a_tier_not_layered_on_another_is_not_covered_by_its_globs_or_marks(tmp_path: Path) -> None:
    write(tmp_path, "tests/polars/test_frame.py", "import pyarrow\n")
    write(
        tmp_path,
        "tests/test_marked.py",
        "import pytest\n\n@pytest.mark.tier('polars')\ndef test_m():\n    import pyarrow\n",
    )
    result = census(tmp_path, [ARROW, POLARS])
    assert where(result, "arrow", "outside") == [("tests/polars/test_frame.py", 1), ("tests/test_marked.py", 5)]


def test_accepted_importers_are_listed_apart_and_only_those_the_accept_globs_match(tmp_path: Path) -> None:
    write(tmp_path, "tests/compat/test_optional.py")
    write(tmp_path, "tests/test_io.py")
    arrow = CensusTier("arrow", ("pyarrow",), ("tests/arrow/**",), accept=("tests/compat/**",))
    result = census(tmp_path, [arrow])
    assert where(result, "arrow", "accepted") == [("tests/compat/test_optional.py", 1)]
    assert where(result, "arrow", "outside") == [("tests/test_io.py", 1)]


def test_a_glob_reaching_outside_the_test_paths_is_read_there_and_only_there(tmp_path: Path) -> None:
    write(tmp_path, "tests/test_io.py", "import os\n")
    write(tmp_path, "integration/arrow/test_a.py")
    write(tmp_path, "integration/arrow2/test_b.py")
    write(tmp_path, "integration/test_lit.py")
    write(tmp_path, "integration/other/test_not_globbed.py")
    globs = ("integration/arrow/**", "./integration/arrow2/*.py", "integration/test_lit.py")
    tier = CensusTier("arrow", ("pyarrow",), globs)
    result = census(tmp_path, [tier], folders=["tests"])
    assert result.findings() == []
    assert result.tier("arrow").glob_matches == dict.fromkeys(globs, 1)
    assert sorted(u.file for u in result.tier("arrow").inside) == [
        "integration/arrow/test_a.py",
        "integration/arrow2/test_b.py",
        "integration/test_lit.py",
    ]
    assert result.files_read == 4
    # Without walking the globs' folders (the pytest plugin reads only its selection), they match nothing.
    assert census(tmp_path, [tier], folders=["tests"], walk_globs=False).tier("arrow").glob_matches == dict.fromkeys(
        globs, 0
    )


@pytest.mark.parametrize(
    ("glob", "hint"),
    [
        ("test/**", "tests/**"),
        ("tests/arow/**", "tests/arrow/**"),
        ("./tests/arow/**", "tests/arrow/**"),
        ("tests\\arow\\*.py", "tests/arrow/*.py"),
        ("tests/arrow/test_fz.py", "tests/arrow/test_fs.py"),
        ("tests/arow", "tests/arrow"),
        ("quite/elsewhere/**", None),
        ("**/test_nothing_*.py", None),
    ],
)
def test_a_glob_matching_nothing_gets_the_closest_existing_place_as_a_hint(
    tmp_path: Path, glob: str, hint: str | None
) -> None:
    write(tmp_path, "tests/arrow/test_fs.py", "import os\n")
    result = census(tmp_path, [CensusTier("arrow", ("pyarrow",), (glob,))])
    assert result.tier("arrow").glob_hints == ({glob: hint} if hint else {})
    (finding,) = result.findings()
    assert finding.remedy.endswith(f"; did you mean {hint!r}?" if hint else "(a typo gates nothing)")
