"""A skip whose reason names no root, raised in the same phase as a failed import of a missing tier's root.

SQLAlchemy's own requirement system (``__requires__ = ("asyncio",)``) evaluates a predicate that tries ``import
greenlet`` and swallows the ``ImportError``; the class is then skipped from its ``pytest_runtest_setup`` hook with
``'Test' unsupported on any DB implementation 'sqlite(3.40.1)+pysqlite'custom function``: no exception survives, no
word of the reason names the root. With the tier required in CI and not armed, ``CI=true pytest test/ext/asyncio``
went green with 5 tests silently skipped. A fixture asking ``importlib.util.find_spec(name)`` for a backend named
by its parameter (narwhals' constructors) is the same shape.
"""

from __future__ import annotations

import pytest

from tests.support.plugin_project import inner_pyproject, laptop, write_files
from tierlock.pytest_plugin import EXIT_TIER_MISSING

REMEDY = "tierlock lock brain && install-tier brain"  # no lockfile in this small project

#: SQLAlchemy's requirement system, reduced: the predicate lives in a helper, the skip comes from a setup hook.
REQS = """\
def go():
    try:
        import brainpkg  # noqa: F401
    except ImportError:
        return False
    return True


def check(item):
    needs = getattr(item.cls, "__requires__", ())
    if "asyncio" in needs and not go():
        import pytest

        pytest.skip(f"'{item.cls.__name__}' unsupported on any DB implementation 'sqlite'custom function")
"""

CONFTEST = """\
import reqs


def pytest_runtest_setup(item):
    reqs.check(item)
"""

TESTS = """\
class TestAsync:
    __requires__ = ("asyncio",)

    def test_engine(self):
        pass

    def test_session(self):
        pass


class TestPlain:
    def test_plain(self):
        pass
"""

#: narwhals' constructors, reduced: the backend's module name is a parameter, asked with find_spec in a fixture.
FIND_SPEC = """\
import importlib.util

import pytest


@pytest.fixture(params=["json", "brain" + "pkg"])
def backend(request):
    if importlib.util.find_spec(request.param) is None:
        pytest.skip("backend unavailable")
    return request.param


def test_roundtrip(backend):
    pass
"""

#: A skip for another reason, in a phase that imported nothing missing: never attributed.
UNRELATED = """\
import pytest


def test_windows_only():
    pytest.skip("windows only")
"""


