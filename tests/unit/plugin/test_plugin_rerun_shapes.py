"""The gate's backstop re-run on shapes of real projects no other test had (each a small project of the same shape).

* httpx: the project's own library raises ``ImportError("Using http2=True, but the 'h2' package is not
  installed...")`` when a test asks for the feature; no test imports ``h2``, so only the run-time backstop can
  see it. A strict run failed closed (exit 6) naming the test, but its summary line said ``http2 absent; none of
  its tests were selected`` right above ``1 test of this run needed it``: the summary counted only the attributed
  tests that became skips, and in a strict run they keep their failure.
* Doctests (``--doctest-glob="*.rst"``, ``--doctest-modules``) whose example imports a missing tier's root: pytest
  reports a ``doctest.UnexpectedException`` that carries the ``ModuleNotFoundError`` in ``exc_info``, not in its
  chain, so the backstop saw nothing: a laptop showed two tracebacks instead of skips with the remedy, and a
  strict run failed with pytest's exit 1 instead of failing closed naming the tier.
* PyJWT's ``tests/test_algorithms.py``: a class decorated with the ``@crypto_required`` alias. A strict run of one
  test of *another* class of that file (a node id, or ``-k``) failed closed before collection: the class's
  decorator line lies inside no test, so it read as a helper's use that the whole file needs.
* ``pytest.importorskip`` at the top of an initial ``conftest.py``: pytest stops with a raw ``Skipped``
  traceback (exit 1). tierlock caught only ``Exception`` there (``Skipped`` is a ``BaseException``) and read only
  ``ImportError``s: no line naming the tier on a laptop, and a strict run ended with pytest's 1, not 6.
"""

from __future__ import annotations

import pytest

from tests.support.plugin_project import inner_project
from tierlock.pytest_plugin import EXIT_TIER_MISSING

REMEDY = "tierlock lock brain && install-tier brain"  # no lockfile in this small project

#: httpx's shape: the library imports its optional package lazily and says which one is missing.
HTTPX = {
    "testing/__init__.py": "",
    "testing/client.py": """\
        try:
            import brainpkg
        except ImportError:
            brainpkg = None


        class Client:
            def __init__(self, http2=False):
                if http2 and brainpkg is None:
                    raise ImportError(
                        "Using http2=True, but the 'brainpkg' package is not installed. "
                        "Make sure to install inner using `pip install inner[brain]`."
                    )
        """,
    "testing/test_client.py": """\
        from testing.client import Client


        def test_get():
            Client(http2=True)


        def test_get_http1():
            Client()
        """,
}


