"""A test skipped on an entry of a flag table (``skipif(not HAS["brainpkg"], reason="optional")``), on a flag set
by ``importlib.import_module("brainpkg")`` in a ``try``, or on a function returning ``find_spec("brainpkg") is not
None``: ``CI=true pytest`` of it stops before collection when its tier is required and absent.

It went green: the census did not read the table, the gate found no selected test needing the tier, and the skip's
reason names no package, so the run-time backstop could not attribute it either.
"""

from __future__ import annotations

import pytest

from tests.support.plugin_project import inner_pyproject, laptop, write_files
from tierlock.pytest_plugin import EXIT_TIER_MISSING

PYPROJECT = inner_pyproject(cacheprovider=False, tests="testing/brain/**", strict_markers=False)

HELPERS = """\
import importlib.util

HAS = {name: importlib.util.find_spec(name) is not None for name in ("brainpkg", "json")}
"""

TESTS = """\
import pytest

from testing.helpers import HAS


@pytest.mark.skipif(not HAS["brainpkg"], reason="optional")
def test_needs_brain():
    pass


@pytest.mark.skipif(not HAS["json"], reason="optional")
def test_needs_json():
    pass
"""

REMEDY = "tierlock lock brain && install-tier brain"  # no lockfile in this small project


@pytest.fixture
def tabled(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    laptop(monkeypatch)
    pytester.makefile(".toml", pyproject=PYPROJECT)
    write_files(
        pytester.path, {"testing/__init__.py": "", "testing/helpers.py": HELPERS, "testing/test_tables.py": TESTS}
    )
    return pytester


#: Other flags of the same kind: set by an import call in a ``try``, or a function returning a ``find_spec`` test.
OTHER_FLAGS = {
    "import_module": (
        "import importlib\n\ntry:\n    importlib.import_module('brainpkg')\n    HAS_BRAIN = True\n"
        "except ImportError:\n    HAS_BRAIN = False\n",
        "not HAS_BRAIN",
    ),
    "spec_function": (
        "from importlib.util import find_spec\n\n\ndef has_brain():\n    return find_spec('brainpkg') is not None\n",
        "not has_brain()",
    ),
}


@pytest.mark.parametrize("shape", ["table", *OTHER_FLAGS])
def test_in_ci_a_test_skipped_on_a_flag_of_a_missing_required_tier_stops_the_run_before_collection(
    tabled: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, shape: str
) -> None:
    monkeypatch.setenv("CI", "true")
    if shape != "table":
        helpers, condition = OTHER_FLAGS[shape]
        write_files(tabled.path, {"testing/helpers.py": HELPERS + helpers})
        test = f"import pytest\nfrom testing.helpers import *\n\n\n@pytest.mark.skipif({condition}, reason='x')\n"
        write_files(tabled.path, {"testing/test_tables.py": test + "def test_needs_brain():\n    pass\n"})
    result = tabled.runpytest("testing/test_tables.py::test_needs_brain")
    assert result.ret == EXIT_TIER_MISSING
    pytest.LineMatcher([*result.outlines, *result.errlines]).fnmatch_lines(
        [
            "tierlock: tier brain is required in CI (ci-require) but it is absent*",
            "  this run selects 1 test file(s) that need it",
            f"  to fix: {REMEDY}",
        ]
    )


def test_in_ci_the_entry_of_a_module_of_no_tier_needs_nothing(
    tabled: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CI", "true")
    result = tabled.runpytest("testing/test_tables.py::test_needs_json")
    assert result.ret == 0
    result.assert_outcomes(passed=1)


def test_on_a_laptop_the_skipped_test_is_counted_for_the_tier_with_its_remedy(tabled: pytest.Pytester) -> None:
    result = tabled.runpytest("testing/test_tables.py", "-rs")
    assert result.ret == 0
    result.assert_outcomes(passed=1, skipped=1)
    result.stdout.fnmatch_lines(
        [
            f"tierlock: 0 test files not collected and 1 test skipped because brain absent; to run them: {REMEDY}",
            f"SKIPPED * optional; it needs brainpkg (read before collection) (tier brain is absent; to run these "
            f"tests: {REMEDY})",
        ]
    )


def test_on_a_laptop_two_skipped_tests_of_one_file_count_as_two(tabled: pytest.Pytester) -> None:
    """The census reads which test needs the tier: two tests skipped on the entry are two tests (the summary said
    ``1 selected test file needs it``)."""
    second = '\n\n@pytest.mark.skipif(not HAS["brainpkg"], reason="optional")\ndef test_needs_brain_too():\n    pass\n'
    write_files(tabled.path, {"testing/test_tables.py": TESTS + second})
    result = tabled.runpytest("testing/test_tables.py")
    assert result.ret == 0
    result.assert_outcomes(passed=1, skipped=2)
    result.stdout.fnmatch_lines(["tierlock: 0 test files not collected and 2 tests skipped because brain absent; *"])
