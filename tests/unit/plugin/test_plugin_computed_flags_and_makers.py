"""Skips on inverted or computed flags, string conditions, and flag makers given their module by any parameter.

``NO_X = not has("brainpkg")`` / ``skipif(NO_X, reason="optional")``, ``HAS_X = brainpkg is not None`` after ``try:
import brainpkg except ImportError: brainpkg = None``, ``skipif("not HAS_X")``, ``@needs("json", "brainpkg")`` with
``def needs(*modules)``, ``@needs("optional", "brainpkg")`` / ``@needs(reason=..., module="brainpkg")`` with ``def
needs(reason, module)``: the reason names nothing and the census read none of them, so ``CI=true pytest`` printed
``brain absent; none of its tests were selected`` and exited 0 with the test skipped. Now the run stops before
collection naming the tier and its fix, a laptop counts each skipped test for the tier with its remedy, and a test
skipped on such a flag of a module of no tier (or when the module is there) needs nothing.
"""

from __future__ import annotations

import pytest

from tests.support.plugin_project import inner_pyproject, laptop, write_files
from tierlock.pytest_plugin import EXIT_TIER_MISSING

PYPROJECT = inner_pyproject(cacheprovider=False, tests="testing/brain/**", strict_markers=False)
REMEDY = "tierlock lock brain && install-tier brain"  # no lockfile in this small project

HELPERS = """\
from importlib.util import find_spec

import pytest


def has(name):
    return find_spec(name) is not None


def needs(*modules):
    return pytest.mark.skipif(any(find_spec(m) is None for m in modules), reason="optional dependency")


def needs_why(reason, module):
    return pytest.mark.skipif(find_spec(module) is None, reason=reason)


try:
    import brainpkg
except ImportError:
    brainpkg = None

HAS_BRAIN = brainpkg is not None
NO_BRAIN = not has("brainpkg")
"""

#: Each shape: (the test file's head, the decorator of its one test that needs brainpkg).
SHAPES = {
    "inverted-flag": (
        'from testing.helpers import has\n\nNO_X = not has("brainpkg")',
        '@pytest.mark.skipif(NO_X, reason="optional")',
    ),
    "inverted-flag-imported": (
        "from testing.helpers import NO_BRAIN",
        '@pytest.mark.skipif(NO_BRAIN, reason="optional")',
    ),
    "is-not-none": ("from testing.helpers import HAS_BRAIN", '@pytest.mark.skipif(not HAS_BRAIN, reason="optional")'),
    "string": ("from testing.helpers import HAS_BRAIN", '@pytest.mark.skipif("not HAS_BRAIN", reason="optional")'),
    "unittest-skipif": (
        "import unittest\nfrom testing.helpers import NO_BRAIN",
        '@unittest.skipIf(NO_BRAIN, "optional")',
    ),
    "star-maker": ("from testing.helpers import needs", '@needs("json", "brainpkg")'),
    "later-parameter": ("from testing.helpers import needs_why", '@needs_why("optional", "brainpkg")'),
    "keywords": ("from testing.helpers import needs_why", '@needs_why(reason="optional", module="brainpkg")'),
}

#: The same shapes on a module of no tier, or skipped when the module is there: nothing needs brain.
UNNEEDED = {
    "inverted-flag-of-another-module": (
        'from testing.helpers import has\n\nNO_X = not has("json")',
        '@pytest.mark.skipif(NO_X, reason="optional")',
    ),
    "runs-only-without-it": (
        "from testing.helpers import NO_BRAIN",
        '@pytest.mark.skipif(not NO_BRAIN, reason="optional")',
    ),
    "string-runs-only-without-it": (
        "from testing.helpers import HAS_BRAIN",
        '@pytest.mark.skipif("HAS_BRAIN", reason="x")',
    ),
    "reason-named-like-the-module": ("from testing.helpers import needs_why", '@needs_why("brainpkg", "json")'),
}


def _test_file(head: str, decorator: str) -> str:
    if decorator.startswith("@unittest."):  # on a TestCase's method, as unittest's skips are meant (and every
        # pytest this plugin supports reports them skipped: 9.0 fails a plain function that raises SkipTest)
        test = f"class TestBrain(unittest.TestCase):\n    {decorator}\n    def test_needs_brain(self):\n        pass\n"
    else:
        test = f"{decorator}\ndef test_needs_brain():\n    pass\n"
    return f"import pytest\n{head}\n\n\n{test}\n\ndef test_plain():\n    pass\n"


@pytest.fixture
def made(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    laptop(monkeypatch)
    pytester.makefile(".toml", pyproject=PYPROJECT)
    write_files(pytester.path, {"testing/__init__.py": "", "testing/helpers.py": HELPERS})
    return pytester


@pytest.mark.parametrize("shape", SHAPES)
def test_in_ci_a_test_skipped_on_a_computed_flag_or_a_makers_later_argument_stops_the_run_before_collection(
    made: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, shape: str
) -> None:
    monkeypatch.setenv("CI", "true")
    write_files(made.path, {"testing/test_x.py": _test_file(*SHAPES[shape])})
    result = made.runpytest("testing/test_x.py")
    assert result.ret == EXIT_TIER_MISSING, result.stdout.str() + result.stderr.str()
    pytest.LineMatcher([*result.outlines, *result.errlines]).fnmatch_lines(
        [
            "tierlock: tier brain is required in CI (ci-require) but it is absent*",
            "  this run selects 1 test file(s) that need it",
            f"  to fix: {REMEDY}",
        ]
    )


@pytest.mark.parametrize("shape", SHAPES)
def test_on_a_laptop_the_skipped_test_is_counted_for_the_tier_with_its_remedy(
    made: pytest.Pytester, shape: str
) -> None:
    write_files(made.path, {"testing/test_x.py": _test_file(*SHAPES[shape])})
    result = made.runpytest("testing/test_x.py", "-rs")
    assert result.ret == 0, result.stdout.str()
    result.assert_outcomes(passed=1, skipped=1)
    said = "tier brain is absent; to run these tests"
    result.stdout.fnmatch_lines(
        [
            f"tierlock: 0 test files not collected and 1 test skipped because brain absent; to run them: {REMEDY}",
            f"SKIPPED * it needs brainpkg (read before collection) ({said}: {REMEDY})",
        ]
    )


@pytest.mark.parametrize("shape", UNNEEDED)
def test_in_ci_a_test_that_does_not_need_the_tier_is_not_failed(
    made: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, shape: str
) -> None:
    monkeypatch.setenv("CI", "true")
    write_files(made.path, {"testing/test_x.py": _test_file(*UNNEEDED[shape])})
    result = made.runpytest("testing/test_x.py")
    assert result.ret == 0, result.stdout.str() + result.stderr.str()
    result.stdout.fnmatch_lines(["tierlock: brain absent; none of its tests were selected"])


def test_in_ci_the_other_tests_of_the_file_need_nothing(made: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CI", "true")
    write_files(made.path, {"testing/test_x.py": _test_file(*SHAPES["inverted-flag"])})
    result = made.runpytest("testing/test_x.py::test_plain")
    assert result.ret == 0, result.stdout.str() + result.stderr.str()
    result.assert_outcomes(passed=1)