@pytest.fixture
def httpx_like(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    return inner_project(pytester, monkeypatch, HTTPX, tests="testing/brain/**")


def test_a_strict_runs_summary_counts_the_failures_it_fails_closed_on_never_none_selected(
    httpx_like: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CI", "true")
    result = httpx_like.runpytest("testing/test_client.py")
    assert result.ret == EXIT_TIER_MISSING
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(
        [
            "tierlock: 0 test files not collected, 0 tests skipped and 1 test failed because brain absent; "
            f"to run them: {REMEDY}",
            "tierlock: tier brain is required in CI (ci-require) but it is absent; 1 test of this run needed it:",
            "  - testing/test_client.py::test_get (failed in call: ImportError: Using http2=True, but the 'brainpkg'*",
        ]
    )
    assert "none of its tests were selected" not in result.stdout.str()


def test_the_same_run_on_a_laptop_is_one_skip_counted_for_the_tier(httpx_like: pytest.Pytester) -> None:
    result = httpx_like.runpytest("testing/test_client.py")
    assert result.ret == 0
    result.assert_outcomes(passed=1, skipped=1)
    result.stdout.fnmatch_lines(
        [f"tierlock: 0 test files not collected and 1 test skipped because brain absent; to run them: {REMEDY}"]
    )


def test_under_xdist_the_strict_summary_counts_the_same_failure(
    httpx_like: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("xdist")
    monkeypatch.setenv("CI", "true")
    result = httpx_like.runpytest("testing/test_client.py", "-n", "2")
    assert result.ret == EXIT_TIER_MISSING
    result.stdout.fnmatch_lines(
        ["tierlock: 0 test files not collected, 0 tests skipped and 1 test failed because brain absent; *"]
    )


DOCTESTS = {
    "testing/__init__.py": "",
    "testing/guide.rst": "Guide\n=====\n\n>>> import brainpkg\n>>> brainpkg.__name__\n'brainpkg'\n",
    "testing/helpers.py": '''\
        def model():
            """
            >>> import brainpkg
            >>> 1
            1
            """
        ''',
    "testing/test_plain.py": "def test_plain():\n    pass\n",
}

DOCTEST_ARGS = ("--doctest-glob=*.rst", "--doctest-modules", "testing")


@pytest.fixture
def with_doctests(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    return inner_project(pytester, monkeypatch, DOCTESTS, tests="testing/brain/**")


@pytest.mark.parametrize("continue_on_failure", [False, True], ids=["first-failure", "continue-on-failure"])
def test_a_doctest_importing_a_missing_root_is_a_skip_with_the_remedy_on_a_laptop(
    with_doctests: pytest.Pytester, continue_on_failure: bool
) -> None:
    extra = ("--doctest-continue-on-failure",) if continue_on_failure else ()
    result = with_doctests.runpytest(*DOCTEST_ARGS, *extra, "-rs")
    assert result.ret == 0
    result.assert_outcomes(passed=1, skipped=2)
    result.stdout.fnmatch_lines(
        [f"tierlock: 0 test files not collected and 2 tests skipped because brain absent; to run them: {REMEDY}"]
    )
    assert "Traceback" not in result.stdout.str()


def test_a_strict_run_whose_doctests_need_a_missing_tier_fails_closed_naming_them(
    with_doctests: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CI", "true")
    result = with_doctests.runpytest(*DOCTEST_ARGS)
    assert result.ret == EXIT_TIER_MISSING
    result.stdout.fnmatch_lines(
        [
            "tierlock: tier brain is required in CI (ci-require) but it is absent; 2 tests of this run needed it:",
            "  - testing/guide.rst::guide.rst (failed in call: ModuleNotFoundError: No module named 'brainpkg')",
            "  - testing/helpers.py::testing.helpers.model (failed in call: ModuleNotFoundError: *",
        ]
    )


CLASS_MARKED = {
    "testing/__init__.py": "",
    "testing/utils.py": """\
        import pytest

        try:
            import brainpkg  # noqa: F401
            has_brain = True
        except ImportError:
            has_brain = False

        brain_required = pytest.mark.skipif(not has_brain, reason="Requires brainpkg library installed")
        """,
    "testing/test_algorithms.py": """\
        from .utils import brain_required


        class TestAlgorithms:
            def test_hmac(self):
                pass


        @brain_required
        class TestBrainAlgorithms:
            def test_model(self):
                pass
        """,
}


@pytest.fixture
def class_marked(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    project = inner_project(pytester, monkeypatch, CLASS_MARKED, tests="testing/brain/**")
    monkeypatch.setenv("CI", "true")
    return project


@pytest.mark.parametrize(
    "selection",
    [("testing/test_algorithms.py::TestAlgorithms::test_hmac",), ("testing/test_algorithms.py", "-k", "hmac")],
    ids=["node-id", "-k"],
)
def test_a_strict_run_of_a_test_outside_a_marked_class_needs_nothing(
    class_marked: pytest.Pytester, selection: tuple[str, ...]
) -> None:
    result = class_marked.runpytest(*selection)
    assert result.ret == 0, result.stderr.str()
    result.assert_outcomes(passed=1)


def test_a_strict_run_of_a_test_of_the_marked_class_still_fails_closed(class_marked: pytest.Pytester) -> None:
    result = class_marked.runpytest("testing/test_algorithms.py::TestBrainAlgorithms::test_model")
    assert result.ret == EXIT_TIER_MISSING
    result.stderr.fnmatch_lines(["  this run selects 1 test file(s) that need it"])


@pytest.fixture
def conftest_skips(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    return inner_project(
        pytester,
        monkeypatch,
        {
            "conftest.py": "import pytest\n\nbrainpkg = pytest.importorskip('brainpkg')\n",
            "testing/__init__.py": "",
            "testing/test_base.py": "def test_base():\n    pass\n",
        },
        tests="testing/brain/**",
    )


def test_an_importorskip_atop_an_initial_conftest_fails_a_strict_run_closed_naming_the_tier(
    conftest_skips: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CI", "true")
    result = conftest_skips.runpytest_subprocess("testing/test_base.py")  # a Skipped this early escapes in-process
    assert result.ret == EXIT_TIER_MISSING
    result.stderr.fnmatch_lines(
        [
            "tierlock: tier brain is required in CI (ci-require) but it is absent; 1 test of this run needed it:",
            "  - conftest.py (error while loading: Skipped: could not import 'brainpkg'*)",
            f"  to fix: {REMEDY}",
        ]
    )


def test_on_a_laptop_the_same_conftest_names_the_tier_before_pytests_own_report(
    conftest_skips: pytest.Pytester,
) -> None:
    result = conftest_skips.runpytest_subprocess("testing/test_base.py")  # pytest's own stop is a traceback
    assert result.ret == 1
    result.stderr.fnmatch_lines([f"tierlock: brain absent; to fix: {REMEDY}", "*Skipped: could not import 'brainpkg'*"])
