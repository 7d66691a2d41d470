"""A backend picked by its parameter and skipped by a mark whose reason names nothing: anyio's suite style,
``pytest.param("trio", marks=pytest.mark.skipif("trio" not in available, reason="not available"))`` where
``available`` comes from trying each backend's import at collection.

The reason names no root, the skip is raised by pytest's own code in the test's setup, and the failed import (or
``find_spec``) happened at collection, not in that phase: the backstop saw nothing and a CI run without the tier
went green with every such test skipped. Now a skip of a test whose parameter id names a missing tier's root as a
whole word is attributed to that tier when an import of that root failed at some point of the run; either fact alone
attributes nothing.
"""

from __future__ import annotations

import pytest

from tests.support.plugin_project import inner_project
from tierlock.pytest_plugin import EXIT_TIER_MISSING

REMEDY = "tierlock lock brain && install-tier brain"  # brain has no lockfile here

TRIED = """\
import importlib.util

import pytest

AVAILABLE = {name for name in ("asyncio", "brainpkg") if importlib.util.find_spec(name) is not None}
BACKENDS = [
    pytest.param(name, id=ident, marks=pytest.mark.skipif(name not in AVAILABLE, reason="not available"))
    for name, ident in (("asyncio", "asyncio"), ("brainpkg", "brainpkg-debug"))
]


@pytest.mark.parametrize("backend", BACKENDS)
def test_run(backend):
    pass
"""

NEVER_TRIED = """\
import pytest


@pytest.mark.parametrize("backend", ["asyncio", pytest.param("brainpkg", marks=pytest.mark.skip(reason="slow"))])
def test_run(backend):
    pass
"""


@pytest.fixture
def inner(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    return inner_project(pytester, monkeypatch, {"testing/__init__.py": ""}, tests="testing/brain/**")


def test_a_skipped_backend_whose_import_failed_fails_a_ci_run_closed_naming_the_test(
    inner: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    (inner.path / "testing" / "test_backends.py").write_text(TRIED)
    monkeypatch.setenv("CI", "true")
    result = inner.runpytest("testing")
    assert result.ret == EXIT_TIER_MISSING, result.stdout.str()
    result.stdout.fnmatch_lines(
        [
            "tierlock: tier brain is required in CI (ci-require) but it is absent; 1 test of this run needed it:",
            "  - testing/test_backends.py::test_run[[]brainpkg-debug[]] (skipped: not available; parametrized with"
            " brainpkg, whose import failed)",
            f"  to fix: {REMEDY}",
        ]
    )


def test_on_a_laptop_the_skip_is_counted_for_the_tier_with_its_remedy(inner: pytest.Pytester) -> None:
    (inner.path / "testing" / "test_backends.py").write_text(TRIED)
    result = inner.runpytest("testing", "-rs")
    assert result.ret == 0
    result.assert_outcomes(passed=1, skipped=1)
    result.stdout.fnmatch_lines(
        [
            f"tierlock: 0 test files not collected and 1 test skipped because brain absent; to run them: {REMEDY}",
            "SKIPPED*not available; parametrized with brainpkg, whose import failed (tier brain is absent*",
        ]
    )


def test_a_parameter_naming_the_root_whose_import_never_failed_is_a_plain_skip(
    inner: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    (inner.path / "testing" / "test_backends.py").write_text(NEVER_TRIED)
    monkeypatch.setenv("CI", "true")
    result = inner.runpytest("testing")
    assert result.ret == 0, result.stdout.str()
    result.assert_outcomes(passed=1, skipped=1)


def test_a_failed_import_does_not_tie_a_skip_whose_parameter_names_another_word(
    inner: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    (inner.path / "testing" / "test_backends.py").write_text(
        TRIED.replace('("brainpkg", "brainpkg-debug")', '("brainpkg", "brainpkg2")')
    )
    monkeypatch.setenv("CI", "true")
    result = inner.runpytest("testing")
    assert result.ret == 0, result.stdout.str()
    result.assert_outcomes(passed=1, skipped=1)
