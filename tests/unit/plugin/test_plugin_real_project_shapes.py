"""Shapes met on real public projects under strict CI, each a small project of the same shape.

* Flask: its ``dotenv`` extra asks for ``python-dotenv``, whose import name is ``dotenv``; ``tests/test_cli.py``
  skips three tests with ``skipif(dotenv_not_available(), reason="dotenv is not installed")``, the flag being a
  module-level function that tries the import. With the tier required in CI and not armed, the run must fail
  closed naming the tier (it went green: the tier's import root was guessed as ``python_dotenv``, so neither the
  census nor the run-time backstop knew ``dotenv`` was its import).
"""

from __future__ import annotations

import pytest

from tests.support.plugin_project import laptop, write_files
from tierlock.pytest_plugin import EXIT_TIER_MISSING

FLASK_PYPROJECT = """\
[project]
name = "inner"
version = "0.1"
dependencies = ["packaging"]

[project.optional-dependencies]
envfile = ["python-brainenv"]

[tool.tierlock]
ci-require = ["envfile"]

[tool.tierlock.tiers.envfile]

[tool.pytest.ini_options]
addopts = ["-p", "no:cacheprovider", "-p", "no:hypothesispytest"]
"""

#: Flask's tests/test_cli.py, reduced: a module-level function flag, a mark alias, tests that need it and not.
FLASK_CLI = """\
import pytest


def brainenv_not_available():
    try:
        import brainenv  # noqa: F401
    except ImportError:
        return True

    return False


need_brainenv = pytest.mark.skipif(brainenv_not_available(), reason="brainenv is not installed")


@need_brainenv
def test_load_envfile():
    pass


@need_brainenv
def test_envfile_path():
    pass


def test_envfile_optional():
    pass
"""

REMEDY = "tierlock lock envfile && install-tier envfile"  # no lockfile in this small project


@pytest.fixture
def flask_like(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    laptop(monkeypatch)
    pytester.makefile(".toml", pyproject=FLASK_PYPROJECT)
    write_files(pytester.path, {"testing/__init__.py": "", "testing/test_cli.py": FLASK_CLI})
    return pytester


def test_a_python_prefixed_distribution_whose_flag_function_skips_its_tests_fails_ci_closed_naming_the_tier(
    flask_like: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CI", "true")
    result = flask_like.runpytest("testing/test_cli.py")
    assert result.ret == EXIT_TIER_MISSING
    result.stdout.fnmatch_lines(
        [
            "tierlock: tier envfile is required in CI (ci-require) but it is absent*",
            f"  to fix: {REMEDY}",
        ]
    )


def test_the_same_run_on_a_laptop_counts_the_two_skips_for_the_tier_with_its_remedy(
    flask_like: pytest.Pytester,
) -> None:
    result = flask_like.runpytest("testing/test_cli.py", "-rs")
    assert result.ret == 0
    result.assert_outcomes(passed=1, skipped=2)
    result.stdout.fnmatch_lines([f"tierlock: * 2 tests skipped because envfile absent; to run them: {REMEDY}"])
