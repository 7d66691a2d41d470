"""unittest's skips and test classes nested in test classes, read before collection.

A strict run (``CI=true``, the tier required, not armed) went green with the test silently skipped when the flag
of a missing tier was used by ``@unittest.skipUnless(HAS, "backend unavailable")`` (on a method or a ``TestCase``
class, whatever its name), by ``if not helpers.HAS: self.skipTest(...)``, or by a ``skipif`` on a test class nested
in a test class (``TestOuter::TestInner::test_b``, the outer class's mark included): the reason names no root, so
only the census can see it, and it read none of these. A flag set in ``helpers.py`` beside the test file was read only
when the whole folder was selected, not when the file alone was (``pytest tests/test_x.py``, as IDEs run it).
"""

from __future__ import annotations

import pytest

from tests.support.plugin_project import inner_project
from tierlock.pytest_plugin import EXIT_TIER_MISSING

FLAG = """\
try:
    import brainpkg  # noqa: F401
except ImportError:
    HAS = False
else:
    HAS = True
"""

SKIP_UNLESS = (
    FLAG
    + """
import unittest


class Checks(unittest.TestCase):
    @unittest.skipUnless(HAS, "backend unavailable")
    def test_backend(self):
        pass

    def test_plain(self):
        pass
"""
)

CLASS_SKIP_IF = (
    FLAG
    + """
from unittest import TestCase, skipIf


@skipIf(not HAS, "backend unavailable")
class Backend(TestCase):
    def test_backend(self):
        pass
"""
)

SKIP_TEST = """\
import unittest

import helpers


class Checks(unittest.TestCase):
    def test_backend(self):
        if not helpers.HAS:
            self.skipTest("backend unavailable")
"""

#: fsspec's shape: a parameter's own skip, its flag imported from the helper module beside the test file.
PARAM_HELPER_FLAG = """\
import pytest

from helpers import HAS


@pytest.mark.parametrize("x", [1, pytest.param(2, marks=pytest.mark.skipif(not HAS, reason="backend unavailable"))])
def test_param(x):
    pass
"""

NESTED = (
    FLAG
    + """
import pytest


class TestOuter:
    def test_plain(self):
        pass

    @pytest.mark.skipif(not HAS, reason="backend unavailable")
    class TestInner:
        def test_backend(self):
            pass
"""
)

NESTED_OUTER_MARK = (
    FLAG
    + """
import pytest


@pytest.mark.skipif(not HAS, reason="backend unavailable")
class TestOuter:
    class TestInner:
        def test_backend(self):
            pass


def test_plain():
    pass
"""
)

BEFORE_COLLECTION = "tierlock: tier brain is required in CI (ci-require) but it is absent:"


@pytest.fixture
def project(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    project = inner_project(
        pytester,
        monkeypatch,
        {
            "testing/helpers.py": FLAG,
            "testing/test_skip_unless.py": SKIP_UNLESS,
            "testing/test_class_skip_if.py": CLASS_SKIP_IF,
            "testing/test_skip_test.py": SKIP_TEST,
            "testing/test_param_helper.py": PARAM_HELPER_FLAG,
            "testing/test_nested.py": NESTED,
            "testing/test_nested_outer.py": NESTED_OUTER_MARK,
        },
        tests="testing/brain/**",
    )
    monkeypatch.setenv("CI", "true")
    return project


@pytest.mark.parametrize(
    "args",
    [
        ["testing/test_skip_unless.py"],
        ["testing/test_skip_unless.py::Checks::test_backend"],
        ["testing/test_skip_unless.py", "-k", "backend"],
        ["testing/test_class_skip_if.py"],
        ["testing/test_skip_test.py"],
        ["testing/test_param_helper.py"],
    ],
    ids=["skipUnless", "skipUnless-node-id", "skipUnless-k", "class-skipIf", "skipTest-helper-flag", "param-helper"],
)
def test_a_strict_run_whose_skip_hangs_on_a_missing_tiers_flag_fails_before_collection(
    project: pytest.Pytester, args: list[str]
) -> None:
    result = project.runpytest(*args)
    assert result.ret == EXIT_TIER_MISSING
    result.stderr.fnmatch_lines([BEFORE_COLLECTION, "*this run selects 1 test file(s) that need it*"])


@pytest.mark.parametrize(
    "args",
    [
        ["testing/test_nested.py"],
        ["testing/test_nested.py::TestOuter::TestInner::test_backend"],
        ["testing/test_nested.py::TestOuter::TestInner"],
        ["testing/test_nested.py", "-k", "backend"],
        ["testing/test_nested_outer.py"],
        ["testing/test_nested_outer.py::TestOuter::TestInner::test_backend"],
    ],
    ids=["file", "node-id", "inner-class", "k", "outer-mark", "outer-mark-node-id"],
)
def test_a_strict_run_of_a_nested_test_class_skipped_on_a_missing_tiers_flag_fails_before_collection(
    project: pytest.Pytester, args: list[str]
) -> None:
    result = project.runpytest(*args)
    assert result.ret == EXIT_TIER_MISSING
    result.stderr.fnmatch_lines([BEFORE_COLLECTION])


@pytest.mark.parametrize(
    "args",
    [
        ["testing/test_skip_unless.py::Checks::test_plain"],
        ["testing/test_skip_unless.py", "-k", "plain"],
        ["testing/test_nested.py::TestOuter::test_plain"],
        ["testing/test_nested.py", "-k", "plain"],
        ["testing/test_nested_outer.py::test_plain"],
    ],
    ids=["unittest-node-id", "unittest-k", "nested-node-id", "nested-k", "outer-mark-other-test"],
)
def test_a_strict_run_of_the_tests_beside_them_needs_nothing(project: pytest.Pytester, args: list[str]) -> None:
    result = project.runpytest(*args)
    assert result.ret == 0
    result.assert_outcomes(passed=1)
