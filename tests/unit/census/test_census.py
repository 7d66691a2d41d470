"""The census: which test files need which tier, read with ast (never imported)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.support.censusfiles import write
from tests.support.cli import cli_json
from tests.support.tierproject import build_wheelhouse, make_project
from tierlock.census import census, read_file
from tierlock.cli import main

PYPROJECT = """\
[project]
name = "shop"
version = "0.1"
dependencies = ["basepkg"]

[project.optional-dependencies]
arrow = ["pyarrow"]
pandas = ["pandas"]

[tool.tierlock.tiers.arrow]
tests = ["shop/tests/arrow/**", "shop/tests/test_aroow_io.py"]

[tool.tierlock.tiers.pandas]
layered-on = "arrow"
tests = ["shop/tests/pandas/**"]
{extra}
[tool.pytest.ini_options]
testpaths = ["shop"]
"""


@pytest.fixture
def shop(tmp_path: Path) -> Path:
    """A project shaped like a real one: tests inside the package folder, a conftest fixture needing pyarrow."""
    (tmp_path / "pyproject.toml").write_text(PYPROJECT.format(extra=""), encoding="utf-8")
    write(tmp_path, "shop/__init__.py", "")
    write(
        tmp_path,
        "shop/tests/conftest.py",
        """\
        import pytest

        @pytest.fixture
        def table():
            import pyarrow as pa
            return pa.table({})

        @pytest.fixture
        def wrapped(table):
            return table
        """,
    )
    write(tmp_path, "shop/tests/arrow/test_fs.py", "from pyarrow import fs\n\ndef test_fs():\n    pass\n")
    write(tmp_path, "shop/tests/pandas/test_frame.py", "import pyarrow\nimport pandas\n\ndef test_frame():\n    pass\n")
    write(
        tmp_path,
        "shop/tests/test_mixed.py",
        """\
        import pytest

        def test_plain():
            pass

        def test_uses_table(table):
            pass

        def test_inner():
            import pyarrow.compute
        """,
    )
    write(tmp_path, "shop/tests/test_wrapped.py", "def test_w(wrapped):\n    pass\n")
    write(tmp_path, "shop/tests/test_skip.py", "import pytest\npa = pytest.importorskip('pyarrow.parquet')\n")
    write(
        tmp_path,
        "shop/tests/test_marked.py",
        """\
        import pytest

        @pytest.mark.tier("arrow")
        def test_marked():
            import pyarrow
        """,
    )
    write(tmp_path, "shop/tests/test_plain.py", "def test_plain():\n    pass\n")
    return tmp_path


def census_json(capsys: pytest.CaptureFixture[str], root: Path, *args: str) -> tuple[int, dict[str, Any]]:
    return cli_json(capsys, "--project", str(root), "--json", *args)


def test_census_finds_importers_outside_the_globs_with_file_and_line(
    shop: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, doc = census_json(capsys, shop, "census")
    assert (code, doc["ok"]) == (1, False)  # findings: exit 1, as check
    arrow = next(t for t in doc["tiers"] if t["tier"] == "arrow")
    outside = {(u["file"], u["line"]) for u in arrow["importers_outside"]}
    assert outside == {
        ("shop/tests/test_mixed.py", 6),  # the conftest fixture `table`
        ("shop/tests/test_mixed.py", 10),  # import inside a function
        ("shop/tests/test_wrapped.py", 1),  # a fixture that requests `table`
        ("shop/tests/test_skip.py", 2),  # importorskip
    }  # the conftest's fixture is no use of its own: its users are
    assert arrow["covered"] == ["shop/tests/arrow/test_fs.py"]
    fixtures = {(u["file"], u["how"]) for u in arrow["fixtures"]}
    assert ("shop/tests/conftest.py", "fixture table needs pyarrow") in fixtures
    assert ("shop/tests/conftest.py", "fixture wrapped needs pyarrow") in fixtures


def test_a_file_of_a_tier_layered_on_the_tier_and_a_marked_test_are_covered(
    shop: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, doc = census_json(capsys, shop, "census")
    arrow = next(t for t in doc["tiers"] if t["tier"] == "arrow")
    inside = {u["file"] for u in arrow["importers_inside"]}
    assert inside == {"shop/tests/arrow/test_fs.py", "shop/tests/pandas/test_frame.py", "shop/tests/test_marked.py"}


def test_check_reports_importers_and_a_glob_matching_nothing_with_the_fix(
    shop: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, doc = census_json(capsys, shop, "check", "arrow")
    assert code == 1
    census_findings = doc["census"]
    kinds = {(f["kind"], f["file"]) for f in census_findings}
    assert ("census-glob", "pyproject.toml") in kinds
    assert ("census-importer", "shop/tests/test_skip.py") in kinds
    glob = next(f for f in census_findings if f["kind"] == "census-glob")
    assert "shop/tests/test_aroow_io.py" in glob["detail"]
    skip = next(f for f in census_findings if f["file"] == "shop/tests/test_skip.py")
    assert skip["remedy"] == 'add "shop/tests/test_skip.py" to [tool.tierlock.tiers.arrow].tests'


def test_the_printed_fix_clears_the_finding(shop: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = (shop / "pyproject.toml").read_text(encoding="utf-8")
    fixed = text.replace('"shop/tests/test_aroow_io.py"', '"shop/tests/test_skip.py", "shop/tests/test_mixed.py"')
    fixed = fixed.replace('"shop/tests/arrow/**"', '"shop/tests/arrow/**", "shop/tests/test_wrapped.py"')
    (shop / "pyproject.toml").write_text(fixed, encoding="utf-8")
    _, doc = census_json(capsys, shop, "check", "arrow")
    assert doc["census"] == []


def test_an_accepted_importer_is_no_finding(shop: Path, capsys: pytest.CaptureFixture[str]) -> None:
    extra = '[tool.tierlock.census.accept]\narrow = ["shop/tests/test_skip.py"]\n'
    (shop / "pyproject.toml").write_text(PYPROJECT.format(extra=extra), encoding="utf-8")
    _, doc = census_json(capsys, shop, "check", "arrow")
    files = {f["file"] for f in doc["census"]}
    assert "shop/tests/test_skip.py" not in files
    _, doc = census_json(capsys, shop, "census", "arrow")
    accepted = doc["tiers"][0]["accepted"]
    assert [u["file"] for u in accepted] == ["shop/tests/test_skip.py"]


def test_an_accept_entry_for_an_unknown_tier_is_a_config_error(shop: Path, capsys: pytest.CaptureFixture[str]) -> None:
    extra = '[tool.tierlock.census.accept]\narow = ["shop/tests/test_skip.py"]\n'
    (shop / "pyproject.toml").write_text(PYPROJECT.format(extra=extra), encoding="utf-8")
    code = main(["--project", str(shop), "census"])
    assert code == 2
    assert "unknown tier 'arow'" in capsys.readouterr().err


def test_a_tier_without_globs_lists_importers_but_reports_no_problem(tmp_path: Path) -> None:
    write(tmp_path, "tests/test_a.py", "import pytest\n")
    from tierlock.census import CensusTier

    result = census(tmp_path, [CensusTier("test", ("pytest",), ())])
    assert [u.file for u in result.tier("test").outside] == ["tests/test_a.py"]
    assert result.findings() == []


def test_an_autouse_conftest_fixture_makes_every_file_below_it_an_importer(tmp_path: Path) -> None:
    write(
        tmp_path,
        "tests/io/conftest.py",
        "import pytest\n\n@pytest.fixture(autouse=True)\ndef arm():\n    import pyarrow\n",
    )
    write(tmp_path, "tests/io/test_a.py", "def test_a():\n    pass\n")
    write(tmp_path, "tests/test_b.py", "def test_b():\n    pass\n")
    from tierlock.census import CensusTier

    result = census(tmp_path, [CensusTier("arrow", ("pyarrow",), ("tests/arrow/**",))])
    files = {u.file for u in result.tier("arrow").outside}
    assert files == {"tests/io/test_a.py"}


def test_a_file_that_does_not_parse_is_read_as_having_nothing() -> None:
    assert read_file("def broken(:\n").imports == []


def test_a_clean_locked_project_passes_check_with_its_census(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    wheels = build_wheelhouse(tmp_path / "wheels")
    root = make_project(tmp_path / "app", wheels)
    write(root, "tests/brain/test_core.py", "import corelib\n")
    write(root, "tests/test_base.py", "import basepkg\n")
    assert main(["--project", str(root), "check"]) == 0
    write(root, "tests/test_leak.py", "def test_x():\n    import helper\n")
    assert main(["--project", str(root), "check"]) == 1
    out = capsys.readouterr().out
    assert "tests/test_leak.py:2: brain: census-importer" in out


class DictCache:
    def __init__(self) -> None:
        self.data: dict[str, object] = {}

    def get(self, key: str, default: object) -> object:
        return json.loads(json.dumps(self.data[key])) if key in self.data else default

    def set(self, key: str, value: object) -> None:
        self.data[key] = value


def test_an_unchanged_file_is_neither_read_nor_parsed_again_and_a_changed_one_is(shop: Path) -> None:
    from tierlock.census import census_tiers
    from tierlock.tiers import load_project

    project = load_project(shop)
    tiers = census_tiers(project)
    cache = DictCache()
    first = census(shop, tiers, cache=cache)
    second = census(shop, tiers, cache=cache)
    assert second.files_parsed == 0
    assert second.files_cached == second.files_read
    assert second.to_dict()["tiers"] == first.to_dict()["tiers"]
    write(shop, "shop/tests/test_plain.py", "import pyarrow\n\n\ndef test_plain():\n    pass\n")
    third = census(shop, tiers, cache=cache)
    assert third.files_parsed == 1
    assert "shop/tests/test_plain.py" in {u.file for u in third.tier("arrow").outside}


def test_a_typod_glob_gets_the_closest_existing_folder_and_the_hint_clears_the_finding(
    shop: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pyproject = shop / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace('"shop/tests/test_aroow_io.py"', '"shop/tests/arow/**"'))
    _, doc = census_json(capsys, shop, "check", "arrow")
    glob = next(f for f in doc["census"] if f["kind"] == "census-glob")
    assert glob["remedy"].endswith("did you mean 'shop/tests/arrow/**'?")
    pyproject.write_text(pyproject.read_text().replace('"shop/tests/arow/**"', '"shop/tests/arrow/**"'))
    _, doc = census_json(capsys, shop, "check", "arrow")
    assert [f for f in doc["census"] if f["kind"] == "census-glob"] == []
