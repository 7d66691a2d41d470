"""A test that runs with any one of several tiers: strict fails closed only when none of them is there.

``skipif(not (HAS_PL or HAS_PD))``, ``HAS_ANY = HAS_PL or HAS_PD`` read as ``skipif(not HAS_ANY)``, ``skipif(not
HAS_PL and not HAS_PD)``, ``unittest.skipUnless(HAS_PL or HAS_PD)``, a helper's ``@needs_any("pdpkg", "plpkg")``
(``skipif(all(find_spec(m) is None for m in modules))``), ``skipif(frame is None)`` after aiohttp's nested ``try:
import pdpkg as frame except ImportError: import plpkg as frame`` (before: needing both, so a strict run with either
armed stopped), ``pytest.importorskip("pdpkg")`` falling back on ``except pytest.skip.Exception:`` (the same), and a
``try: import pdpkg`` falling back to
``pytest.importorskip("plpkg")``: before, the census read nothing of the first four (``CI=true pytest`` with neither
tier armed printed ``none of its tests were selected`` and exited 0 with the test skipped; a laptop counted nothing;
the helper's reason, naming both packages, was counted on both tiers' lines, each arming both),
and read the fallback as a need of ``pl`` alone (a strict run with ``pd`` armed stopped, though the test runs). Now a
strict run stops before collection only when neither is there, naming the one tier whose arming runs the test (the
smallest, here the first declared: ``pl``); a laptop counts the test once; with either tier armed the run is green.
A condition that may hold without any root (``HAS_PL or ON_CI``), or a fallback after an import of no tier's root,
needs nothing.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.plugin_project import laptop, write_files
from tests.support.probe_env import uv_install
from tests.support.wheels import build_wheel
from tierlock.pytest_plugin import EXIT_TIER_MISSING

PYPROJECT = """\
[project]
name = "inner"
version = "0.1"
dependencies = ["packaging"]

[project.optional-dependencies]
pl = ["plpkg"]
pd = ["pdpkg"]

[tool.tierlock]
ci-require = ["pl", "pd"]

[tool.tierlock.tiers.pl]
tests = ["testing/pl/**"]

[tool.tierlock.tiers.pd]
tests = ["testing/pd/**"]

[tool.pytest.ini_options]
addopts = ["-p", "no:hypothesispytest", "-p", "no:cacheprovider"]
"""

HELPERS = """\
import os
from importlib.util import find_spec

import pytest

try:
    import pdpkg
    HAS_PD = True
except ImportError:
    HAS_PD = False
HAS_PL = find_spec("plpkg") is not None
HAS_ANY = HAS_PD or HAS_PL
ON_CI = bool(os.environ.get("SOMEWHERE"))

try:
    try:
        import pdpkg as frame
    except ImportError:
        import plpkg as frame
except ImportError:
    frame = None


def needs_any(*modules):
    return pytest.mark.skipif(all(find_spec(m) is None for m in modules), reason="needs one of " + ", ".join(modules))


def needs_one_of(modules):
    return pytest.mark.skipif(not any(find_spec(m) for m in modules), reason="needs a dataframe library")


def runs_without(*modules):
    return pytest.mark.skipif(any(find_spec(m) for m in modules), reason="only without them")
"""

REMEDY = "tierlock lock pl && install-tier pl"  # no lockfile in this small project

#: Each shape: the test file (its one test ``test_frame`` runs with pdpkg or plpkg; ``test_plain`` with nothing).
SHAPES = {
    "not-or": '@pytest.mark.skipif(not (HAS_PD or HAS_PL), reason="needs a dataframe library")',
    "computed-or": '@pytest.mark.skipif(not HAS_ANY, reason="needs a dataframe library")',
    "not-and-not": '@pytest.mark.skipif(not HAS_PD and not HAS_PL, reason="needs a dataframe library")',
    "string-or": '@pytest.mark.skipif("not (HAS_PD or HAS_PL)", reason="needs a dataframe library")',
    "skip-unless-or": '@unittest.skipUnless(HAS_PD or HAS_PL, "needs a dataframe library")',
    "nested-try-fallback": '@pytest.mark.skipif(frame is None, reason="no frame library")',  # (aiohttp's brotli)
    "maker-all-missing": '@needs_any("pdpkg", "plpkg")',
    "maker-not-any-found": '@needs_one_of(["pdpkg", "plpkg"])',
    "inline-find-spec": (
        '@pytest.mark.skipif(not (HAS_PD or importlib.util.find_spec("plpkg")), reason="needs a dataframe library")'
    ),
}

FALLBACK = """\
import pytest

try:
    import pdpkg as lib
except ImportError:
    lib = pytest.importorskip("plpkg")


def test_frame():
    assert lib


def test_plain():
    pass
