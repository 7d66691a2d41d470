"""Skips made by a helper of another file: the gate reads them before collection, the backstop at run time.

``from testing.helpers import needs`` / ``@needs("brainpkg")`` where ``def needs(m): return
pytest.mark.skipif(find_spec(m) is None, reason="optional dependency")``, or a flag ``HAS = probe("brainpkg")`` set
by a function trying the import: the reason names nothing and the census read neither, so ``CI=true pytest`` went
green with the tier's tests skipped. Now the census reads them and the run stops before collection.

A conftest whose flag a function computes at its top from a name no static reading sees (``probe("brain" +
"pkg")``), read by its own setup hook, which skips: the backstop took the failed import for the function's, not the
conftest's (it read only the innermost frame). Now the files whose top-level code is running (up to the hook pytest
called) own the failure.
"""

from __future__ import annotations

import pytest

from tests.support.plugin_project import inner_pyproject, laptop, write_files
from tierlock.pytest_plugin import EXIT_TIER_MISSING

PYPROJECT = inner_pyproject(cacheprovider=False, tests="testing/brain/**", strict_markers=False)
REMEDY = "tierlock lock brain && install-tier brain"  # no lockfile in this small project

HELPERS = """\
from importlib import import_module
from importlib.util import find_spec

import pytest


def needs(module):
    return pytest.mark.skipif(find_spec(module) is None, reason="optional dependency")


def needs_all(modules):
    return pytest.mark.skipif(not all(find_spec(m) for m in modules), reason="optional dependencies")


def probe(name):
    try:
        import_module(name)
    except ImportError:
        return False
    return True


HAS_BRAIN = probe("brainpkg")
"""

#: Each shape of a test skipped by a helper's mark or flag: (its imports and module-level lines, its decorator).
SHAPES = {
    "decorator": ("from testing.helpers import needs", '@needs("brainpkg")'),
    "module-attribute": ("from testing import helpers", '@helpers.needs("brainpkg.sub")'),
    "list": ("from testing.helpers import needs_all", '@needs_all(["json", "brainpkg"])'),
    "bound-mark": ('from testing.helpers import needs\n\nrequires_brain = needs("brainpkg")', "@requires_brain"),
    "flag-of-the-helper-module": (
        "from testing.helpers import HAS_BRAIN",
        '@pytest.mark.skipif(not HAS_BRAIN, reason="optional")',
    ),
    "flag-of-the-test-module": (
        'from testing.helpers import probe\n\nHAS = probe("brainpkg")',
        '@pytest.mark.skipif(not HAS, reason="optional")',
    ),
    "param": (
        "from testing.helpers import needs",
        '@pytest.mark.parametrize("x", [pytest.param(1, marks=needs("brainpkg"))])',
    ),
}


def _test_file(shape: str) -> str:
    head, decorator = SHAPES[shape]
    args = "x" if shape == "param" else ""
    tests = f"{decorator}\ndef test_needs_brain({args}):\n    pass\n\n\ndef test_plain():\n    pass\n"
    return f"import pytest\n\n{head}\n\n\n{tests}"


