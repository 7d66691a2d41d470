"""Flag makers that take the module by any of their parameters: ``*modules``, a later one, a keyword-only one.

``def needs(*modules): return pytest.mark.skipif(any(find_spec(m) is None for m in modules), ...)`` called as
``@needs("dask")`` or ``@needs("json", "dask")``, ``def needs(reason, module)`` called as ``@needs("optional",
"dask")`` or ``@needs(reason="optional", module="dask")``, ``def needs(*, module, reason="")``: the census read a
call's first argument or its only keyword, and a maker's parameter among its positional ones, so none of these tests
needed the tier and a strict run went green. Now a call keeps each argument naming modules (by position and by
keyword) and the maker says which one names its module. An argument that is not the maker's module (a reason that
happens to be a module's name) needs nothing.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.censusfiles import write
from tierlock.census import CensusTier, census
from tierlock.census.filefacts import read_file

DASK = CensusTier("parallel", ("dask", "numba"), ("tests/parallel/**",))

HELPERS = """\
from importlib import import_module
from importlib.util import find_spec

import pytest


def needs(*modules):
    return pytest.mark.skipif(any(find_spec(m) is None for m in modules), reason="optional")


def needs_why(reason, module):
    return pytest.mark.skipif(find_spec(module) is None, reason=reason)


def needs_kw(*, module, reason="optional"):
    return pytest.mark.skipif(find_spec(module) is None, reason=reason)


def needs_after(reason, *modules):
    return pytest.mark.skipif(not all(find_spec(m) for m in modules), reason=reason)


def probe(*names):
    for name in names:
        try:
            import_module(name)
        except ImportError:
            return False
    return True


def probe_why(reason, name):
    try:
        import_module(name)
    except ImportError:
        return False
    return True
