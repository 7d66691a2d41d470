"""The plugin on project shapes the main plugin tests do not have: no pyproject.toml, a tier table that does not
load, ``python_files`` and ``testpaths`` of its own, a glob without a wildcard or in a dot folder, a hidden folder
inside a gated one, and tests outside the rootdir.

The ``brain`` tier (root ``brainpkg``, never installed) is required in CI; the counts in the header and summary,
and whether a strict run fails closed, must follow what pytest itself collects.
"""

from __future__ import annotations

import pytest

from tests.support.plugin_project import laptop

PYPROJECT = """\
[project]
name = "inner"
version = "0.1"
dependencies = ["packaging"]

[project.optional-dependencies]
brain = ["brainpkg"]

[tool.tierlock]
ci-require = {ci_require}

[tool.tierlock.tiers.brain]
tests = {tests}

[tool.pytest.ini_options]
addopts = ["--strict-markers", "-p", "no:cacheprovider", "-p", "no:hypothesispytest", "-p", "no:randomly"]
{options}
"""

IMPORTS_BRAIN = "import brainpkg\n\n\ndef test_brain():\n    assert brainpkg\n"
PLAIN = "def test_plain():\n    assert True\n"


def project(
    pytester: pytest.Pytester,
    files: dict[str, str],
    *,
    tests: str = '["tests/brain/**"]',
    options: str = "",
    ci_require: str = '["brain"]',
    at: str = ".",
) -> pytest.Pytester:
    """The project at *at* (below pytester's folder), with *files* (relative to pytester's folder)."""
    pyproject = pytester.path / at / "pyproject.toml"
    pyproject.parent.mkdir(parents=True, exist_ok=True)
    pyproject.write_text(PYPROJECT.format(tests=tests, options=options, ci_require=ci_require))
    for rel, text in files.items():
        path = pytester.path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return pytester


@pytest.fixture(autouse=True)
def _laptop(monkeypatch: pytest.MonkeyPatch) -> None:
    laptop(monkeypatch)


def test_a_project_without_a_pyproject_is_left_alone(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\naddopts = -p no:cacheprovider -p no:randomly -p no:hypothesispytest\n")
    pytester.makepyfile(test_plain=PLAIN)
    result = pytester.runpytest()
    result.assert_outcomes(passed=1)
    assert [line for line in result.outlines if line.startswith("tierlock:")] == []


def test_a_tier_table_that_does_not_load_is_a_usage_error_naming_the_problem(pytester: pytest.Pytester) -> None:
    project(pytester, {"tests/test_base.py": PLAIN}, ci_require='["brian"]')
    result = pytester.runpytest()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [
            "ERROR: tierlock: *pyproject.toml: 1 problem(s) in the tier declarations",
            "  - *pyproject.toml:10 [[]tool.tierlock[]].ci-require[[]0[]]: unknown tier 'brian'; *",
            "  to fix: *",
        ]
    )
    assert "Traceback" not in result.stderr.str()


def test_a_projects_own_python_files_patterns_are_counted(pytester: pytest.Pytester) -> None:
    files = {"tests/check_base.py": PLAIN, "tests/brain/check_brain.py": IMPORTS_BRAIN}
    project(pytester, files, options='python_files = ["check_*.py"]')
    result = pytester.runpytest()
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(
        [
            "tierlock: brain absent — 1 test file not collected; *",
            "tierlock: 1 test file not collected and 0 tests skipped because brain absent; *",
        ]
    )


def test_a_hidden_folder_inside_a_gated_one_is_not_counted(pytester: pytest.Pytester) -> None:
    files = {
        "tests/test_base.py": PLAIN,
        "tests/brain/test_brain.py": IMPORTS_BRAIN,
        "tests/brain/.scratch/test_scratch.py": IMPORTS_BRAIN,  # pytest never recurses into a dot folder
    }
    project(pytester, files)
    result = pytester.runpytest()
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["tierlock: brain absent — 1 test file not collected; *"])


def test_a_strict_run_of_the_testpaths_does_not_need_a_file_outside_them(pytester: pytest.Pytester) -> None:
    files = {"tests/test_base.py": PLAIN, "scripts/test_uses_brain.py": IMPORTS_BRAIN}
    project(pytester, files, options='testpaths = ["tests"]')
    result = pytester.runpytest("--tierlock-strict")
    result.assert_outcomes(passed=1)
    assert result.ret == 0
    result.stdout.fnmatch_lines(["tierlock: brain absent (none of its test files selected)"])


@pytest.mark.parametrize("glob", ["tests/test_brain.py", "./tests/test_brain.py"])
def test_a_glob_without_a_wildcard_gates_its_one_file(pytester: pytest.Pytester, glob: str) -> None:
    files = {"tests/test_base.py": PLAIN, "tests/test_brain.py": IMPORTS_BRAIN}
    project(pytester, files, tests=f'["{glob}"]')
    result = pytester.runpytest()
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["tierlock: brain absent — 1 test file not collected; *"])


def test_a_glob_with_a_wildcard_in_a_folder_name_is_searched_from_its_literal_folder(
    pytester: pytest.Pytester,
) -> None:
    """``lib/*tests/**`` is searched in ``lib``, never in a ``tests`` folder that happens to exist."""
    files = {"tests/test_base.py": PLAIN, "lib/brain_tests/test_brain.py": IMPORTS_BRAIN}
    project(pytester, files, tests='["lib/*tests/**"]')
    result = pytester.runpytest("tests", "lib")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["tierlock: brain absent — 1 test file not collected; *"])


def test_a_gated_dot_folder_named_on_the_command_line_is_counted_and_fails_a_strict_run_closed(
    pytester: pytest.Pytester,
) -> None:
    """pytest collects a dot folder it is given; the glob ``.brain/**`` starts in ``.brain``, not ``brain``."""
    files = {"tests/test_base.py": PLAIN, ".brain/test_brain.py": IMPORTS_BRAIN}
    project(pytester, files, tests='[".brain/**"]')
    lenient = pytester.runpytest(".brain", "tests")
    lenient.assert_outcomes(passed=1)
    lenient.stdout.fnmatch_lines(["tierlock: brain absent — 1 test file not collected; *"])
    strict = pytester.runpytest("--tierlock-strict", ".brain", "tests")
    assert strict.ret == 6
    strict.stderr.fnmatch_lines(["  this run selects 1 test file(s) that need it"])


def test_tests_outside_the_rootdir_are_collected_as_usual(pytester: pytest.Pytester) -> None:
    files = {
        "inner/tests/test_base.py": PLAIN,
        "inner/tests/brain/test_brain.py": IMPORTS_BRAIN,
        "outside/test_out.py": PLAIN,
    }
    project(pytester, files, at="inner")
    args = ("-c", "inner/pyproject.toml", "--rootdir", "inner", "inner/tests", "outside/test_out.py::test_plain")
    result = pytester.runpytest(*args)
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(["tierlock: brain absent — 1 test file not collected; *"])
