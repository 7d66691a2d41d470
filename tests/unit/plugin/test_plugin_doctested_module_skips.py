"""A module collected for its doctests that tries the tier at its top and whose doctests skip on the flag it sets.

``testing/mod.py``: ``try: import brainpkg; HAS_X = True except ImportError: HAS_X = False``, nothing hides it, and
``--doctest-modules`` runs its doctests, skipped without brainpkg by an example (``>>> if not HAS_X:
pytest.skip("optional")``), a conftest's ``pytest_runtest_setup`` reading the doctest's globals, or a skip mark a
conftest's ``pytest_collection_modifyitems`` added. The reason names nothing and the failed import was the module's
own top (the backstop took a test's own module's top for no evidence), so ``CI=true pytest --doctest-modules`` went
green with brain absent. Now such a skip of a module's doctest counts for the tier whose import failed at that
module's top: a strict run fails at its end naming the doctest and the fix, with and without xdist, and a laptop
counts it. A doctest skipped by ``+SKIP`` on every example, or of a module whose top tried nothing, is no tier's.
"""

from __future__ import annotations

import pytest

from tests.support.plugin_project import inner_pyproject, laptop, write_files
from tierlock.pytest_plugin import EXIT_TIER_MISSING

PYPROJECT = inner_pyproject(cacheprovider=False, tests="testing/brain/**", strict_markers=False)
REMEDY = "tierlock lock brain && install-tier brain"  # no lockfile in this small project

MODULE = '''\
try:
    import brainpkg
    HAS_X = True
except ImportError:
    HAS_X = False


def f():
    """
    >>> f()
    1
    """
    return 1
'''
IN_THE_DOCTEST = MODULE.replace(
    "    >>> f()\n", '    >>> import pytest\n    >>> if not HAS_X: pytest.skip("optional")\n    >>> f()\n'
)
ALL_SKIPPED = MODULE.replace("    >>> f()\n", "    >>> f()  # doctest: +SKIP\n")
TRIES_NOTHING = MODULE.replace(MODULE.split("\n\n\n", maxsplit=1)[0], "import sys\n\nHAS_X = sys.platform == 'win32'")

SETUP_HOOK = """\
import pytest


def pytest_runtest_setup(item):
    if type(item).__name__ == "DoctestItem" and not item.dtest.globs.get("HAS_X", True):
        pytest.skip("optional")
"""
MARKING_HOOK = """\
import pytest

from testing import mod


def pytest_collection_modifyitems(items):
    for item in items:
        if type(item).__name__ == "DoctestItem" and not mod.HAS_X:
            item.add_marker(pytest.mark.skip(reason="optional"))
"""

SHAPES = {
    "in-the-doctest": {"testing/mod.py": IN_THE_DOCTEST},
    "setup-hook": {"testing/mod.py": MODULE, "testing/conftest.py": SETUP_HOOK},
    "mark-added-by-a-hook": {"testing/mod.py": MODULE, "testing/conftest.py": MARKING_HOOK},
}

UNNEEDED = {
    "every-example-skipped": {"testing/mod.py": ALL_SKIPPED},
    "module-trying-nothing": {"testing/mod.py": TRIES_NOTHING, "testing/conftest.py": SETUP_HOOK},
}


@pytest.fixture
def project(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    laptop(monkeypatch)
    pytester.makefile(".toml", pyproject=PYPROJECT)
    write_files(pytester.path, {"testing/__init__.py": "", "testing/test_plain.py": "def test_plain():\n    pass\n"})
    return pytester


@pytest.mark.parametrize("xdist", [[], ["-n", "2"]], ids=["one-process", "xdist"])
@pytest.mark.parametrize("shape", SHAPES)
def test_in_ci_a_doctest_skipped_on_its_modules_failed_import_fails_the_run_at_its_end(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, shape: str, xdist: list[str]
) -> None:
    monkeypatch.setenv("CI", "true")
    write_files(project.path, SHAPES[shape])
    result = project.runpytest_subprocess("--doctest-modules", *xdist, "testing")
    assert result.ret == EXIT_TIER_MISSING, result.stdout.str() + result.stderr.str()
    result.stdout.fnmatch_lines(
        [
            "tierlock: tier brain is required in CI (ci-require) but it is absent; 1 test of this run needed it:",
            "  - testing/mod.py::testing.mod.f (skipped: optional; after a failed import of brainpkg)",
            f"  to fix: {REMEDY}",
        ]
    )


@pytest.mark.parametrize("shape", SHAPES)
def test_on_a_laptop_the_skipped_doctest_is_counted_for_the_tier(project: pytest.Pytester, shape: str) -> None:
    write_files(project.path, SHAPES[shape])
    result = project.runpytest("--doctest-modules", "testing", "-rs")
    assert result.ret == 0, result.stdout.str()
    result.assert_outcomes(passed=1, skipped=1)
    result.stdout.fnmatch_lines(
        [f"tierlock: 0 test files not collected and 1 test skipped because brain absent; to run them: {REMEDY}"]
    )


@pytest.mark.parametrize("shape", UNNEEDED)
def test_in_ci_a_doctest_skipped_for_nothing_the_tier_does_is_no_tiers(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, shape: str
) -> None:
    monkeypatch.setenv("CI", "true")
    write_files(project.path, UNNEEDED[shape])
    result = project.runpytest("--doctest-modules", "testing", "-rs")
    assert result.ret == 0, result.stdout.str() + result.stderr.str()
    result.assert_outcomes(passed=1, skipped=1)
    assert "brain is absent" not in result.stdout.str()
