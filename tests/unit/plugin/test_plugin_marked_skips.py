"""A skip a conftest hook adds to the tests of a project's own mark, when the tier's package is missing.

A common shape: the conftest tries ``import brainpkg`` once at its top, keeps a flag, and its
``pytest_collection_modifyitems`` adds ``skip("backend unavailable")`` to every test marked ``@pytest.mark.brain``
(or ``requires_brainpkg``). The skip comes from pytest's own skipping at setup, in a phase that imported nothing, and
its reason names nothing: a strict run went green with the tier's tests silently skipped. The mark names the tier
(or its package): the skip is the tier's. A skip of a mark that names no tier (``slow`` without ``--runslow``) stays a
plain skip.
"""

from __future__ import annotations

import pytest

from tests.support.plugin_project import (
    REQUIRED_ABSENT,
    assert_failed_closed,
    assert_stopped_before_collection,
    inner_project,
    strict_run,
)

CONFTEST = """\
import pytest

try:
    import brainpkg  # noqa: F401
except ImportError:
    HAS_BRAIN = False
else:
    HAS_BRAIN = True


def pytest_configure(config):
    for name in ("brain", "requires_brainpkg", "slow"):
        config.addinivalue_line("markers", f"{name}: a project's own mark")


def pytest_collection_modifyitems(config, items):
    for item in items:
        if ("brain" in item.keywords or "requires_brainpkg" in item.keywords) and not HAS_BRAIN:
            item.add_marker(pytest.mark.skip(reason="backend unavailable"))
        if "slow" in item.keywords:
            item.add_marker(pytest.mark.skip(reason="need --runslow to run"))
"""

TESTS = """\
import pytest


@pytest.mark.brain
def test_model():
    pass


@pytest.mark.requires_brainpkg
def test_weights():
    pass


@pytest.mark.slow
def test_slow():
    pass


def test_plain():
    pass
"""


@pytest.fixture
def marked(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    return inner_project(
        pytester,
        monkeypatch,
        {"testing/conftest.py": CONFTEST, "testing/test_models.py": TESTS},
        tests="testing/brain/**",
    )


def test_a_strict_run_whose_hook_skipped_the_tests_of_a_mark_named_after_a_missing_tier_fails_closed(
    marked: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the flag from a computed import: no static reading ties the mark to brainpkg (the census reads the plain
    # ``import brainpkg`` flag and stops the run before collection), so the run-time backstop is what fails it
    conftest = marked.path / "testing" / "conftest.py"
    computed = "    import importlib\n\n    importlib.import_module('brain' + 'pkg')"
    conftest.write_text(conftest.read_text().replace("    import brainpkg  # noqa: F401", computed))
    result = strict_run(marked, monkeypatch, "testing")
    assert_failed_closed(
        result,
        f"{REQUIRED_ABSENT}; 2 tests of this run needed it:",
        "*test_models.py::test_model (skipped: backend unavailable; marked brain)",
        "*test_models.py::test_weights (skipped: backend unavailable; marked requires_brainpkg)",
    )
    assert "test_slow" not in result.stdout.str()


def test_a_strict_run_whose_hook_reads_the_plain_flag_stops_before_collection(
    marked: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    result = strict_run(marked, monkeypatch, "testing")
    assert_stopped_before_collection(result, files=None)
    assert "test_model" not in result.stdout.str()


def test_a_strict_run_of_a_skipped_mark_that_names_no_tier_passes(
    marked: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    result = strict_run(marked, monkeypatch, "testing", "-k", "slow or plain")
    assert result.ret == 0, result.stdout.str()
    result.assert_outcomes(passed=1, skipped=1)


def test_on_a_laptop_the_marked_tests_skip_with_the_remedy(marked: pytest.Pytester) -> None:
    result = marked.runpytest("testing", "-rs")
    assert result.ret == 0
    result.assert_outcomes(passed=1, skipped=3)
    result.stdout.fnmatch_lines(["*backend unavailable; marked brain (tier brain is absent; to run these tests: *"])


@pytest.mark.parametrize(
    ("marks", "found"),
    [
        (["brain"], ("brain", "brain")),
        (["Data_Frame"], ("data-frame", "Data_Frame")),
        (["requires_brainpkg"], ("brain", "requires_brainpkg")),
        (["needs_brain_models"], ("brain", "needs_brain_models")),
        (["parametrize", "skip", "tier", "slow"], None),
        (["vision"], None),
        (["requires_"], None),
        (["slow", "brain"], ("brain", "brain")),
    ],
    ids=["tier", "tier-with-a-dash", "requires-root", "needs-distribution", "own-marks", "present-tier", "bare", "2nd"],
)
def test_a_mark_names_a_missing_tier_by_its_name_its_import_or_its_distribution(
    marks: list[str], found: tuple[str, str] | None
) -> None:
    from tierlock.pytest_plugin.backstop import _marked
    from tierlock.pytest_plugin.decision import Gate

    gate = Gate(
        root="/p",
        strict=True,
        why="CI detected",
        states={"brain": "absent", "data-frame": "absent", "vision": "present"},
        gated={},
        install={},
        broken={},
        owners={"brainpkg": "brain", "pandas": "data-frame"},
        words={"brain-models": "brain", "brainpkg": "brain", "pandas": "data-frame"},
    )
    assert _marked(gate, marks) == found