@pytest.fixture
def made(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    laptop(monkeypatch)
    pytester.makefile(".toml", pyproject=PYPROJECT)
    write_files(pytester.path, {"testing/__init__.py": "", "testing/helpers.py": HELPERS})
    return pytester


@pytest.mark.parametrize("shape", SHAPES)
def test_in_ci_a_test_skipped_by_a_helpers_mark_or_flag_stops_the_run_before_collection(
    made: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, shape: str
) -> None:
    monkeypatch.setenv("CI", "true")
    write_files(made.path, {"testing/test_made.py": _test_file(shape)})
    result = made.runpytest("testing/test_made.py")
    assert result.ret == EXIT_TIER_MISSING, result.stdout.str() + result.stderr.str()
    pytest.LineMatcher([*result.outlines, *result.errlines]).fnmatch_lines(
        [
            "tierlock: tier brain is required in CI (ci-require) but it is absent*",
            "  this run selects 1 test file(s) that need it",
            f"  to fix: {REMEDY}",
        ]
    )


def test_in_ci_the_other_tests_of_the_file_need_nothing(made: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CI", "true")
    write_files(made.path, {"testing/test_made.py": _test_file("decorator")})
    result = made.runpytest("testing/test_made.py::test_plain")
    assert result.ret == 0
    result.assert_outcomes(passed=1)


def test_in_ci_a_helpers_mark_for_a_module_of_no_tier_needs_nothing(
    made: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CI", "true")
    write_files(made.path, {"testing/test_made.py": _test_file("decorator").replace('"brainpkg"', '"json"')})
    result = made.runpytest("testing/test_made.py")
    assert result.ret == 0
    result.assert_outcomes(passed=2)


#: A conftest's flag computed at its top by a function, from a name no static reading sees; its setup hook skips.
HOOKED = """\
import pytest

{head}

HAS = {flag}


def pytest_configure(config):
    config.addinivalue_line("markers", "backend: needs the backend")


def pytest_runtest_setup(item):
    if "backend" in item.keywords and not HAS:
        pytest.skip("backend unavailable")
"""

OWN_PROBE = "from importlib import import_module\n\n\ndef _probe(name):\n    try:\n        import_module(name)\n"
OWN_PROBE += "    except ImportError:\n        return False\n    return True\n"

#: The function the conftest calls: its own, or one imported from a helper module.
CONFTESTS = {
    "own-function": (OWN_PROBE, '_probe("brain" + "pkg")'),
    "imported-function": ("from testing.helpers import probe", 'probe("brain" + "pkg")'),
    "comprehension-of-a-function": ("from testing.helpers import probe", 'all([probe(n) for n in ["brain" + "pkg"]])'),
}

MARKED = "import pytest\n\n\n@pytest.mark.backend\ndef test_backend():\n    pass\n\n\ndef test_plain():\n    pass\n"


@pytest.mark.parametrize("shape", CONFTESTS)
def test_a_skip_raised_by_a_conftest_whose_flag_a_function_computed_at_its_top_fails_a_strict_run_closed(
    made: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, shape: str
) -> None:
    monkeypatch.setenv("CI", "true")
    head, flag = CONFTESTS[shape]
    write_files(
        made.path,
        {
            "testing/conftest.py": HOOKED.format(head=head, flag=flag),
            "testing/test_marked.py": MARKED,
        },
    )
    result = made.runpytest("testing/test_marked.py")
    assert result.ret == EXIT_TIER_MISSING, result.stdout.str() + result.stderr.str()
    result.stdout.fnmatch_lines(
        [
            "tierlock: tier brain is required in CI (ci-require) but it is absent; 1 test of this run needed it:",
            "*test_marked.py::test_backend (skipped: backend unavailable; after a failed import of brainpkg)",
            f"  to fix: {REMEDY}",
        ]
    )


def test_a_function_a_hook_calls_and_a_module_the_conftest_imports_are_not_its_top(
    made: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A probe the setup hook ran for another test, and the helper module's own ``HAS_BRAIN = probe("brainpkg")``
    (the conftest imports it, for another name), are no evidence for the conftest's unrelated skip."""
    monkeypatch.setenv("CI", "true")
    conftest = "import pytest\n\nfrom testing.helpers import probe\n\n\ndef pytest_configure(config):\n"
    conftest += '    config.addinivalue_line("markers", "windows: windows only")\n\n\ndef pytest_runtest_setup(item):\n'
    conftest += '    if item.name == "test_plain":\n        probe("brain" + "pkg")\n'
    conftest += '    if "windows" in item.keywords:\n        pytest.skip("windows only")\n'
    tests = "import pytest\n\n\ndef test_plain():\n    pass\n\n\n@pytest.mark.windows\ndef test_win():\n    pass\n"
    write_files(made.path, {"testing/conftest.py": conftest, "testing/test_win.py": tests})
    result = made.runpytest("testing/test_win.py", "-p", "no:randomly")
    assert result.ret == 0, result.stdout.str()
    result.assert_outcomes(passed=1, skipped=1)


#: Tests skipped by a helper's mark, in two files: one test, a class of two, three parameters, and a file's mark.
COUNTED = {
    "testing/test_one.py": """\
        import pytest

        from testing.helpers import needs


        @needs("brainpkg")
        def test_model():
            pass


        @needs("brainpkg")
        class TestFit:
            def test_fit(self):
                pass

            def test_predict(self):
                pass


        @needs("brainpkg")
        @pytest.mark.parametrize("size", [1, 2, 3])
        def test_sizes(size):
            pass


        @pytest.mark.skip(reason="another reason")
        def test_elsewhere():
            pass


        @pytest.fixture
        def model():
            import brainpkg

            return brainpkg


        @pytest.mark.skip(reason="flaky")
        def test_flaky(model):
            pass


        def test_plain():
            pass
        """,
    "testing/test_two.py": """\
        from testing.helpers import needs

        pytestmark = needs("brainpkg")


        def test_load():
            pass


        def test_save():
            pass
        """,
}


def test_on_a_laptop_each_skipped_test_the_census_read_as_needing_the_tier_is_counted_not_its_file(
    made: pytest.Pytester,
) -> None:
    write_files(made.path, COUNTED)
    result = made.runpytest("testing", "-rs")
    assert result.ret == 0
    result.assert_outcomes(passed=1, skipped=10)
    result.stdout.fnmatch_lines(
        [f"tierlock: 0 test files not collected and 8 tests skipped because brain absent; to run them: {REMEDY}"]
    )
    assert "selected test file" not in result.stdout.str()
    assert "another reason;" not in result.stdout.str()  # a test of no tier's need, skipped for its own reason
    assert "flaky;" not in result.stdout.str()  # a test needing it through a fixture, skipped for its own reason


def test_the_same_count_under_xdist(made: pytest.Pytester) -> None:
    pytest.importorskip("xdist")
    write_files(made.path, COUNTED)
    result = made.runpytest_subprocess("testing", "-n", "2")
    assert result.ret == 0
    result.stdout.fnmatch_lines(["tierlock: 0 test files not collected and 8 tests skipped because brain absent*"])


def test_a_narrowed_run_counts_only_the_tests_it_keeps(made: pytest.Pytester) -> None:
    write_files(made.path, COUNTED)
    result = made.runpytest("testing/test_one.py::TestFit::test_fit", "testing/test_one.py::test_sizes")
    assert result.ret == 0
    result.stdout.fnmatch_lines(["tierlock: 0 test files not collected and 4 tests skipped because brain absent*"])
