"""The selection is pytest's: every way pytest narrows a run narrows the gate's counts and its strictness too.

``--ignore``, ``--ignore-glob``, ``--deselect``, ``-k`` and ``-m`` (on the test names and marks written in the
file), ``collect_ignore`` in a conftest (a literal list, or one computed at run time), ``testpaths``, and
``--doctest-modules`` from ``addopts`` (a gated file is never imported by the doctest collector either). A
selected folder never selects a sibling whose name starts like it. The inner project's ``brain`` tier (root
``brainpkg``, never installed) is ``ci-require`` and gates ``tests/brain/**``.
"""

from __future__ import annotations

import pytest

from tests.support.plugin_project import inner_project, write_files
from tierlock.pytest_plugin import EXIT_TIER_MISSING

REMEDY = "tierlock lock brain && install-tier brain"
IMPORTS_BRAIN = """\
from pathlib import Path

Path(__file__).with_name("imported.flag").touch()
import brainpkg


def test_brain():
    assert brainpkg


class TestModel:
    def test_fit(self):
        assert brainpkg
"""


@pytest.fixture
def inner(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    return inner_project(
        pytester,
        monkeypatch,
        {
            "tests/test_base.py": "def test_base():\n    pass\n",
            "tests/brain/test_brain.py": IMPORTS_BRAIN,
            "tests/brain/helpers.py": "import brainpkg\n",
        },
    )


def add_ini(inner: pytest.Pytester, line: str) -> None:
    with (inner.path / "pyproject.toml").open("a", encoding="utf-8") as handle:
        handle.write("\n" + line + "\n")


def never_imported(inner: pytest.Pytester) -> None:
    assert sorted(p.relative_to(inner.path).as_posix() for p in inner.path.rglob("imported.flag")) == []


@pytest.mark.parametrize(
    "narrowing",
    [
        ["--ignore=tests/brain"],
        ["--ignore=tests/brain/test_brain.py"],
        ["--ignore-glob=*/brain/*"],
        ["--deselect=tests/brain/test_brain.py"],
        ["--deselect=tests/brain"],
        ["-k", "test_base"],
        ["-k", "not brain"],
        ["-m", "tier"],
    ],
)
def test_a_ci_run_that_narrows_away_every_gated_test_passes(
    inner: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, narrowing: list[str]
) -> None:
    monkeypatch.setenv("CI", "true")
    result = inner.runpytest(*narrowing)
    assert result.ret in (0, pytest.ExitCode.NO_TESTS_COLLECTED), result.stderr.str()
    result.stdout.fnmatch_lines(["tierlock: brain absent (none of its test files selected)"])
    result.stdout.fnmatch_lines(["tierlock: brain absent; none of its tests were selected"])
    never_imported(inner)


@pytest.mark.parametrize("narrowing", [["-k", "fit"], ["-k", "TestModel"], ["-k", "test_brain.py"], ["-k", "brain"]])
def test_a_ci_run_whose_keywords_keep_a_gated_test_fails_closed(
    inner: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, narrowing: list[str]
) -> None:
    monkeypatch.setenv("CI", "true")
    result = inner.runpytest(*narrowing)
    assert result.ret == EXIT_TIER_MISSING
    never_imported(inner)


def test_a_lenient_run_never_counts_a_file_it_ignored(inner: pytest.Pytester) -> None:
    result = inner.runpytest("--ignore=tests/brain")
    result.assert_outcomes(passed=1)
    assert "not collected" not in result.stdout.str()
    result.stdout.fnmatch_lines(["tierlock: no tier gates a test of this run (2 tiers checked)"])


def test_header_and_summary_agree_on_a_keyword_run(inner: pytest.Pytester) -> None:
    write_files(inner.path, {"tests/brain/test_other.py": "import brainpkg\n\n\ndef test_other():\n    pass\n"})
    result = inner.runpytest("-k", "fit or base")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(
        [
            f"tierlock: brain absent — 1 test file not collected; to run them: {REMEDY}",
            "*",
            f"tierlock: 1 test file not collected and 0 tests skipped because brain absent; to run them: {REMEDY}",
        ]
    )


@pytest.mark.parametrize(
    "conftest",
    [
        'collect_ignore = ["brain"]\n',
        'collect_ignore_glob = ["brain/*"]\n',
        "import sys\n\ncollect_ignore = []\nif sys.version_info >= (3,):\n    collect_ignore.append('brain')\n",
    ],
)
def test_collect_ignore_in_a_conftest_narrows_the_run(
    inner: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, conftest: str
) -> None:
    write_files(inner.path, {"tests/conftest.py": conftest})
    monkeypatch.setenv("CI", "true")
    result = inner.runpytest()
    assert result.ret == 0, result.stderr.str()
    result.assert_outcomes(passed=1)
    assert "not collected" not in result.stdout.str()
    never_imported(inner)


def test_testpaths_that_leave_the_gated_folder_out_keep_a_ci_run_green(
    inner: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_files(inner.path, {"tests/unit/test_unit.py": "def test_unit():\n    pass\n"})
    add_ini(inner, 'testpaths = ["tests/unit"]')
    monkeypatch.setenv("CI", "true")
    result = inner.runpytest()
    assert result.ret == 0
    result.assert_outcomes(passed=1)


def test_doctest_modules_in_addopts_never_import_a_gated_file_named_on_the_command_line(
    inner: pytest.Pytester,
) -> None:
    text = (inner.path / "pyproject.toml").read_text().replace('addopts = ["', 'addopts = ["--doctest-modules", "')
    (inner.path / "pyproject.toml").write_text(text)
    result = inner.runpytest("tests/brain/test_brain.py", "tests/test_base.py", "-rs")
    assert result.ret == 0, result.stdout.str()
    result.assert_outcomes(passed=1, skipped=1)
    result.stdout.fnmatch_lines(["*SKIPPED*tests/brain/test_brain.py*not imported: tier brain is absent*"])
    never_imported(inner)


def test_doctest_modules_never_import_a_gated_folders_helpers_and_count_them(inner: pytest.Pytester) -> None:
    result = inner.runpytest("--doctest-modules")
    assert result.ret == 0, result.stdout.str()
    result.assert_outcomes(passed=1)
    # With --doctest-modules pytest collects every module: the helpers are files the gate keeps out too.
    result.stdout.fnmatch_lines([f"tierlock: brain absent — 2 test files not collected; to run them: {REMEDY}"])


def test_a_selected_folder_never_selects_a_gated_sibling_whose_name_starts_like_it(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    inner_project(
        pytester,
        monkeypatch,
        {
            "tests/brain/test_plain.py": "def test_plain():\n    pass\n",
            "tests/brain2/test_gated.py": "import brainpkg\n\n\ndef test_gated():\n    pass\n",
        },
        tests="tests/brain2/**",
    )
    result = pytester.runpytest("tests/brain")
    result.assert_outcomes(passed=1)
    assert "not collected" not in result.stdout.str()
    monkeypatch.setenv("CI", "true")
    assert pytester.runpytest("tests/brain").ret == 0


def test_a_ci_run_of_one_named_test_in_a_gated_file_counts_that_file_once(
    inner: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CI", "true")
    result = inner.runpytest("tests/brain/test_brain.py::test_brain")
    assert result.ret == EXIT_TIER_MISSING
    result.stderr.fnmatch_lines(["  this run selects 1 test file(s) that need it"])
    never_imported(inner)
