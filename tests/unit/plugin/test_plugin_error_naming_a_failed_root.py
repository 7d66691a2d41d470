"""An error raised by the code (not an ImportError) because a missing tier's root failed to import.

PyJWT, ``--doctest-modules jwt`` without ``cryptography``: ``jwt/algorithms.py`` sets ``has_crypto`` from a
``try: import cryptography``, and ``get_algorithm_by_name``'s doctest raises ``NotImplementedError("Algorithm
'RS256' could not be found. Do you have cryptography installed?")``. The run was red, with nothing naming the tier
or its remedy: a strict run exited 1 (pytest's), a laptop showed a traceback. What a user expects is what every
other test of the tier gets: in CI, exit 6 naming the tier and the one command that arms it; on a laptop, a skip
with that command. The evidence is two facts together: an import of a root of the tier failed in this run, and
the error's own message names a root of that tier as a whole word. An assertion that names it is never taken.
"""

from __future__ import annotations

import pytest

from tests.support.plugin_project import inner_project
from tierlock.pytest_plugin import EXIT_TIER_MISSING

REMEDY = "tierlock lock brain && install-tier brain"

ALGORITHMS = '''\
try:
    import brainpkg  # noqa: F401

    has_brain = True
except ModuleNotFoundError:
    has_brain = False


def get_algorithm_by_name(name):
    """
    >>> get_algorithm_by_name("RS256") is not None
    True
    """
    if name == "RS256" and not has_brain:
        raise NotImplementedError(f"Algorithm {name!r} could not be found. Do you have brainpkg installed?")
    return object()
'''

TESTS = """\
from inner_jwt.algorithms import get_algorithm_by_name


def test_rs256():
    assert get_algorithm_by_name("RS256")


def test_an_assertion_naming_it():
    assert "brainpkg" == "other", "brainpkg is not what we expected"


def test_another_error_naming_it():
    raise ValueError("brainpkg2 is a different thing")
"""


@pytest.fixture
def jwt_like(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    inner_project(
        pytester,
        monkeypatch,
        {"inner_jwt/__init__.py": "", "inner_jwt/algorithms.py": ALGORITHMS, "testing/test_jwt.py": TESTS},
        tests="testing/brain/**",
    )
    pytester.syspathinsert(pytester.path)
    return pytester


def test_a_strict_doctest_run_whose_error_names_a_root_that_failed_to_import_fails_closed_naming_the_tier(
    jwt_like: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CI", "true")
    result = jwt_like.runpytest("--doctest-modules", "inner_jwt")
    assert result.ret == EXIT_TIER_MISSING
    result.stdout.fnmatch_lines(
        [
            "tierlock: tier brain is required in CI (ci-require) but it is absent; 1 test of this run needed it:",
            "*get_algorithm_by_name (failed in call: NotImplementedError: Algorithm 'RS256' could not be found.*",
            f"*to fix: {REMEDY}",
        ]
    )


def test_on_a_laptop_the_same_doctest_is_a_skip_with_the_remedy(jwt_like: pytest.Pytester) -> None:
    result = jwt_like.runpytest("--doctest-modules", "inner_jwt", "-rs")
    assert result.ret == 0
    result.assert_outcomes(skipped=1)
    result.stdout.fnmatch_lines(["tierlock: 0 test files not collected and 1 test skipped because brain absent*"])


def test_a_test_calling_it_is_attributed_and_assertions_or_other_words_are_not(jwt_like: pytest.Pytester) -> None:
    result = jwt_like.runpytest("testing/test_jwt.py", "-rs")
    result.assert_outcomes(skipped=1, failed=2)
    result.stdout.fnmatch_lines(["SKIPPED ?1? testing/test_jwt.py:4: tier brain is absent*NotImplementedError: Algor*"])


def test_an_error_naming_a_root_whose_import_never_failed_is_left_alone(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    files = {"testing/test_words.py": "def test_it():\n    raise RuntimeError('brainpkg is off')\n"}
    inner_project(pytester, monkeypatch, files, tests="testing/brain/**")
    monkeypatch.setenv("CI", "true")
    result = pytester.runpytest("testing")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.assert_outcomes(failed=1)