"""

#: Each shape: (the test file's head, the test's decorator). Each test needs dask or numba.
NEEDING = {
    "star-one": ("from helpers import needs", '@needs("dask")'),
    "star-two": ("from helpers import needs", '@needs("json", "dask")'),
    "star-dotted": ("import helpers", '@helpers.needs("json", "dask.array")'),
    "later-positional": ("from helpers import needs_why", '@needs_why("optional", "dask")'),
    "later-by-keyword": ("from helpers import needs_why", '@needs_why(reason="optional", module="dask")'),
    "later-keyword-after-positional": ("from helpers import needs_why", '@needs_why("optional", module="dask")'),
    "keyword-only": ("from helpers import needs_kw", '@needs_kw(reason="optional", module="dask")'),
    "star-after-a-reason": ("from helpers import needs_after", '@needs_after("optional", "json", "numba")'),
    "bound-mark": ('from helpers import needs_why\n\nneeds_dask = needs_why("x", "dask")', "@needs_dask"),
    "flag-star": (
        'from helpers import probe\n\nHAS = probe("json", "dask")',
        '@pytest.mark.skipif(not HAS, reason="x")',
    ),
    "flag-later": (
        'from helpers import probe_why\n\nHAS = probe_why("x", "dask")',
        '@pytest.mark.skipif(not HAS, reason="x")',
    ),
    "flag-later-keyword": (
        'from helpers import probe_why\n\nHAS = probe_why(name="dask", reason="x")',
        '@pytest.mark.skipif(not HAS, reason="x")',
    ),
    "flag-inverted": (
        'from helpers import probe\n\nNO = not probe("dask")',
        '@pytest.mark.skipif(NO, reason="x")',
    ),
    "param": (
        "from helpers import needs_why",
        '@pytest.mark.parametrize("x", [pytest.param(1, marks=needs_why("y", "dask"))])',
    ),
}

#: Each shape: a test that does not need dask: the module is named by an argument that is not the maker's module.
NOT_NEEDING = {
    "reason-named-like-a-module": ("from helpers import needs_why", '@needs_why("dask", "json")'),
    "reason-keyword": ("from helpers import needs_why", '@needs_why(reason="dask", module="json")'),
    "star-of-other-modules": ("from helpers import needs", '@needs("json", "os")'),
    "reason-before-the-star": ("from helpers import needs_after", '@needs_after("dask", "json")'),
    "flag-reason": (
        'from helpers import probe_why\n\nHAS = probe_why("dask", "json")',
        '@pytest.mark.skipif(not HAS, reason="x")',
    ),
    "flag-runs-without-it": (
        'from helpers import probe\n\nNO = not probe("dask")',
        '@pytest.mark.skipif(not NO, reason="x")',
    ),
    "starred-call": ('from helpers import needs\n\nMODULES = ["dask"]', "@needs(*MODULES)"),
}


def needing(root: Path) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for use in census(root, [DASK]).tier("parallel").outside:
        out.setdefault(use.file, []).append(str(use.test))
    return {k: sorted(set(v)) for k, v in sorted(out.items())}


def _test_file(head: str, decorator: str) -> str:
    args = "x" if "parametrize" in decorator else ""
    return f"import pytest\n{head}\n\n\n{decorator}\ndef test_a({args}):\n    pass\n\n\ndef test_plain():\n    pass\n"


@pytest.mark.parametrize("shape", NEEDING)
def test_a_maker_given_its_module_by_any_of_its_parameters_needs_it(tmp_path: Path, shape: str) -> None:
    write(tmp_path, "tests/helpers.py", HELPERS)
    write(tmp_path, "tests/test_x.py", _test_file(*NEEDING[shape]))
    assert needing(tmp_path) == {"tests/test_x.py": ["test_a"]}


@pytest.mark.parametrize("shape", NOT_NEEDING)
def test_an_argument_that_is_not_the_makers_module_needs_nothing(tmp_path: Path, shape: str) -> None:
    write(tmp_path, "tests/helpers.py", HELPERS)
    write(tmp_path, "tests/test_x.py", _test_file(*NOT_NEEDING[shape]))
    assert needing(tmp_path) == {}


@pytest.mark.parametrize("shape", ["star-two", "later-positional", "keyword-only"])
def test_a_maker_of_the_same_file_is_read_the_same_way(tmp_path: Path, shape: str) -> None:
    decorator = NEEDING[shape][1]
    write(tmp_path, "tests/test_x.py", _test_file(HELPERS, decorator))
    assert needing(tmp_path) == {"tests/test_x.py": ["test_a"]}


def test_each_maker_says_which_parameter_names_its_module() -> None:
    assert read_file(HELPERS).makers == {
        "needs": [0, ["mark"], "*modules"],
        "needs_why": [1, ["mark"], "module"],
        "needs_kw": [-1, ["mark"], "module"],
        "needs_after": [1, ["mark"], "*modules"],
        "probe": [0, ["flag"], "*names"],
        "probe_why": [1, ["flag"], "name"],
    }


def test_a_call_keeps_each_argument_naming_modules_and_no_reason_in_words() -> None:
    facts = read_file(
        'from helpers import needs_why\n\nHAS = needs_why("needs dask", "dask", extra=["a", "b.c"], n=1)\n'
        '@needs_why("optional", module="dask")\ndef test_a():\n    pass\n'
    )
    assert facts.made["HAS"][:2] == ["needs_why", {"1": ["dask"], "extra": ["a", "b.c"]}]
    assert facts.functions["test_a"].marks == [("needs_why(0=optional;module=dask)", 4)]


def test_a_bound_mark_of_a_maker_says_the_file_that_binds_it(tmp_path: Path) -> None:
    write(tmp_path, "tests/helpers.py", HELPERS)
    write(tmp_path, "tests/test_x.py", _test_file(*NEEDING["bound-mark"]))
    said = [(u.test, u.how) for u in census(tmp_path, [DASK]).tier("parallel").outside]
    assert said == [("test_a", "@needs_dask (skipped without dask: tests/test_x.py:0 find_spec('dask'))")]
