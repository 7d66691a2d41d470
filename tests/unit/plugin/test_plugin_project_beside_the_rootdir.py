"""The tier table when pytest's rootdir is not the project's folder.

``pytest -c ci/pytest.ini tests`` makes ``ci/`` the rootdir (pytest takes the folder of the ``-c`` file), and a
monorepo's ``pytest.ini`` at the top makes the top the rootdir of ``pytest app/tests``. The plugin read only
``<rootdir>/pyproject.toml``, found no tier table and left the run alone: with a required tier absent, ``CI=true``
went green with its tests skipped (seen on fsspec: ``pytest -c ci/pytest.ini fsspec/tests/test_callbacks.py``, the
two ``tqdm`` tests skipped by ``importorskip``, exit 0).
"""

from __future__ import annotations

import pytest

from tests.support.plugin_project import inner_pyproject, laptop, write_files
from tierlock.pytest_plugin import EXIT_TIER_MISSING

TESTS = {
    "tests/brain/test_model.py": "import brainpkg\n\n\ndef test_model():\n    pass\n",
    "tests/test_plain.py": "def test_plain():\n    pass\n",
}
INI = "[pytest]\naddopts = -p no:cacheprovider\n"
#: The project's table without a ``[tool.pytest.ini_options]`` (which would make its folder the rootdir).
APP = inner_pyproject(cacheprovider=False).split("[tool.pytest.ini_options]")[0]


@pytest.fixture
def ci(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    laptop(monkeypatch)
    monkeypatch.setenv("CI", "true")
    return pytester


def test_a_config_file_named_with_c_elsewhere_still_gates_the_projects_tiers(ci: pytest.Pytester) -> None:
    ci.makefile(".toml", pyproject=inner_pyproject(cacheprovider=False))
    write_files(ci.path, {**TESTS, "ci/pytest.ini": INI})
    result = ci.runpytest("-c", "ci/pytest.ini", "tests")
    assert result.ret == EXIT_TIER_MISSING
    result.stderr.fnmatch_lines(["tierlock: tier brain is required in CI (ci-require) but it is absent*"])


def test_the_same_run_of_the_files_that_need_no_tier_passes(ci: pytest.Pytester) -> None:
    ci.makefile(".toml", pyproject=inner_pyproject(cacheprovider=False))
    write_files(ci.path, {**TESTS, "ci/pytest.ini": INI})
    result = ci.runpytest("-c", "ci/pytest.ini", "tests/test_plain.py")
    assert result.ret == 0
    result.assert_outcomes(passed=1)


def test_a_monorepo_whose_pytest_ini_sits_above_the_project_still_gates_its_tiers(ci: pytest.Pytester) -> None:
    write_files(ci.path, {"pytest.ini": INI, "app/pyproject.toml": APP})
    write_files(ci.path / "app", TESTS)
    result = ci.runpytest("app/tests")
    assert result.ret == EXIT_TIER_MISSING
    result.stderr.fnmatch_lines(["*this run selects 1 test file(s) that need it*"])
    laptop_run = ci.runpytest("app/tests", "--tierlock-lenient")
    assert laptop_run.ret == 0
    laptop_run.stdout.fnmatch_lines(["tierlock: 1 test file not collected * because brain absent*"])


def test_two_projects_in_one_run_are_left_to_the_rootdir(ci: pytest.Pytester) -> None:
    """Which project's table would gate the run is ambiguous: the plugin decides nothing (as before)."""
    write_files(ci.path, {"pytest.ini": INI, "a/pyproject.toml": APP})
    write_files(ci.path, {"b/pyproject.toml": APP})
    write_files(ci.path / "a", {"tests/test_plain.py": TESTS["tests/test_plain.py"]})
    write_files(ci.path / "b", {"tests/test_plain.py": TESTS["tests/test_plain.py"].replace("plain", "other")})
    result = ci.runpytest("a/tests", "b/tests", "--import-mode=importlib")
    assert result.ret == 0
    assert "tierlock:" not in result.stdout.str() + result.stderr.str()


def test_a_rootdir_without_a_tier_table_over_tests_without_one_is_left_alone(ci: pytest.Pytester) -> None:
    write_files(ci.path, {"pytest.ini": INI, "pyproject.toml": '[project]\nname = "x"\nversion = "1"\n', **TESTS})
    result = ci.runpytest("tests/test_plain.py")
    assert result.ret == 0
    assert "tierlock:" not in result.stdout.str() + result.stderr.str()
