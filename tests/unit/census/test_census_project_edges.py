"""The census of a project: its tiers' roots and layering, pytest's test paths, and ``[tool.tierlock.census]``.

Through the ``tierlock census`` and ``tierlock check`` commands on real projects (a ``pyproject.toml``, a
``pytest.ini``, test files in tmp_path), and :func:`tierlock.census.pytest_settings` for pytest's settings.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.support.censusfiles import write
from tests.support.cli import cli_json
from tierlock.census import DEFAULT_PATTERNS, pytest_settings
from tierlock.cli import main

HEAD = """\
[project]
name = "shop"
version = "0.1"

[project.optional-dependencies]
arrow = ["pyarrow"]
yaml = ["pyyaml", "typing-extensions"]
gpu = ["cupy"]
frames = ["pandas"]

[tool.tierlock.tiers.arrow]
tests = ["tests/arrow/**"]

[tool.tierlock.tiers.yaml]
tests = ["tests/yaml/**"]

[tool.tierlock.tiers.yaml.import-roots]
pyyaml = ["yaml"]

[tool.tierlock.tiers.gpu]
tests = ["tests/gpu/**"]

[tool.tierlock.tiers.frames]
layered-on = "arrow"
tests = ["tests/frames/**"]
"""


def project(root: Path, extra: str = "") -> Path:
    write(root, "pyproject.toml", HEAD + extra)
    write(root, "tests/arrow/test_fs.py")
    write(root, "tests/yaml/test_y.py", "import yaml\n")
    write(root, "tests/gpu/test_g.py", "import cupy\nimport pyarrow\n")
    write(root, "tests/frames/test_f.py", "import pandas\nimport pyarrow\n")
    return root


def census_doc(capsys: pytest.CaptureFixture[str], root: Path, *tiers: str) -> dict[str, Any]:
    code, doc = cli_json(capsys, "--project", str(root), "--json", "census", *tiers)
    assert code == (0 if doc["ok"] else 1)  # exit 1 exactly when the document says ok: false
    return dict(doc)


def outside(doc: dict[str, Any], tier: str) -> list[tuple[str, int, str]]:
    report = next(t for t in doc["tiers"] if t["tier"] == tier)
    return [(u["file"], u["line"], u["how"]) for u in report["importers_outside"]]


def test_a_tiers_roots_are_its_import_roots_else_its_distribution_names_and_layering_covers(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = project(tmp_path)
    write(root, "tests/test_io.py", "import yaml\nimport pyyaml\nimport typing_extensions\nimport pyarrow\n")
    doc = census_doc(capsys, root)
    assert [t["tier"] for t in doc["tiers"]] == ["base", "arrow", "yaml", "gpu", "frames"]
    assert outside(doc, "yaml") == [
        ("tests/test_io.py", 1, "import yaml"),
        ("tests/test_io.py", 3, "import typing_extensions"),
    ]
    # frames is layered on arrow: its files may import pyarrow; gpu is not, so its own import is outside.
    assert outside(doc, "arrow") == [
        ("tests/gpu/test_g.py", 2, "import pyarrow"),
        ("tests/test_io.py", 4, "import pyarrow"),
    ]
    assert outside(doc, "frames") == []


def test_the_tiers_named_on_the_command_line_are_the_only_ones_reported(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = project(tmp_path)
    doc = census_doc(capsys, root, "gpu")
    assert [t["tier"] for t in doc["tiers"]] == ["gpu"]
    doc = census_doc(capsys, root, "arrow")
    assert [t["tier"] for t in doc["tiers"]] == ["arrow"]
    assert outside(doc, "arrow") == [("tests/gpu/test_g.py", 2, "import pyarrow")]


@pytest.mark.parametrize(
    ("files", "expected"),
    [
        ({}, (["."], list(DEFAULT_PATTERNS))),
        ({"pyproject.toml": "[tool.pytest.ini_options]\ntestpaths = ['tests', 'it']\n"}, (["tests", "it"], None)),
        ({"pyproject.toml": "[tool.pytest.ini_options]\ntestpaths = 'tests it'\n"}, (["tests", "it"], None)),
        (
            {"pyproject.toml": "[tool.pytest]\ntestpaths = ['tests']\npython_files = ['check_*.py']\n"},
            (["tests"], ["check_*.py"]),
        ),
        (
            {"pyproject.toml": "[tool.pytest.ini_options]\npython_files = 'check_*.py *_check.py'\n"},
            (None, ["check_*.py", "*_check.py"]),
        ),
        ({"pyproject.toml": "[tool.pytest.ini_options]\ntestpaths = 3\n"}, (None, None)),
        ({"pyproject.toml": "[tool.pytest]\nini_options = 3\n"}, (None, None)),
        ({"pyproject.toml": "[tool]\npytest = 3\n"}, (None, None)),
        ({"pyproject.toml": "tool = 3\n"}, (None, None)),
        ({"pyproject.toml": "[tool.pytest.ini_options\n"}, (None, None)),
        (
            {"pytest.ini": "[pytest]\ntestpaths = tests it\npython_files = check_*.py\n"},
            (["tests", "it"], ["check_*.py"]),
        ),
        (
            {"pytest.ini": "[flake8]\nmax-line-length = 120\n", "pyproject.toml": "[tool.pytest]\ntestpaths = ['x']\n"},
            (None, None),
        ),
    ],
)
def test_pytest_settings_come_from_pytest_ini_else_pyproject_else_the_defaults(
    tmp_path: Path, files: dict[str, str], expected: tuple[list[str] | None, list[str] | None]
) -> None:
    for name, text in files.items():
        write(tmp_path, name, text)
    paths, patterns = expected
    assert pytest_settings(tmp_path) == (paths or ["."], patterns or list(DEFAULT_PATTERNS))


def test_the_census_reads_only_the_test_paths_and_python_files_of_the_project(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = project(
        tmp_path, "\n[tool.pytest.ini_options]\ntestpaths = ['tests']\npython_files = ['test_*.py', 'check_*.py']\n"
    )
    write(root, "scripts/test_tool.py")
    write(root, "tests/check_io.py")
    doc = census_doc(capsys, root, "arrow")
    assert outside(doc, "arrow") == [
        ("tests/check_io.py", 1, "import pyarrow"),
        ("tests/gpu/test_g.py", 2, "import pyarrow"),
    ]
    assert doc["files_read"] == 5


@pytest.mark.parametrize(
    ("table", "message", "remedy"),
    [
        (
            "[tool.tierlock]\ncensus = 3\n",
            "[tool.tierlock.census] must be a table",
            "make [tool.tierlock.census] a table",
        ),
        (
            "[tool.tierlock.census]\naccpet = 1\nother = 2\n",
            "[tool.tierlock.census]: unknown key 'accpet' (known: accept)",
            "remove 'accpet'",
        ),
        (
            "[tool.tierlock.census]\naccept = ['tests/x.py']\n",
            "[tool.tierlock.census].accept must be a table of tier = [globs]",
            None,
        ),
        (
            "[tool.tierlock.census.accept]\narrow = 'tests/x.py'\n",
            "[tool.tierlock.census].accept.arrow must be a list of path globs",
            None,
        ),
        (
            "[tool.tierlock.census.accept]\narrow = ['tests/x.py', ' ']\n",
            "[tool.tierlock.census].accept.arrow must be a list of path globs",
            None,
        ),
        (
            "[tool.tierlock.census.accept]\narrow = [3]\n",
            "[tool.tierlock.census].accept.arrow must be a list of path globs",
            None,
        ),
        (
            "[tool.tierlock.census.accept]\narow = ['tests/x.py']\n",
            "[tool.tierlock.census].accept: unknown tier 'arow'; declared: arrow, base, frames, gpu, yaml",
            "remove 'arow' from [tool.tierlock.census].accept or declare the tier",
        ),
    ],
)
def test_a_bad_census_table_is_a_configuration_error_naming_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], table: str, message: str, remedy: str | None
) -> None:
    root = project(tmp_path, "\n" + table)
    assert main(["--project", str(root), "--json", "census"]) == 2
    error = json.loads(capsys.readouterr().out)["error"]
    assert (error["message"], error["file"], error["remedy"]) == (message, str(root / "pyproject.toml"), remedy)


def test_accepted_globs_of_a_tier_spelled_otherwise_apply_to_that_tier(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = project(tmp_path, "\n[tool.tierlock.census.accept]\nARROW = ['tests/compat/**']\n")
    write(root, "tests/compat/test_optional.py")
    doc = census_doc(capsys, root, "arrow")
    report = doc["tiers"][0]
    assert [u["file"] for u in report["accepted"]] == ["tests/compat/test_optional.py"]
    assert outside(doc, "arrow") == [("tests/gpu/test_g.py", 2, "import pyarrow")]


def test_the_import_path_is_the_root_src_and_pytests_pythonpath(tmp_path: Path) -> None:
    from tierlock.census import import_paths

    (tmp_path / "pyproject.toml").write_text('[tool.pytest.ini_options]\npythonpath = ["lib", ".", "./tools/"]\n')
    assert import_paths(tmp_path) == ["", "src", "lib", "tools"]
