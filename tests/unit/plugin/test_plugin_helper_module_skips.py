"""A helper module whose import fails without the tier, and the test files that skip when they cannot import it.

``testing/helpers.py`` imports ``brainpkg`` at its top; a test file writes ``helpers =
pytest.importorskip("testing.helpers")`` or ``try: from testing import helpers ... except ImportError: HAS = False``
with ``skipif(not HAS, reason="helpers unavailable")``. Before: ``CI=true pytest`` exited 0 (or 5, nothing else
collected) with ``brain absent; none of its tests were selected``: the census did not follow either import to the
helper module, and the backstop read ``could not import 'testing.helpers': No module named 'brainpkg'`` by the module
importorskip named (``testing``, no tier's root). Now the run stops before collection, and a name no static reading
sees (``pytest.importorskip("testing." + "helpers")``) fails the run at its end, the skip blamed on the tier. A helper
that tries ``brainpkg`` for its own use (and so imports without it) blames nothing: an unrelated skip stays a skip.
"""

from __future__ import annotations

import pytest

from tests.support.plugin_project import inner_pyproject, laptop, write_files
from tierlock.pytest_plugin import EXIT_TIER_MISSING

PYPROJECT = inner_pyproject(cacheprovider=False, tests="testing/brain/**", strict_markers=False)
REMEDY = "tierlock lock brain && install-tier brain"  # no lockfile in this small project

NEEDY = "import brainpkg\n\n\ndef model():\n    return brainpkg\n"
GUARDED = "import sys\n\ntry:\n    import brainpkg\nexcept ImportError:\n    brainpkg = None\n"
GUARDED += "WINDOWS = sys.platform == 'win32'\n"

#: Each shape: the test file (one test, ``test_a``, that needs the helper).
SHAPES = {
    "importorskip": 'import pytest\n\nhelpers = pytest.importorskip("testing.helpers")\n\n\ndef test_a():\n    pass\n',
    "try-flag": (
        "import pytest\n\ntry:\n    from testing import helpers\n    HAS = True\nexcept ImportError:\n"
        "    HAS = False\n\n\n"
        '@pytest.mark.skipif(not HAS, reason="helpers unavailable")\ndef test_a():\n    pass\n\n\ndef test_plain():\n'
        "    pass\n"
    ),
}

COMPUTED = 'import pytest\n\nhelpers = pytest.importorskip("testing." + "helpers")\n\n\ndef test_a():\n    pass\n'


@pytest.fixture
def project(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    laptop(monkeypatch)
    pytester.makefile(".toml", pyproject=PYPROJECT)
    write_files(pytester.path, {"testing/__init__.py": "", "testing/helpers.py": NEEDY})
    return pytester


@pytest.mark.parametrize("shape", SHAPES)
def test_in_ci_a_test_file_skipping_on_a_helper_that_needs_the_tier_stops_the_run_before_collection(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, shape: str
) -> None:
    monkeypatch.setenv("CI", "true")
    write_files(project.path, {"testing/test_x.py": SHAPES[shape]})
    result = project.runpytest("testing/test_x.py")
    assert result.ret == EXIT_TIER_MISSING, result.stdout.str() + result.stderr.str()
    pytest.LineMatcher([*result.outlines, *result.errlines]).fnmatch_lines(
        [
            "tierlock: tier brain is required in CI (ci-require) but it is absent*",
            "  this run selects 1 test file(s) that need it",
            f"  to fix: {REMEDY}",
        ]
    )


def test_in_ci_an_importorskip_of_a_helper_by_a_computed_name_fails_the_run_at_its_end(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CI", "true")
    write_files(project.path, {"testing/test_x.py": COMPUTED, "testing/test_other.py": "def test_b():\n    pass\n"})
    result = project.runpytest("testing")
    assert result.ret == EXIT_TIER_MISSING, result.stdout.str() + result.stderr.str()
    result.stdout.fnmatch_lines(
        [
            "tierlock: tier brain is required in CI (ci-require) but it is absent; 1 test of this run needed it:",
            "  - testing/test_x.py (skipped: could not import 'testing.helpers': No module named 'brainpkg')",
            f"  to fix: {REMEDY}",
        ]
    )


@pytest.mark.parametrize("shape", SHAPES)
def test_on_a_laptop_the_skip_is_counted_for_the_tier_with_its_remedy(project: pytest.Pytester, shape: str) -> None:
    write_files(project.path, {"testing/test_x.py": SHAPES[shape]})
    result = project.runpytest("testing/test_x.py", "-rs")
    assert result.ret in (0, 5), result.stdout.str()
    result.stdout.fnmatch_lines(
        [f"tierlock: 0 test files not collected and 1 test skipped because brain absent; to run them: {REMEDY}"]
    )
    result.stdout.fnmatch_lines([f"SKIPPED *(tier brain is absent; to run these tests: {REMEDY})"])


def test_an_importorskip_of_a_helper_failing_on_a_module_of_no_tier_is_not_the_tiers(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CI", "true")
    write_files(
        project.path,
        {"testing/other.py": "import yamlish_missing\n", "testing/test_x.py": COMPUTED.replace("helpers", "other")},
    )
    result = project.runpytest("testing/test_x.py", "-rs")
    assert result.ret == 5, result.stdout.str() + result.stderr.str()  # (nothing else collected)
    result.stdout.fnmatch_lines(["*could not import 'testing.other': No module named 'yamlish_missing'"])
    assert "tier brain is absent" not in result.stdout.str()


def test_a_helper_trying_the_tier_for_its_own_use_blames_nothing(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The helper imports without brainpkg: a test skipped on its own platform flag is no test of brain's."""
    monkeypatch.setenv("CI", "true")
    write_files(
        project.path,
        {
            "testing/helpers.py": GUARDED,
            "testing/test_x.py": "import pytest\n\nfrom testing import helpers\n\n\n"
            '@pytest.mark.skipif(not helpers.WINDOWS, reason="windows only")\ndef test_a():\n    pass\n',
        },
    )
    result = project.runpytest("testing/test_x.py", "-rs")
    assert result.ret == 0, result.stdout.str() + result.stderr.str()
    result.assert_outcomes(skipped=1)
    result.stdout.fnmatch_lines(["SKIPPED * windows only"])
