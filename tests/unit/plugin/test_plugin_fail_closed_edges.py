"""When a strict run fails closed, on tier declarations the main plugin tests do not use.

A strict run stops (exit code 6) when it selects test files of an absent ``ci-require`` tier, and only then.
Here the ``brain`` tier (root ``brainpkg``, never installed) is required and its tests are named by a glob
whose literal part is not a folder (``tests/test_brain_*.py``), or it has no ``tests`` globs at all.
"""

from __future__ import annotations

import pytest

from tests.support.plugin_project import laptop

#: The exit code of a run that fails closed, as documented (pytest's own codes are 0 to 5).
EXIT_TIER_MISSING = 6

PYPROJECT = """\
[project]
name = "inner"
version = "0.1"
dependencies = ["packaging"]

[project.optional-dependencies]
brain = ["brainpkg"]

[tool.tierlock]
ci-require = ["brain"]

[tool.tierlock.tiers.brain]
{tests}

[tool.pytest.ini_options]
addopts = ["--strict-markers", "-p", "no:cacheprovider", "-p", "no:hypothesispytest", "-p", "no:randomly"]
"""

IMPORTS_BRAIN = "import brainpkg\n\n\ndef test_brain():\n    assert brainpkg\n"
SKIPS_WITHOUT_BRAIN = (
    'import pytest\n\nbrainpkg = pytest.importorskip("brainpkg")\n\n\ndef test_uses():\n    assert brainpkg\n'
)


def project(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, tests: str) -> pytest.Pytester:
    laptop(monkeypatch)
    pytester.makefile(".toml", pyproject=PYPROJECT.format(tests=tests))
    (pytester.path / "tests").mkdir()
    (pytester.path / "tests" / "test_base.py").write_text("def test_base():\n    assert True\n")
    return pytester


@pytest.fixture
def file_glob(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    """brain's tests are the files ``tests/test_brain_*.py`` (the glob's literal part names no folder);
    one more file, outside the glob, needs brain through ``importorskip``."""
    inner = project(pytester, monkeypatch, 'tests = ["tests/test_brain_*.py"]')
    (inner.path / "tests" / "test_brain_model.py").write_text(IMPORTS_BRAIN)
    (inner.path / "tests" / "test_skips_without_brain.py").write_text(SKIPS_WITHOUT_BRAIN)
    return inner


def test_a_glob_of_file_names_counts_its_files_in_the_header(file_glob: pytest.Pytester) -> None:
    result = file_glob.runpytest()
    result.assert_outcomes(passed=1, skipped=1)
    result.stdout.fnmatch_lines(
        [
            "tierlock: brain absent — 1 test file not collected; to run them: *",
            "tierlock: 1 test file not collected and 1 test skipped because brain absent; *",
        ]
    )


def test_a_strict_run_selecting_files_of_a_glob_of_file_names_fails_closed(file_glob: pytest.Pytester) -> None:
    result = file_glob.runpytest("--tierlock-strict")
    assert result.ret == EXIT_TIER_MISSING
    result.stderr.fnmatch_lines(
        [
            "tierlock: tier brain is required in CI (ci-require) but it is absent:",
            "  this run selects 2 test file(s) that need it",
        ]
    )


def test_a_strict_run_counts_a_whole_file_and_a_test_named_inside_another_of_the_globs_as_two(
    file_glob: pytest.Pytester,
) -> None:
    (file_glob.path / "tests" / "test_brain_more.py").write_text(IMPORTS_BRAIN)
    result = file_glob.runpytest(
        "--tierlock-strict", "tests/test_brain_model.py", "tests/test_brain_more.py::test_brain"
    )
    assert result.ret == EXIT_TIER_MISSING
    result.stderr.fnmatch_lines(["  this run selects 2 test file(s) that need it"])


def test_a_strict_run_weighs_only_the_files_it_selects(file_glob: pytest.Pytester) -> None:
    """A file beside the tier's, importing its root but not selected, does not make the run need the tier."""
    result = file_glob.runpytest("--tierlock-strict", "tests/test_base.py")
    result.assert_outcomes(passed=1)
    assert result.ret == 0
    result.stdout.fnmatch_lines(
        [
            "tierlock: brain absent (none of its test files selected)",
            "tierlock: brain absent; none of its tests were selected",
        ]
    )


@pytest.fixture
def no_globs(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    """brain is required but has no ``tests`` globs: only the files that import it need it."""
    inner = project(pytester, monkeypatch, "")
    (inner.path / "tests" / "test_uses_brain.py").write_text(IMPORTS_BRAIN)
    return inner


def test_a_strict_run_not_needing_a_required_tier_without_globs_runs(no_globs: pytest.Pytester) -> None:
    result = no_globs.runpytest("--tierlock-strict", "tests/test_base.py")
    result.assert_outcomes(passed=1)
    assert result.ret == 0
    result.stdout.fnmatch_lines(["tierlock: brain absent (none of its test files selected)", "tierlock: strict (*"])


def test_a_strict_run_importing_a_required_tier_without_globs_fails_closed(no_globs: pytest.Pytester) -> None:
    result = no_globs.runpytest("--tierlock-strict")
    assert result.ret == EXIT_TIER_MISSING
    result.stderr.fnmatch_lines(["*this run selects 1 test file(s) that need it", "*Exit code 6.*"])
