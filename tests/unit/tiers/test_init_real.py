"""``tierlock init`` on projects shaped like real ones: extras vs tooling groups, conflicts, workspace members,
test globs read statically, and the ``tier`` marker registered where pytest reads its configuration."""

from __future__ import annotations

import textwrap
import tomllib
from pathlib import Path

import pytest

from tests.support.cli import cli_json
from tierlock.cli import main
from tierlock.tiers import load_project
from tierlock.tiers.pytest_marker import MARKER, register
from tierlock.tiers.testimports import compact, globs_for

FRAMES = """\
[project]
name = "frames"
version = "1.0"
requires-python = ">=3.10"
dependencies = []

[project.optional-dependencies]
pandas = ["pandas>=1.3"]
pyarrow = ["pyarrow>=13"]
polars = ["polars>=0.20"]
modin = ["modin>=0.22"]
spark = ["pyspark>=3.5"]
spark-connect = ["pyspark[connect]>=3.5"]
sql = ["frames[pyarrow]", "sqlparse"]

[dependency-groups]
tests = ["pytest", "hypothesis"]
docs = ["mkdocs"]
plugins = ["test-plugin"]
typing = ["mypy", {include-group = "plugins"}]

[tool.uv]
conflicts = [
  [{ extra = "pandas" }, { extra = "modin" }],
  [{ extra = "modin" }, { group = "docs" }],
]

[tool.uv.workspace]
members = ["packages/*"]

[tool.uv.sources]
test-plugin = { workspace = true }

[tool.pytest.ini_options]
testpaths = ["tests"]
"""


def write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))


@pytest.fixture
def frames(tmp_path: Path) -> Path:
    root = tmp_path / "frames"
    write(
        root,
        {
            "pyproject.toml": FRAMES,
            "packages/test-plugin/pyproject.toml": '[project]\nname = "test-plugin"\nversion = "0"\n',
            "tests/polars/test_frame.py": "import polars as pl\n",
            "tests/polars/test_lazy.py": "pl = __import__('pytest').importorskip('polars')\n",
            "tests/test_pandas_io.py": "import pytest\n\npd = pytest.importorskip('pandas')\n",
            "tests/test_both.py": "import pyarrow\nfrom pandas import DataFrame\n",
            "tests/test_lazy_inside.py": "import pytest\n\ndef test_x():\n    pytest.importorskip('pyarrow')\n",
            "tests/test_typing_only.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import polars\n",
            "tests/test_optional.py": "try:\n    import pyarrow\nexcept ImportError:\n    pyarrow = None\n",
        },
    )
    return root


def init_json(capsys: pytest.CaptureFixture[str], root: Path, *argv: str) -> dict[str, object]:
    code, doc = cli_json(capsys, "--project", str(root), "--json", "init", *argv)
    assert code == 0
    return dict(doc)


