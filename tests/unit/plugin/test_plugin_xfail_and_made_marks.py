"""Tests a missing tier turns into expected failures or skips through marks built in helpers: read before collection.

Shapes a strict run went green over, the tier's tests silently not run:

* ``@pytest.mark.xfail(not HAS_BRAIN, reason="no model")`` (or ``pytest.xfail(...)`` under ``if not HAS``): the test
  runs only to fail, and is reported as an expected failure;
* xarray's ``has_x, requires_x = _importorskip("x")``: a helper that tries ``importlib.import_module(modname)`` and
  returns the flag and a ``skipif(not has)`` mark, the reason naming nothing (``backend unavailable``);
* a mark alias in ``pytest.param(..., marks=requires_x)``, in ``parametrize`` or in a fixture's ``params``, and a
  ``skipif`` written inline in a fixture's ``params``.

The census reads each as the test needing the tier, so a strict run stops before collection; at run time an expected
failure whose reason names the tier's package is the tier's too (when no static reading saw it).
"""

from __future__ import annotations

import pytest

from tests.support.plugin_project import (
    assert_failed_closed,
    assert_stopped_before_collection,
    inner_project,
    strict_run,
    write_files,
)

XFAIL_FLAG = """\
import pytest

try:
    import brainpkg
    HAS_BRAIN = True
except ImportError:
    brainpkg = None
    HAS_BRAIN = False


@pytest.mark.xfail(not HAS_BRAIN, reason="no model")
def test_model():
    assert brainpkg.run() == 1


def test_plain():
    pass
"""

XFAIL_CALL = """\
import pytest

try:
    import brainpkg
except ImportError:
    brainpkg = None


def test_model():
    if brainpkg is None:
        pytest.xfail("no model here")
    assert brainpkg.run() == 1
"""

#: xarray's tests/__init__.py, reduced: the reason names nothing here.
MAKER = """\
import importlib

import pytest


def _importorskip(modname, minversion=None):
    try:
        importlib.import_module(modname)
        has = True
    except ImportError:
        has = False
    func = pytest.mark.skipif(not has, reason="backend unavailable")
    return has, func


has_brain, requires_brain = _importorskip("brainpkg")
has_packaging, requires_packaging = _importorskip("packaging")
"""

MADE_MARK = """\
from testing import requires_brain


@requires_brain
def test_model():
    pass
"""

MADE_FLAG = """\
import pytest

from testing import has_brain

if not has_brain:
    pytest.skip("backend unavailable", allow_module_level=True)


def test_model():
    pass
"""

PARAM_ALIAS = """\
import pytest

from testing import requires_brain


@pytest.mark.parametrize("backend", ["numpy", pytest.param("brain", marks=requires_brain)])
def test_backend(backend):
    pass
"""

FIXTURE_PARAMS = """\
import pytest

from testing import has_brain, requires_brain


@pytest.fixture(params=["numpy", pytest.param("brain", marks=[requires_brain])])
def backend(request):
    return request.param


@pytest.fixture(params=["numpy", pytest.param("brain", marks=pytest.mark.skipif(not has_brain, reason="x"))])
def inline(request):
    return request.param


def test_backend(backend):
    pass


def test_inline(inline):
    pass
"""

UNRELATED = """\
from testing import requires_packaging


@requires_packaging
def test_packaging():
    pass
"""


@pytest.fixture
def inner(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    return inner_project(pytester, monkeypatch, {"testing/__init__.py": MAKER}, tests="testing/brain/**")


@pytest.mark.parametrize(
    ("name", "body"),
    [
        ("test_xfail_flag.py", XFAIL_FLAG),
        ("test_xfail_call.py", XFAIL_CALL),
        ("test_made_mark.py", MADE_MARK),
        ("test_made_flag.py", MADE_FLAG),
        ("test_param_alias.py", PARAM_ALIAS),
        ("test_fixture_params.py", FIXTURE_PARAMS),
    ],
    ids=["xfail-not-flag", "xfail-call", "made-mark", "made-flag", "param-alias", "fixture-params"],
)
def test_a_strict_run_of_a_test_a_missing_tier_would_xfail_or_skip_through_a_built_mark_stops_before_collection(
    inner: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, name: str, body: str
) -> None:
    write_files(inner.path, {f"testing/{name}": body})
    assert_stopped_before_collection(strict_run(inner, monkeypatch, f"testing/{name}"))


def test_a_strict_run_of_a_mark_its_helper_made_for_a_present_package_passes(
    inner: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_files(inner.path, {"testing/test_unrelated.py": UNRELATED})
    result = strict_run(inner, monkeypatch, "testing/test_unrelated.py")
    assert result.ret == 0, result.stdout.str() + result.stderr.str()
    result.assert_outcomes(passed=1)


OPAQUE_XFAIL = """\
import pytest

from conditions import opaque


@pytest.mark.xfail(opaque(), reason="requires brainpkg")
def test_model():
    raise RuntimeError("no model")
"""


def _opaque(inner: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    """The expected failure of :data:`OPAQUE_XFAIL`, its condition from a module outside the project (on the path)."""
    write_files(inner.path, {"testing/test_opaque.py": OPAQUE_XFAIL})
    site = inner.path.parent / f"{inner.path.name}-outside"
    write_files(site, {"conditions.py": "def opaque():\n    return True\n"})
    monkeypatch.syspath_prepend(str(site))


def test_an_expected_failure_whose_reason_names_the_missing_package_fails_a_strict_run_at_its_end(
    inner: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the condition comes from a module outside the project (no static reading): the run-time backstop reads the
    # expected failure's reason, as it reads a skip's
    _opaque(inner, monkeypatch)
    result = strict_run(inner, monkeypatch, "testing/test_opaque.py")
    assert_failed_closed(result, "  - testing/test_opaque.py::test_model (xfailed: requires brainpkg)")


def test_on_a_laptop_the_expected_failure_carries_the_remedy(
    inner: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    _opaque(inner, monkeypatch)
    result = inner.runpytest("testing/test_opaque.py", "-rx")
    assert result.ret == 0
    result.stdout.fnmatch_lines(
        [
            "tierlock: 0 test files not collected and 1 test skipped because brain absent*",
            "XFAIL testing/test_opaque.py::test_model - requires brainpkg (tier brain is absent; to run these tests: *",
        ]
    )


BUG = """\
import pytest


@pytest.mark.xfail(reason="known bug")
def test_bug():
    assert False
"""


def test_an_expected_failure_naming_nothing_stays_one(inner: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    write_files(inner.path, {"testing/test_bug.py": BUG})
    result = strict_run(inner, monkeypatch, "testing/test_bug.py")
    assert result.ret == 0, result.stdout.str()
    result.assert_outcomes(xfailed=1)


def test_a_module_level_skip_on_a_flag_its_helper_made_in_an_earlier_phase_fails_a_strict_run(
    inner: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the helper module was imported (its import of brainpkg failed) while collecting another file: the skip's own
    # phase failed to import nothing, and its reason names nothing
    write_files(inner.path, {"testing/test_a_first.py": "import testing\n\n\ndef test_a():\n    pass\n"})
    write_files(inner.path, {"testing/test_made_flag.py": MADE_FLAG})
    result = strict_run(inner, monkeypatch, "testing")
    assert_stopped_before_collection(result, files=None)
    assert "test_made_flag.py" not in result.stdout.str()
