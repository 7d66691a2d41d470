"""Shapes met on real public projects under strict CI, each a small project of the same shape.

* Flask: its ``dotenv`` extra asks for ``python-dotenv``, whose import name is ``dotenv``; ``tests/test_cli.py``
  skips three tests with ``skipif(dotenv_not_available(), reason="dotenv is not installed")``, the flag being a
  module-level function that tries the import. With the tier required in CI and not armed, the run must fail
  closed naming the tier (it went green: the tier's import root was guessed as ``python_dotenv``, so neither the
  census nor the run-time backstop knew ``dotenv`` was its import).
"""

from __future__ import annotations

import pytest

from tests.support.plugin_project import inner_pyproject, laptop, write_files
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
    pytest.LineMatcher([*result.outlines, *result.errlines]).fnmatch_lines(
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


# -- SQLAlchemy: its test plugin (loaded by the conftest) opens the --dburi engine in pytest_sessionstart ---------
SQLA_PYPROJECT = inner_pyproject(cacheprovider=False, tests="testing/ext/asyncio/**", strict_markers=False)

#: SQLAlchemy's test/conftest.py, reduced: ``collect_ignore_glob`` computed at run time from names that are not
#: literal (so the selection is read at collection: any file may be left out), and a session start that imports the
#: driver the ``--dburi`` names.
SQLA_CONFTEST = """\
import sys

collect_ignore_glob = []
if sys.version_info < (3, 99):
    collect_ignore_glob.append("*_py%d99.py" % sys.version_info[0])


def pytest_addoption(parser):
    parser.addoption("--dburi", default="sqlite://")


def pytest_sessionstart(session):
    if "+brain" in session.config.getoption("dburi"):
        __import__("brainpkg")
"""


@pytest.fixture
def sqla_like(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    laptop(monkeypatch)
    pytester.makefile(".toml", pyproject=SQLA_PYPROJECT)
    write_files(
        pytester.path,
        {
            "testing/conftest.py": SQLA_CONFTEST,
            "testing/ext/asyncio/test_engine.py": "def test_connect():\n    pass\n",
            "testing/base/test_utils.py": "def test_plain():\n    pass\n",
        },
    )
    return pytester


def test_a_session_start_that_imports_a_missing_required_tier_fails_ci_closed_naming_the_tier_not_internal_error(
    sqla_like: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CI", "true")
    result = sqla_like.runpytest("testing/ext/asyncio", "--dburi", "sqlite+brain://")
    assert result.ret == EXIT_TIER_MISSING
    result.stderr.fnmatch_lines(
        [
            "tierlock: tier brain is required in CI (ci-require) but it is absent*",
            "*session start*No module named 'brainpkg'*",
            "  to fix: tierlock lock brain && install-tier brain",
        ]
    )
    assert "INTERNALERROR" not in result.stdout.str() + result.stderr.str()


def test_on_a_laptop_the_same_session_start_names_the_tier_before_pytests_own_report(
    sqla_like: pytest.Pytester,
) -> None:
    result = sqla_like.runpytest("testing/ext/asyncio", "--dburi", "sqlite+brain://")
    assert result.ret == pytest.ExitCode.INTERNAL_ERROR
    result.stderr.fnmatch_lines(["tierlock: brain absent; to fix: tierlock lock brain && install-tier brain"])


def test_a_session_start_that_fails_for_another_reason_is_left_to_pytest(
    sqla_like: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CI", "true")
    (sqla_like.path / "testing/conftest.py").write_text(
        SQLA_CONFTEST.replace('__import__("brainpkg")', 'raise RuntimeError("no database")'), encoding="utf-8"
    )
    result = sqla_like.runpytest("testing/base", "--dburi", "sqlite+brain://")
    assert result.ret == pytest.ExitCode.INTERNAL_ERROR
    assert "tierlock: tier brain" not in result.stderr.str()