def test_extras_become_tiers_and_groups_are_left_out_without_a_terminal_saying_how(
    frames: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    assert main(["--project", str(frames), "init"]) == 0
    out = capsys.readouterr().out
    model = load_project(frames)
    assert list(model.tiers) == ["base", "pandas", "pyarrow", "polars", "modin", "spark", "spark-connect", "sql"]
    assert (
        "left out 4 dependency group(s), usually tooling rather than gating tiers: tests, docs, plugins, typing" in out
    )
    command = next(line for line in out.splitlines() if "to make some of them tiers, run:" in line)
    assert f"tierlock --project {frames} init --groups tests docs plugins typing" in command  # (the project given)
    # the printed command works on the project init just wrote (for the groups one names)
    capsys.readouterr()
    assert main(["--project", str(frames), "init", "--groups", "tests", "docs"]) == 0
    assert "added tier tests (group:tests)" in capsys.readouterr().out
    assert {"tests", "docs"} <= set(load_project(frames).tiers)


def test_groups_reaching_a_workspace_member_are_skipped_saying_why(
    frames: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    doc = init_json(capsys, frames, "--all-groups", "--dry-run")
    skipped = {s["name"]: s["reason"] for s in doc["skipped"]}  # type: ignore[attr-defined]
    reason = "it reaches test-plugin, a workspace member (packages/test-plugin), which no package index serves"
    assert skipped == {"plugins": reason, "typing": reason}
    assert [t["name"] for t in doc["tiers"]][-2:] == ["tests", "docs"]  # type: ignore[attr-defined]


def test_uv_conflicts_become_declared_exclusions_and_contained_roots_become_layers(
    frames: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    doc = init_json(capsys, frames, "--all-groups")
    assert doc["conflicts"] == [["pandas", "modin"], ["modin", "docs"]]
    layered = {t["name"]: t["layered_on"] for t in doc["tiers"]}  # type: ignore[attr-defined]
    assert layered["sql"] == "pyarrow"  # frames[pyarrow] + sqlparse contains pyarrow's roots
    assert layered["spark-connect"] == "spark"  # pyspark[connect] contains pyspark
    assert layered["pandas"] is None
    model = load_project(frames)
    assert model.exclusive("pandas", "modin")
    assert model.tier("sql").layered_on == "pyarrow"


def test_tests_globs_come_from_files_whose_every_test_needs_the_tier_and_the_others_are_unsettled(
    frames: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (frames / "tests" / "test_mixed.py").write_text(
        "import pytest\n\n\ndef test_plain():\n    pass\n\n\ndef test_frames():\n    pytest.importorskip('modin')\n"
    )
    doc = init_json(capsys, frames)
    tests = {t["name"]: t["tests"] for t in doc["tiers"]}  # type: ignore[attr-defined]
    assert tests["polars"] == ["tests/polars/**"]  # every test file of the folder needs polars
    assert tests["pandas"] == ["tests/test_both.py", "tests/test_pandas_io.py"]
    # at import, or in each of its tests; not the try or TYPE_CHECKING imports
    assert tests["pyarrow"] == ["tests/test_both.py", "tests/test_lazy_inside.py"]
    assert tests["modin"] == []
    assert doc["unsettled"] == {
        "modin": [{"file": "tests/test_mixed.py", "tests": ["test_frames"], "other_tests": 1}],
    }
    assert doc["ci_require"] == ["pandas", "pyarrow", "polars", "modin"]


def test_globs_name_a_folder_whose_every_test_file_is_chosen_and_files_one_by_one_otherwise() -> None:
    imports = {
        "a/t1.py": frozenset({"x"}),
        "a/t2.py": frozenset({"x"}),
        "b/t3.py": frozenset({"x"}),
        "b/t4.py": frozenset(),
    }
    assert globs_for(["x"], imports) == ["a/**", "b/t3.py"]
    files = ["a/t1.py", "a/t2.py", "b/t3.py", "b/c/t5.py", "b/t4.py"]
    assert compact(["b/c/**", "a/t1.py"], files) == ["a/t1.py", "b/c/**"]  # a conftest's folder stays a folder
    assert compact(["b/c/**", "b/t3.py", "b/t4.py"], files) == ["b/**"]
    assert compact(["**"], files) == ["**"]


SUITE = """\
import pytest


@pytest.mark.tier("brain")
def test_marked():
    assert True
"""


@pytest.mark.parametrize(
    ("files", "where"),
    [
        ({}, "[tool.pytest.ini_options].markers"),
        ({"pytest.ini": "[pytest]\naddopts = -q\n"}, "[pytest] markers"),
        ({"tox.ini": "[tox]\nenv_list = py\n\n[pytest]\nmarkers =\n    slow: slow tests\n"}, "[pytest] markers"),
        ({"setup.cfg": "[metadata]\nname = x\n\n[tool:pytest]\nxfail_strict = true\n"}, "[tool:pytest] markers"),
    ],
)
def test_a_suite_marked_with_tier_runs_without_the_plugin_under_strict_markers_and_warnings_as_errors(
    pytester: pytest.Pytester, files: dict[str, str], where: str, capsys: pytest.CaptureFixture[str]
) -> None:
    root = pytester.path
    pyproject = '[project]\nname = "suite"\nversion = "0"\n\n[project.optional-dependencies]\nbrain = ["numpy"]\n'
    if not files:
        pyproject += '\n[tool.pytest.ini_options]\nfilterwarnings = ["error"]\naddopts = "--strict-markers"\n'
    write(root, {"pyproject.toml": pyproject, **files, "tests/test_suite.py": SUITE})
    strict = ["-p", "no:tierlock", "-p", "no:randomly", "-p", "no:xdist", "--strict-markers", "-W", "error"]
    if not files:  # once: the same suite fails before init ('tier' is unknown without the plugin)
        before = pytester.runpytest_subprocess(*strict)
        assert before.ret != 0
    doc = init_json(capsys, root)
    assert doc["pytest_marker"]["where"] == where  # type: ignore[index]
    after = pytester.runpytest_subprocess(*strict)
    after.assert_outcomes(passed=1)
    assert register(root, (root / "pyproject.toml").read_text()) is None  # registered once, not twice


def test_a_marker_already_registered_is_left_alone_and_other_bytes_are_kept(tmp_path: Path) -> None:
    text = '# top\n[tool.pytest.ini_options]\nmarkers = [\n  "slow: slow",  # keep\n]\n\n[tool.x]\ny = 1\n'
    edit = register(tmp_path, text)
    assert edit is not None
    assert edit.text.startswith('# top\n[tool.pytest.ini_options]\nmarkers = [\n  "slow: slow",  # keep\n')
    assert MARKER in tomllib.loads(edit.text)["tool"]["pytest"]["ini_options"]["markers"]
    assert edit.text.endswith("[tool.x]\ny = 1\n")
    assert register(tmp_path, edit.text) is None


def test_on_a_terminal_init_asks_which_groups_become_tiers(
    frames: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import tierlock.commands.init as command

    asked: list[str] = []

    def answer(prompt: str) -> str:
        asked.append(prompt)
        return "docs"

    monkeypatch.setattr(command, "_interactive", lambda: True)
    monkeypatch.setattr("builtins.input", answer)
    capsys.readouterr()
    assert main(["--project", str(frames), "init"]) == 0
    out = capsys.readouterr().out
    assert len(asked) == 1
    assert "  tests  (tooling)" in out
    assert "  plugins\n" in out  # not tooling by its name: listed, still only taken when named
    assert "docs" in load_project(frames).tiers
    assert "tests" not in load_project(frames).tiers
    assert "left out 3 dependency group(s)" in out


def test_layers_follow_closures_the_projects_environment_knows(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "app"
    site = ".venv/lib/python3.11/site-packages"
    write(
        root,
        {
            "pyproject.toml": (
                '[project]\nname = "app"\nversion = "0"\ndependencies = []\n\n[project.optional-dependencies]\n'
                'pandas = ["pandas"]\ndask = ["dask[dataframe]"]\nplain = ["dask"]\n'
            ),
            f"{site}/pandas-2.0.dist-info/METADATA": "Name: pandas\nVersion: 2.0\nRequires-Dist: numpy>=1.22\n",
            f"{site}/numpy-2.0.dist-info/METADATA": "Name: numpy\nVersion: 2.0\n",
            f"{site}/dask-2024.8.dist-info/METADATA": (
                'Name: dask\nVersion: 2024.8\nRequires-Dist: toolz\nRequires-Dist: pandas>=2; extra == "dataframe"\n'
            ),
            f"{site}/toolz-1.0.dist-info/METADATA": "Name: toolz\nVersion: 1.0\n",
        },
    )
    doc = init_json(capsys, root, "--dry-run")
    layered = {t["name"]: t["layered_on"] for t in doc["tiers"]}  # type: ignore[attr-defined]
    # dask[dataframe] needs pandas (and numpy) through its metadata; plain dask does not
    assert layered == {"pandas": None, "dask": "pandas", "plain": None}
