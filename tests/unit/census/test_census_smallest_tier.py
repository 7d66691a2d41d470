"""A file that imports X needs the smallest tier that provides X, not every tier that contains it.

``full = ["proj[arrow,polars]"]`` (an aggregate) and ``hdfs = ["pyarrow"]``
(the same root as ``arrow``) both provide pyarrow; a file importing it is a
finding of ``arrow`` alone (fewest roots, then the first declared), and it is
covered by the globs of any tier that provides pyarrow. For the other tiers
the use is listed as belonging to the smaller tier.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.censusfiles import write
from tierlock.census import CensusTier, census
from tierlock.cli import main

ARROW = CensusTier("arrow", ("pyarrow",), ("tests/arrow/**",))
POLARS = CensusTier("polars", ("polars",), ("tests/polars/**",))
FULL = CensusTier("full", ("pyarrow", "polars"), ("tests/full/**",))
HDFS = CensusTier("hdfs", ("pyarrow",), ("tests/hdfs/**",))


def test_a_use_is_a_finding_of_the_smallest_gating_tier_only_and_listed_for_the_others(tmp_path: Path) -> None:
    write(tmp_path, "tests/test_io.py", "import pyarrow\n")
    write(tmp_path, "tests/test_frame.py", "import polars\n")
    result = census(tmp_path, [FULL, ARROW, HDFS, POLARS])
    assert [(f.tier, f.file) for f in result.findings() if f.kind == "census-importer"] == [
        ("arrow", "tests/test_io.py"),
        ("polars", "tests/test_frame.py"),
    ]
    assert [(u.file, u.tier) for u in result.tier("full").elsewhere] == [
        ("tests/test_frame.py", "polars"),
        ("tests/test_io.py", "arrow"),
    ]
    assert [(u.file, u.tier) for u in result.tier("hdfs").elsewhere] == [("tests/test_io.py", "arrow")]
    assert result.importer_files("full") == {"tests/test_io.py", "tests/test_frame.py"}


def test_a_file_in_the_globs_of_any_tier_that_provides_the_root_is_covered(tmp_path: Path) -> None:
    write(tmp_path, "tests/full/test_all.py", "import pyarrow\nimport polars\n")
    write(tmp_path, "tests/hdfs/test_h.py", "import pyarrow\n")
    result = census(tmp_path, [FULL, ARROW, HDFS, POLARS])
    assert [f for f in result.findings() if f.kind == "census-importer"] == []
    assert {u.file for u in result.tier("arrow").inside} == {"tests/full/test_all.py", "tests/hdfs/test_h.py"}


def test_the_smallest_tier_that_gates_wins_over_a_smaller_one_that_gates_nothing(tmp_path: Path) -> None:
    write(tmp_path, "tests/test_io.py", "import pyarrow\n")
    quiet = CensusTier("arrow", ("pyarrow",), ())
    result = census(tmp_path, [FULL, quiet])
    assert [(f.tier, f.file) for f in result.findings() if f.kind == "census-importer"] == [
        ("full", "tests/test_io.py")
    ]


PYPROJECT = """\
[project]
name = "proj"
version = "0.1"

[project.optional-dependencies]
arrow = ["pyarrow"]
polars = ["polars"]
all = ["proj[arrow,polars]"]

[tool.tierlock]
ci-require = ["arrow", "polars"]

[tool.tierlock.tiers.arrow]
tests = ["tests/arrow/**"]

[tool.tierlock.tiers.polars]
tests = ["tests/polars/**"]

[tool.tierlock.tiers.all]
layered-on = "arrow"
"""


def test_check_names_the_small_tier_of_an_aggregate_project(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "pyproject.toml").write_text(PYPROJECT, encoding="utf-8")
    write(tmp_path, "tests/arrow/test_a.py")
    write(tmp_path, "tests/polars/test_p.py", "import polars\n")
    write(tmp_path, "tests/test_mixed.py", "import pytest\n\n\ndef test_x():\n    import polars\n")
    assert main(["--project", str(tmp_path), "--json", "census"]) == 1
    doc = json.loads(capsys.readouterr().out)
    assert [(f["tier"], f["file"], f["remedy"]) for f in doc["findings"]] == [
        (
            "polars",
            "tests/test_mixed.py",
            'add "tests/test_mixed.py" to [tool.tierlock.tiers.polars].tests'
            ", or mark its tests: pytestmark = pytest.mark.tier('polars')",
        )
    ]


REQUIRED = """\
[project]
name = "proj"
version = "0.1"

[project.optional-dependencies]
crypto = ["cryptography"]

[dependency-groups]
test = ["pytest"]

[tool.tierlock]
ci-require = ["crypto", "test"]

[tool.tierlock.tiers.crypto]

[tool.tierlock.tiers.test]
source = "group:test"
"""


def test_a_required_tier_gates_by_markers_but_the_tier_of_the_test_runner_gates_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "pyproject.toml").write_text(REQUIRED, encoding="utf-8")
    write(tmp_path, "tests/test_keys.py", "import pytest\n\n\ndef test_rsa():\n    import cryptography\n")
    assert main(["--project", str(tmp_path), "--json", "census"]) == 1
    doc = json.loads(capsys.readouterr().out)
    assert [(f["tier"], f["file"]) for f in doc["findings"]] == [("crypto", "tests/test_keys.py")]
    assert [(t["tier"], t["gates"]) for t in doc["tiers"]] == [("base", False), ("crypto", True), ("test", False)]