"""

#: Conditions that may hold with no root at all: the test may run without either tier; nothing is needed.
UNNEEDED = {
    "or-with-no-flag": '@pytest.mark.skipif(not (HAS_PL or ON_CI), reason="optional")',
    "and-runs-without": '@pytest.mark.skipif(HAS_PD and HAS_PL, reason="only without them")',
    "maker-runs-without": '@runs_without("pdpkg", "plpkg")',
}

#: Whole test files that fall back from one import to another: the shape's name -> the file.
FILES = {
    "fallback": FALLBACK,
    "importorskip-chain": FALLBACK.replace(
        "    import pdpkg as lib\nexcept ImportError:",
        '    lib = pytest.importorskip("pdpkg")\nexcept pytest.skip.Exception:',
    ),
}

FALLBACK_FROM_THE_STANDARD_LIBRARY = FALLBACK.replace("import pdpkg as lib", "import json as lib")


def _test_file(decorator: str) -> str:
    head = "import importlib.util\nimport unittest\n\nimport pytest\n\nfrom testing.helpers import *\n\n\n"
    if decorator.startswith("@unittest."):
        test = f"class TestFrame(unittest.TestCase):\n    {decorator}\n    def test_frame(self):\n        pass\n"
    else:
        test = f"{decorator}\ndef test_frame():\n    pass\n"
    return f"{head}{test}\n\ndef test_plain():\n    pass\n"


@pytest.fixture(scope="module")
def sites(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A folder holding pdpkg, and one holding plpkg, installed for real (uv, offline)."""
    house = tmp_path_factory.mktemp("any-of-wheels")
    out = {}
    for name in ("pdpkg", "plpkg"):
        build_wheel(house, name, "1.0")
        out[name] = tmp_path_factory.mktemp(f"site-{name}")
        uv_install(None, house, name, target=out[name])
    return out


@pytest.fixture
def made(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    laptop(monkeypatch)
    pytester.makefile(".toml", pyproject=PYPROJECT)
    write_files(pytester.path, {"testing/__init__.py": "", "testing/helpers.py": HELPERS})
    return pytester


def _arm(monkeypatch: pytest.MonkeyPatch, site: Path) -> None:
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.setenv("PYTHONPATH", str(site))


def _write(made: pytest.Pytester, shape: str) -> None:
    body = FILES[shape] if shape in FILES else _test_file(SHAPES[shape])
    write_files(made.path, {"testing/test_x.py": body})


ALL = [*SHAPES, *FILES]


@pytest.mark.parametrize("shape", ALL)
def test_in_ci_with_none_of_the_tiers_the_run_stops_before_collection_naming_the_smallest(
    made: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, shape: str
) -> None:
    monkeypatch.setenv("CI", "true")
    _write(made, shape)
    result = made.runpytest("testing/test_x.py")
    assert result.ret == EXIT_TIER_MISSING, result.stdout.str() + result.stderr.str()
    errors = result.stderr.str()
    assert "tier pd is required" not in errors, errors  # (one tier runs it: only that one is named)
    pytest.LineMatcher(result.errlines).fnmatch_lines(
        [
            "tierlock: tier pl is required in CI (ci-require) but it is absent*",
            "  this run selects 1 test file(s) that need it",
            f"  to fix: {REMEDY}",
        ]
    )


@pytest.mark.parametrize("armed", ["pdpkg", "plpkg"])
@pytest.mark.parametrize("shape", ALL)
def test_in_ci_with_either_tier_the_test_runs_and_the_run_is_green(
    made: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, sites: dict[str, Path], shape: str, armed: str
) -> None:
    _arm(monkeypatch, sites[armed])
    monkeypatch.setenv("CI", "true")
    _write(made, shape)
    result = made.runpytest("testing/test_x.py")
    assert result.ret == 0, result.stdout.str() + result.stderr.str()
    result.assert_outcomes(passed=2)


@pytest.mark.parametrize("shape", SHAPES)
def test_on_a_laptop_the_skipped_test_counts_once_for_the_tier_that_runs_it(made: pytest.Pytester, shape: str) -> None:
    _write(made, shape)
    result = made.runpytest("testing/test_x.py", "-rs")
    assert result.ret == 0, result.stdout.str()
    result.assert_outcomes(passed=1, skipped=1)
    out = result.stdout.str()
    assert "because pd absent" not in out, out
    result.stdout.fnmatch_lines(
        [f"tierlock: 0 test files not collected and 1 test skipped because pl absent; to run them: {REMEDY}"]
    )


@pytest.mark.parametrize("shape", FILES)
def test_on_a_laptop_the_fallbacks_skip_counts_once_for_the_tier_it_imports(made: pytest.Pytester, shape: str) -> None:
    _write(made, shape)
    result = made.runpytest("testing/test_x.py", "-rs")
    assert result.ret == 5, result.stdout.str()  # (the module's own skip: nothing collected)
    out = result.stdout.str()
    assert "because pd absent" not in out, out
    result.stdout.fnmatch_lines(
        [f"tierlock: 0 test files not collected and 1 test skipped because pl absent; to run them: {REMEDY}"]
    )


@pytest.mark.parametrize("shape", UNNEEDED)
def test_in_ci_a_condition_that_may_hold_without_any_tier_needs_none(
    made: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, shape: str
) -> None:
    monkeypatch.setenv("CI", "true")
    write_files(made.path, {"testing/test_x.py": _test_file(UNNEEDED[shape])})
    result = made.runpytest("testing/test_x.py")
    assert result.ret == 0, result.stdout.str() + result.stderr.str()


def test_in_ci_a_fallback_after_an_import_of_no_tier_needs_none(
    made: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CI", "true")
    write_files(made.path, {"testing/test_x.py": FALLBACK_FROM_THE_STANDARD_LIBRARY})
    result = made.runpytest("testing/test_x.py")
    assert result.ret == 0, result.stdout.str() + result.stderr.str()
    result.assert_outcomes(passed=2)
