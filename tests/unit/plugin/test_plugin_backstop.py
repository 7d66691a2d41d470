"""The run-time backstop: a test that needs a missing tier in a way no static reading sees still fails CI closed.

Each project here reaches the ``brain`` tier (root ``brainpkg``, never installed unless a test arms it; its
tests live in ``testing/``, a package name the outer suite does not use) the way
a real test suite does, out of the census's sight: a conftest fixture behind an indirect parameter (fsspec), a
conftest helper called from ``pytest_generate_tests`` parameters (narwhals), an availability flag in a helper
module with ``skipif`` (PyJWT), an ``importorskip`` or ``import_module`` of a name computed at run time, an
``ImportError`` in setup, call, teardown or collection. In strict mode each fails the run closed (exit 6) naming
the test, the tier and the one command that fixes it; on a laptop each becomes one named line per tier with its
remedy. Unrelated skips never fail a run.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.binaries import loadable_stub
from tests.support.plugin_project import inner_project, write_files
from tests.support.probe_env import uv_install
from tests.support.wheels import EXT_SUFFIX, build_wheel
from tierlock.pytest_plugin import EXIT_TIER_MISSING

REMEDY = "tierlock lock brain && install-tier brain"  # brain has no lockfile here

#: A helper whose importorskip name is computed at run time: no static reading can see it.
COMPUTED = """\
import pytest

PREFIX = "brain"


def need(suffix):
    return pytest.importorskip(PREFIX + suffix)