@pytest.fixture
def sqla_like(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    laptop(monkeypatch)
    pytester.makefile(".toml", pyproject=inner_pyproject(cacheprovider=False, tests="testing/brain/**"))
    write_files(
        pytester.path,
        {
            "testing/reqs.py": REQS,
            "testing/conftest.py": CONFTEST,
            "testing/test_engine.py": TESTS,
            "testing/test_backends.py": FIND_SPEC,
            "testing/test_other.py": UNRELATED,
        },
    )
    return pytester


def test_a_strict_run_whose_requirement_predicate_failed_to_import_a_missing_root_fails_closed_naming_the_tests(
    sqla_like: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CI", "true")
    result = sqla_like.runpytest("testing/test_engine.py")
    assert result.ret == EXIT_TIER_MISSING
    result.stdout.fnmatch_lines(
        [
            "tierlock: tier brain is required in CI (ci-require) but it is absent; 2 tests of this run needed it:",
            "*test_engine.py::TestAsync::test_engine (skipped: *custom function; after a failed import of brainpkg)",
            "*to fix: " + REMEDY,
        ]
    )


def test_a_strict_run_whose_fixture_found_no_spec_for_a_missing_root_fails_closed(
    sqla_like: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CI", "true")
    result = sqla_like.runpytest("testing/test_backends.py")
    assert result.ret == EXIT_TIER_MISSING
    result.stdout.fnmatch_lines(["*test_roundtrip?brainpkg? (skipped: backend unavailable; after a failed import*"])


def test_the_same_shapes_under_xdist_fail_closed(sqla_like: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("xdist")
    monkeypatch.setenv("CI", "true")
    result = sqla_like.runpytest_subprocess("testing/test_engine.py", "testing/test_backends.py", "-n", "2")
    assert result.ret == EXIT_TIER_MISSING
    result.stdout.fnmatch_lines(["*3 tests of this run needed it:*"])


def test_on_a_laptop_the_skips_carry_the_remedy_and_are_counted_for_the_tier(sqla_like: pytest.Pytester) -> None:
    result = sqla_like.runpytest("testing", "-rs")
    assert result.ret == 0
    result.assert_outcomes(passed=2, skipped=4)
    result.stdout.fnmatch_lines(
        [
            f"tierlock: 0 test files not collected and 3 tests skipped because brain absent; to run them: {REMEDY}",
            "*custom function; after a failed import of brainpkg (tier brain is absent; to run these tests: *",
        ]
    )


def test_a_skip_in_a_phase_that_failed_to_import_nothing_missing_is_not_attributed(
    sqla_like: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CI", "true")
    result = sqla_like.runpytest("testing/test_other.py", "testing/test_engine.py::TestPlain")
    assert result.ret == 0
    result.assert_outcomes(passed=1, skipped=1)


#: A conftest's flag computed at its top (a name no static reading sees), read by its own setup hook, which skips.
CONFTEST_FLAG = """\
import importlib.util

import pytest

HAS = importlib.util.find_spec("brain" + "pkg") is not None


def pytest_configure(config):
    config.addinivalue_line("markers", "backend: needs the backend")
    config.addinivalue_line("markers", "windows: windows only")


def pytest_runtest_setup(item):
    if "backend" in item.keywords and not HAS:
        pytest.skip("backend unavailable")
    if "windows" in item.keywords:
        pytest.skip("windows only")
"""

MARKED = """\
import pytest


@pytest.mark.backend
def test_backend():
    pass


def test_plain():
    pass
"""

#: A test module whose own top failed the import, skipping for another reason: not attributed (its own file).
OWN_TOP = """\
import pytest

try:
    import brainpkg  # noqa: F401
except ImportError:
    brainpkg = None


def test_posix_only():
    pytest.skip("posix only")
"""


@pytest.fixture
def hooked(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    laptop(monkeypatch)
    pytester.makefile(
        ".toml",
        pyproject=inner_pyproject(cacheprovider=False, tests="testing/brain/**", strict_markers=False),
    )
    write_files(
        pytester.path,
        {"testing/conftest.py": CONFTEST_FLAG, "testing/test_marked.py": MARKED, "testing/test_own.py": OWN_TOP},
    )
    return pytester


#: The same flag computed in a comprehension or a generator expression: their own frame before Python 3.12 inlines
#: comprehensions (a generator expression's still), which hid the conftest's top on those Pythons.
COMPUTED_FLAGS = {
    "plain": 'importlib.util.find_spec("brain" + "pkg") is not None',
    "dict": 'all({n: importlib.util.find_spec(n) is not None for n in ["brain" + "pkg"]}.values())',
    "list": 'all([importlib.util.find_spec(n) for n in ["brain" + "pkg"]])',
    "genexpr": 'all(importlib.util.find_spec(n) is not None for n in ["brain" + "pkg"])',
}


@pytest.mark.parametrize("flag", COMPUTED_FLAGS)
def test_a_skip_raised_by_a_conftest_whose_top_failed_the_import_fails_a_strict_run_closed(
    hooked: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, flag: str
) -> None:
    monkeypatch.setenv("CI", "true")
    conftest = CONFTEST_FLAG.replace(COMPUTED_FLAGS["plain"], COMPUTED_FLAGS[flag])
    (hooked.path / "testing/conftest.py").write_text(conftest, encoding="utf-8")
    result = hooked.runpytest("testing/test_marked.py")
    assert result.ret == EXIT_TIER_MISSING
    result.stdout.fnmatch_lines(["*test_marked.py::test_backend (skipped: backend unavailable; after a failed import*"])


def test_the_test_modules_own_top_and_a_conftest_without_a_failed_import_are_not_evidence(
    hooked: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CI", "true")
    (hooked.path / "testing/conftest.py").write_text(
        CONFTEST_FLAG.replace('"brain" + "pkg"', '"json"'), encoding="utf-8"
    )
    result = hooked.runpytest("testing/test_own.py", "testing/test_marked.py::test_plain")
    assert result.ret == 0
    result.assert_outcomes(passed=1, skipped=1)


#: fsspec's test_parquet.py, reduced: a module that tries the tier's root, then skips for another package.
OTHER_IMPORTORSKIP = """\
import pytest

try:
    import brainpkg  # noqa: F401
except ImportError:
    brainpkg = None

pd = pytest.importorskip("notinstalledpkg")


def test_frames():
    pass
"""


def test_an_importorskip_of_another_package_explains_itself_and_is_not_attributed(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    laptop(monkeypatch)
    pytester.makefile(".toml", pyproject=inner_pyproject(cacheprovider=False, tests="testing/brain/**"))
    write_files(pytester.path, {"testing/test_frames.py": OTHER_IMPORTORSKIP, "testing/test_plain.py": UNRELATED})
    result = pytester.runpytest("testing", "-rs", "--tierlock-lenient")
    assert result.ret == 0
    result.assert_outcomes(skipped=2)
    assert "after a failed import" not in result.stdout.str()


def test_a_module_the_run_keeps_no_test_of_that_fails_on_the_missing_root_is_a_skip_saying_so(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    laptop(monkeypatch)
    monkeypatch.setenv("CI", "true")
    pytester.makefile(".toml", pyproject=inner_pyproject(cacheprovider=False, tests="testing/brain/**"))
    write_files(
        pytester.path,
        {
            "testing/test_needs.py": "import brainpkg\n\n\ndef test_model():\n    assert brainpkg\n",
            "testing/test_other.py": "def test_other():\n    pass\n",
        },
    )
    result = pytester.runpytest("testing", "-k", "other", "-rs")
    assert result.ret == 0
    result.stdout.fnmatch_lines(
        [
            "SKIPPED ?1? testing/test_needs.py*: tier brain is absent; to run these tests: *"
            "(ModuleNotFoundError: No module named 'brainpkg'; no test of it selected)"
        ]
    )
