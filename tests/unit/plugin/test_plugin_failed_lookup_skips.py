"""A distribution lookup that fails (``importlib.metadata.version("brainpkg")`` raising ``PackageNotFoundError``)
counts as a failed import of the missing tier's root.

Such a lookup never goes through the import system, so the run-time backstop's finder never saw it: a fixture doing
``try: version("brainpkg") except PackageNotFoundError: pytest.skip("no model")``, or a conftest whose top-level flag
comes from the lookup and whose ``pytest_runtest_setup`` skips with ``backend unavailable``, went green in CI with the
tier missing. The finder put last on ``sys.meta_path`` now also answers ``importlib.metadata``'s
``find_distributions``, which is asked of it only when no other finder found the distribution.
"""

from __future__ import annotations

import pytest

from tests.support.plugin_project import inner_project
from tierlock.pytest_plugin import EXIT_TIER_MISSING

REMEDY = "tierlock lock brain && install-tier brain"  # brain has no lockfile here

FIXTURE = """\
import pytest
from importlib.metadata import PackageNotFoundError, version


@pytest.fixture
def model():
    try:
        return version("{name}")
    except PackageNotFoundError:
        pytest.skip("no model")
"""

HOOK = """\
import importlib.metadata

import pytest

try:
    importlib.metadata.distribution("{name}")
    HAS = True
except importlib.metadata.PackageNotFoundError:
    HAS = False


def pytest_runtest_setup(item):
    if "model" in item.name and not HAS:
        pytest.skip("backend unavailable")
"""

TEST = "def test_model(model):\n    pass\n\n\ndef test_plain():\n    pass\n"
HOOKED = "def test_model():\n    pass\n\n\ndef test_plain():\n    pass\n"
FIXTURE_LESS = "import pytest\n\n\n@pytest.fixture\ndef model():\n    pass\n"


@pytest.mark.parametrize(
    ("conftest", "test", "name"),
    [
        (FIXTURE, TEST, "brainpkg"),
        (FIXTURE, TEST, "BrainPkg"),
        (FIXTURE, TEST, "python-brainpkg"),
        (HOOK, HOOKED, "brainpkg"),
    ],
    ids=["fixture", "fixture-other-spelling", "fixture-distribution-named-apart-from-its-root", "conftest-top-flag"],
)
def test_a_skip_after_a_failed_lookup_of_the_tiers_distribution_fails_a_ci_run_closed(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, conftest: str, test: str, name: str
) -> None:
    inner = inner_project(
        pytester,
        monkeypatch,
        {"testing/__init__.py": "", "testing/conftest.py": conftest.format(name=name), "testing/test_m.py": test},
        tests="testing/brain/**",
    )
    monkeypatch.setenv("CI", "true")
    result = inner.runpytest("testing")
    assert result.ret == EXIT_TIER_MISSING, result.stdout.str()
    result.stdout.fnmatch_lines(
        [
            "tierlock: tier brain is required in CI (ci-require) but it is absent; 1 test of this run needed it:",
            "  - testing/test_m.py::test_model (skipped: * after a failed import of brainpkg)",
            f"  to fix: {REMEDY}",
        ]
    )


def test_on_a_laptop_the_skip_is_counted_for_the_tier(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    inner = inner_project(
        pytester,
        monkeypatch,
        {"testing/__init__.py": "", "testing/conftest.py": FIXTURE.format(name="brainpkg"), "testing/test_m.py": TEST},
        tests="testing/brain/**",
    )
    result = inner.runpytest("testing")
    assert result.ret == 0
    result.assert_outcomes(passed=1, skipped=1)
    result.stdout.fnmatch_lines(
        [f"tierlock: 0 test files not collected and 1 test skipped because brain absent; to run them: {REMEDY}"]
    )


@pytest.mark.parametrize("name", ["otherpkg", "brainpkg2"])
def test_a_failed_lookup_of_another_distribution_attributes_nothing(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    inner = inner_project(
        pytester,
        monkeypatch,
        {"testing/__init__.py": "", "testing/conftest.py": FIXTURE.format(name=name), "testing/test_m.py": TEST},
        tests="testing/brain/**",
    )
    monkeypatch.setenv("CI", "true")
    result = inner.runpytest("testing")
    assert result.ret == 0, result.stdout.str()
    result.assert_outcomes(passed=1, skipped=1)


def test_a_lookup_that_finds_the_distribution_notes_nothing(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    inner = inner_project(
        pytester,
        monkeypatch,
        {"testing/__init__.py": "", "testing/conftest.py": FIXTURE.format(name="pytest"), "testing/test_m.py": TEST},
        tests="testing/brain/**",
    )
    monkeypatch.setenv("CI", "true")
    result = inner.runpytest("testing")
    assert result.ret == 0, result.stdout.str()
    result.assert_outcomes(passed=2)