"""


@pytest.fixture
def inner(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    return inner_project(
        pytester,
        monkeypatch,
        {"testing/__init__.py": "", "testing/test_base.py": "def test_base():\n    pass\n"},
        tests="testing/brain/**",
    )


def in_ci(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CI", "true")


# -- fsspec: a conftest fixture behind an indirect parameter --------------------------------------
FSSPEC = {
    "testing/conftest.py": """\
        import pytest

        from testing.helpers import need


        @pytest.fixture
        def fs(request):
            arrow = need("pkg")
            return (request.param, arrow)
        """,
    "testing/helpers.py": COMPUTED,
    "testing/test_common.py": """\
        import pytest


        @pytest.mark.parametrize("fs", ["local", "memory"], indirect=["fs"])
        def test_modified(fs):
            assert fs


        def test_plain():
            pass
        """,
}


def test_a_conftest_fixture_that_skips_for_a_computed_name_fails_a_ci_run_closed_naming_test_tier_and_fix(
    inner: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_files(inner.path, FSSPEC)
    in_ci(monkeypatch)
    result = inner.runpytest("testing/test_common.py")
    assert result.ret == EXIT_TIER_MISSING
    result.stdout.fnmatch_lines(
        [
            "tierlock: tier brain is required in CI (ci-require) but it is absent; 2 tests of this run needed it:",
            "  - testing/test_common.py::test_modified[[]local[]] (skipped: could not import 'brainpkg':*",
            "  - testing/test_common.py::test_modified[[]memory[]] (skipped: could not import 'brainpkg':*",
            f"  to fix: {REMEDY}",
            "tierlock: failing closed (CI detected)*Exit code 6*",
        ]
    )


def test_the_same_skips_on_a_laptop_are_one_line_for_the_tier_with_its_remedy(inner: pytest.Pytester) -> None:
    write_files(inner.path, FSSPEC)
    result = inner.runpytest("testing/test_common.py")
    assert result.ret == 0
    result.assert_outcomes(passed=1, skipped=2)
    result.stdout.fnmatch_lines(
        [f"tierlock: 0 test files not collected and 2 tests skipped because brain absent; to run them: {REMEDY}"]
    )


# -- narwhals: conftest helpers called through pytest_generate_tests parameters -------------------
NARWHALS = {
    "testing/conftest.py": """\
        import pytest


        def base_constructor(obj):
            return dict(obj)


        def brain_constructor(obj):
            pytest.importorskip("brainpkg")
            import brainpkg

            return brainpkg.frame(obj)


        def pytest_generate_tests(metafunc):
            if "constructor" in metafunc.fixturenames:
                metafunc.parametrize("constructor", [base_constructor, brain_constructor], ids=["base", "brain"])
        """,
    "testing/expr/abs_test.py": """\
        def test_abs(constructor):
            assert constructor({"a": [1]})
        """,
}


def test_conftest_helpers_that_importorskip_a_tier_fail_a_ci_run_closed(
    inner: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_files(inner.path, NARWHALS)
    with (inner.path / "pyproject.toml").open("a") as handle:
        handle.write('\npython_files = ["*_test.py", "test_*.py"]\n')
    in_ci(monkeypatch)
    result = inner.runpytest("testing/expr/abs_test.py")
    assert result.ret == EXIT_TIER_MISSING
    result.stdout.fnmatch_lines(
        ["  - testing/expr/abs_test.py::test_abs[[]brain[]] (skipped: could not import 'brainpkg':*"]
    )


# -- PyJWT: an availability flag and skipif ------------------------------------------------------------
PYJWT = {
    # The flag's name is computed: no static reading sees it (the census reads a literal ``try: import`` flag, the
    # ``else:`` form included, and then stops the run before collection), so only the skip reason tells.
    "testing/utils.py": """\
        import importlib.util

        import pytest

        has_brain = importlib.util.find_spec("brain" + "pkg") is not None

        brain_required = pytest.mark.skipif(not has_brain, reason="Requires brainpkg library installed")
        no_brain_required = pytest.mark.skipif(has_brain, reason="Requires brainpkg library not installed")
        """,
    "testing/test_api_jwk.py": """\
        from .utils import brain_required, no_brain_required


        class TestPyJWK:
            @brain_required
            def test_should_load_key(self):
                pass

            @no_brain_required
            def test_missing_brain_is_reported(self):
                pass
        """,
}


def test_an_availability_flag_with_skipif_naming_the_root_fails_a_ci_run_closed(
    inner: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_files(inner.path, PYJWT)
    in_ci(monkeypatch)
    result = inner.runpytest("testing/test_api_jwk.py")
    assert result.ret == EXIT_TIER_MISSING
    result.stdout.fnmatch_lines(
        [
            "tierlock: tier brain is required in CI (ci-require) but it is absent; 1 test of this run needed it:",
            "  - testing/test_api_jwk.py::TestPyJWK::test_should_load_key "
            "(skipped: Requires brainpkg library installed)",
        ]
    )


def test_the_opposite_flag_skipping_in_a_green_run_never_fails_it(
    inner: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory
) -> None:
    house = tmp_path_factory.mktemp("green-brain")
    build_wheel(house, "brainpkg", "1.0")
    target = inner.path.parent / f"{inner.path.name}-site"
    uv_install(None, house, "brainpkg", target=target)
    monkeypatch.syspath_prepend(str(target))
    write_files(inner.path, PYJWT)
    in_ci(monkeypatch)
    result = inner.runpytest("testing/test_api_jwk.py")
    assert result.ret == 0
    result.assert_outcomes(passed=1, skipped=1)
    result.stdout.fnmatch_lines(["tierlock: every tier this run needs is present (2 tiers checked)"])


# -- ImportError in collection, setup, call and teardown ------------------------------------------
@pytest.mark.parametrize(
    ("phase", "body"),
    [
        ("collection", "import importlib\n\nimportlib.import_module('brain' + 'pkg')\n\n\ndef test_x():\n    pass\n"),
        (
            "setup",
            "import importlib\nimport pytest\n\n\n@pytest.fixture\ndef model():\n"
            "    return importlib.import_module('brain' + 'pkg')\n\n\ndef test_x(model):\n    pass\n",
        ),
        ("call", "import importlib\n\n\ndef test_x():\n    importlib.import_module('brain' + 'pkg.sub')\n"),
        (
            "teardown",
            "import importlib\nimport pytest\n\n\n@pytest.fixture\ndef model():\n    yield 1\n"
            "    importlib.import_module('brain' + 'pkg')\n\n\ndef test_x(model):\n    pass\n",
        ),
    ],
)
def test_an_import_error_naming_the_root_fails_a_ci_run_closed_in_every_phase(
    inner: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, phase: str, body: str
) -> None:
    write_files(inner.path, {"testing/test_dyn.py": body})
    in_ci(monkeypatch)
    result = inner.runpytest("testing/test_dyn.py")
    assert result.ret == EXIT_TIER_MISSING, phase
    result.stdout.fnmatch_lines(
        [
            "tierlock: tier brain is required in CI (ci-require) but it is absent; 1 test of this run needed it:",
            f"  - testing/test_dyn.py* ({'error' if phase != 'call' else 'failed'} in {phase}: "
            "ModuleNotFoundError: No module named 'brainpkg')",
            f"  to fix: {REMEDY}",
        ]
    )


def test_on_a_laptop_an_import_error_naming_the_root_is_a_skip_with_the_tiers_line_not_a_traceback(
    inner: pytest.Pytester,
) -> None:
    write_files(
        inner.path,
        {"testing/test_dyn.py": "import importlib\n\n\ndef test_x():\n    importlib.import_module('brain' + 'pkg')\n"},
    )
    result = inner.runpytest("testing/test_dyn.py", "-rs")
    assert result.ret == 0
    result.assert_outcomes(skipped=1)
    assert "Traceback" not in result.stdout.str()
    result.stdout.fnmatch_lines(
        [
            f"tierlock: 0 test files not collected and 1 test skipped because brain absent; to run them: {REMEDY}",
            f"SKIPPED [[]1[]] testing/test_dyn.py:4: tier brain is absent; to run these tests: {REMEDY} "
            "(ModuleNotFoundError: No module named 'brainpkg')",
        ]
    )


# -- a partial package whose own import raises a message of its own (polars' "binary is missing") ---------
@pytest.fixture(scope="module")
def binary_wheels(tmp_path_factory: pytest.TempPathFactory) -> Path:
    house = tmp_path_factory.mktemp("binary-wheels")
    init = (
        "try:\n    from brainpkg import _core\nexcept ImportError as exc:\n"
        "    raise ImportError('Brain binary is missing!') from None\n"
    )
    build_wheel(
        house,
        "brainpkg",
        "1.0",
        files={"brainpkg/__init__.py": init, f"brainpkg/_core{EXT_SUFFIX}": loadable_stub(68)},
    )
    return house


def test_a_package_that_says_its_binary_is_missing_gets_the_tiers_line_naming_it_partial(
    inner: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, binary_wheels: Path
) -> None:
    target = inner.path.parent / f"{inner.path.name}-site"
    uv_install(None, binary_wheels, "brainpkg", target=target)
    (target / "brainpkg" / f"_core{EXT_SUFFIX}").unlink()
    monkeypatch.syspath_prepend(str(target))
    write_files(inner.path, NARWHALS)
    with (inner.path / "pyproject.toml").open("a") as handle:
        handle.write('\npython_files = ["*_test.py", "test_*.py"]\n')
    result = inner.runpytest("testing/expr/abs_test.py", "-rs")
    assert result.ret == 0
    result.assert_outcomes(passed=1, skipped=1)
    assert "Traceback" not in result.stdout.str()
    result.stdout.fnmatch_lines(
        ["tierlock: 0 test files not collected and 1 test skipped because brain partial, damaged; to run them: *"]
    )
    # pytest 9 raises the ImportError (the backstop words the skip); pytest 8 skips it itself (the backstop adds
    # the tier): either way the line names the package's own message, the tier's state and the fix.
    (skipped,) = [line for line in result.stdout.lines if line.startswith("SKIPPED")]
    assert "Brain binary is missing!" in skipped
    assert "tier brain is partial, damaged; to run these tests: " in skipped


# -- narrow: unrelated skips never fail -----------------------------------------------------------------
UNRELATED = {
    "testing/test_unrelated.py": """\
        import pytest


        def test_network():
            pytest.skip("needs network access")


        @pytest.mark.skipif(True, reason="needs mybrainpkgs, brainpkg2 or brainpkg_extra")
        def test_lookalike():
            pass


        def test_other_module():
            pytest.importorskip("notbrainpkg")
        """,
}


def test_skips_that_name_no_missing_root_never_fail_a_ci_run(
    inner: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_files(inner.path, UNRELATED)
    in_ci(monkeypatch)
    result = inner.runpytest("testing/test_unrelated.py")
    assert result.ret == 0
    result.assert_outcomes(skipped=3)
    result.stdout.fnmatch_lines(["tierlock: brain absent; none of its tests were selected"])


def test_under_xdist_the_controller_fails_closed_on_what_its_workers_saw(
    inner: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_files(inner.path, FSSPEC)
    in_ci(monkeypatch)
    result = inner.runpytest_subprocess("testing/test_common.py", "-n", "2", "-p", "xdist")
    assert result.ret == EXIT_TIER_MISSING
    result.stdout.fnmatch_lines(
        ["tierlock: tier brain is required in CI (ci-require) but it is absent; 2 tests of this run needed it:"]
    )


# -- conftest files ---------------------------------------------------------------------------------------
def test_a_conftest_importing_the_missing_root_fails_a_ci_run_closed_with_the_tiers_lines(
    inner: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_files(inner.path, {"conftest.py": "import brainpkg\n"})
    in_ci(monkeypatch)
    result = inner.runpytest("testing/test_base.py")
    assert result.ret == EXIT_TIER_MISSING
    result.stderr.fnmatch_lines(
        [
            "tierlock: tier brain is required in CI (ci-require) but it is absent; 1 test of this run needed it:",
            "  - conftest.py (error while loading: *No module named 'brainpkg'*)",
            f"  to fix: {REMEDY}",
        ]
    )


def test_a_run_that_stops_before_conftests_ignores_the_options_they_would_add(
    inner: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_files(
        inner.path,
        {
            "testing/conftest.py": (
                "def pytest_addoption(parser):\n    parser.addoption('--constructors', default='all')\n"
            ),
            "testing/brain/test_brain.py": "import brainpkg\n\n\ndef test_brain():\n    pass\n",
        },
    )
    in_ci(monkeypatch)
    result = inner.runpytest("--constructors=pandas,brain")
    assert result.ret == EXIT_TIER_MISSING
    result.stderr.fnmatch_lines(["tierlock: tier brain is required in CI (ci-require) but it is absent:"])
    assert "unrecognized arguments" not in result.stderr.str()
