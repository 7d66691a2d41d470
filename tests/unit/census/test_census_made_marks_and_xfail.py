"""Needs the census reads through marks built in helpers, expected failures and skips at module level.

* xarray's ``has_x, requires_x = _importorskip("x")``: a helper that tries ``importlib.import_module(modname)`` (or
  asks ``find_spec(modname)``) and returns the flag and a ``skipif(not has, ...)`` mark: the flag guards what it
  covers (``if has_dask: import dask`` is no need of the module), the mark skips without ``x``;
* ``pytest.param(..., marks=requires_x)`` in ``parametrize`` or a fixture's ``params``, and an inline ``skipif``
  there;
* ``@pytest.mark.xfail(not has_x)`` and ``pytest.xfail(...)`` under ``if not has_x``: the test runs only to fail;
* ``if not has_x: pytest.skip(..., allow_module_level=True)``: every test of the module.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.censusfiles import write
from tierlock.census import CensusTier, census
from tierlock.census.filefacts import read_file

DASK = CensusTier("parallel", ("dask",), ("tests/parallel/**",))

HELPERS = """\
import importlib

import pytest


def _importorskip(modname, minversion=None):
    try:
        mod = importlib.import_module(modname)
        has = True
    except ImportError:
        has = False
    func = pytest.mark.skipif(not has, reason=f"requires {modname}")
    return has, func


def _has(modname):
    return importlib.util.find_spec(modname) is not None


def _mark_only(modname):
    try:
        importlib.import_module(modname)
    except ImportError:
        return pytest.mark.skipif(True, reason="no")
    return pytest.mark.skipif(False, reason="yes")


has_dask, requires_dask = _importorskip("dask")
has_dask_new, requires_dask_new = _importorskip("dask", "2025.1.0")
has_numpy, requires_numpy = _importorskip("numpy")
HAS_DASK = _has("dask")
if has_dask:
    import dask
"""


def needing(root: Path) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for use in census(root, [DASK]).tier("parallel").outside:
        out.setdefault(use.file, []).append(str(use.test))
    return {k: sorted(v) for k, v in sorted(out.items())}


def test_a_made_flag_guards_its_import_so_the_helper_module_needs_nothing(tmp_path: Path) -> None:
    write(tmp_path, "tests/__init__.py", HELPERS)
    write(tmp_path, "tests/test_plain.py", "from tests import has_numpy\n\n\ndef test_plain():\n    pass\n")
    assert needing(tmp_path) == {}


def test_the_made_mark_and_the_made_flag_need_their_module(tmp_path: Path) -> None:
    write(tmp_path, "tests/__init__.py", HELPERS)
    write(
        tmp_path,
        "tests/test_made.py",
        """\
import pytest

from tests import HAS_DASK, has_dask_new, requires_dask, requires_numpy


@requires_dask
def test_mark():
    pass


@pytest.mark.skipif(not has_dask_new, reason="new dask")
def test_flag():
    pass


@pytest.mark.skipif(not HAS_DASK, reason="find_spec")
def test_spec():
    pass


@requires_numpy
def test_numpy():
    pass
""",
    )
    assert needing(tmp_path) == {"tests/test_made.py": ["test_flag", "test_mark", "test_spec"]}


@pytest.mark.parametrize(
    ("source", "kinds"),
    [
        (HELPERS.split("def _has", maxsplit=1)[0], {"_importorskip": (0, ["flag", "mark"])}),
        (
            "import importlib\ndef _has(m):\n    return importlib.util.find_spec(m) is not None\n",
            {"_has": (0, ["flag"])},
        ),
        ("def f(m):\n    return m\n", {}),
        (
            "from importlib import import_module\nimport pytest\ndef bare(m):\n    try:\n        import_module(m)\n"
            "    except ImportError:\n        return False, pytest.mark.skipif(True, reason='x')\n"
            "    has = True\n    return has, pytest.mark.skipif(not has, 'requires it')\n",
            {"bare": (0, ["flag", "mark"])},
        ),
        (
            "def dunder(m):\n    try:\n        __import__(m)\n        has = True\n"
            "    except ImportError:\n        has = False\n    return has\n",
            {"dunder": (0, ["flag"])},
        ),
        ("def f(m):\n    try:\n        import x\n    except ImportError:\n        return False\n    return True\n", {}),
        (
            "import importlib\ndef rel(m, package):\n    try:\n        importlib.import_module(m, 'pkg')\n"
            "        has = True\n    except ImportError:\n        has = False\n    return has\n",
            {"rel": (0, ["flag"])},
        ),
        ("import importlib\ndef g():\n    return importlib.util.find_spec(__name__) is not None\n", {}),
    ],
    ids=[
        "import-module",
        "find-spec",
        "no-import",
        "bare-import-module-positional-reason",
        "dunder-import",
        "a-fixed-import",
        "import-module-with-a-package",
        "no-parameters",
    ],
)
def test_a_helper_is_a_flag_maker_only_when_it_imports_the_module_its_parameter_names(
    source: str, kinds: dict[str, tuple[int, list[str]]]
) -> None:
    import ast

    from tierlock.census.makers import flag_maker

    tree = ast.parse(source)
    found = {n.name: flag_maker(n) for n in tree.body if isinstance(n, ast.FunctionDef)}
    assert {k: v[:2] for k, v in found.items() if v is not None} == kinds


def test_a_maker_named_importorskip_bound_to_two_names_at_once_is_still_an_importorskip() -> None:
    source = "import importlib\nimport pytest\ndef importorskip(modname):\n    try:\n"
    source += "        importlib.import_module(modname)\n        has = True\n"
    source += "    except ImportError:\n        has = False\n"
    source += "    return has, pytest.mark.skipif(not has, reason='x')\n\n\na = b = importorskip('dask')\n"
    facts = read_file(source)
    assert ("dask", 12, "importorskip('dask')", "", []) in facts.imports
    assert "a" not in facts.flags


def test_a_made_call_with_a_computed_module_or_the_wrong_number_of_names_makes_nothing() -> None:
    facts = read_file(
        HELPERS.split("has_dask, ", maxsplit=1)[0]
        + "name = 'dask'\nhas_a, req_a = _importorskip(name)\nx = _importorskip('dask')\n"
    )
    assert "has_a" not in facts.flags
    assert "req_a" not in facts.aliases
    assert "x" not in facts.flags


def test_mark_aliases_in_params_and_expected_failures_and_a_module_level_skip_need_their_module(
    tmp_path: Path,
) -> None:
    write(tmp_path, "tests/__init__.py", HELPERS)
    write(
        tmp_path,
        "tests/test_shapes.py",
        """\
import pytest

from tests import has_dask, requires_dask


@pytest.fixture(params=["numpy", pytest.param("dask", marks=requires_dask)])
def backend(request):
    return request.param


@pytest.fixture(params=["numpy", pytest.param("dask", marks=[pytest.mark.skipif(not has_dask, reason="x")])])
def inline(request):
    return request.param


def test_fixture(backend):
    pass


def test_inline(inline):
    pass


@pytest.mark.parametrize("b", [1, pytest.param(2, marks=(requires_dask,))])
def test_param(b):
    pass


@pytest.mark.xfail(not has_dask, reason="no dask")
def test_xfail():
    pass


@pytest.mark.xfail(raises=ValueError, reason="a bug")
def test_other_xfail():
    pass


def test_xfail_call():
    if not has_dask:
        pytest.xfail("no dask")


def test_plain():
    pass
""",
    )
    assert needing(tmp_path) == {
        "tests/test_shapes.py": ["test_fixture", "test_inline", "test_param", "test_xfail", "test_xfail_call"]
    }


def test_a_module_level_skip_on_a_made_flag_needs_the_module_for_every_test(tmp_path: Path) -> None:
    write(tmp_path, "tests/__init__.py", HELPERS)
    write(
        tmp_path,
        "tests/test_module_skip.py",
        """\
import pytest

from tests import has_dask

if not has_dask:
    pytest.skip("backend unavailable", allow_module_level=True)


def test_a():
    pass
""",
    )
    write(
        tmp_path,
        "tests/test_other_skip.py",
        """\
import sys

import pytest

if sys.platform == "win32":
    pytest.skip("not on windows", allow_module_level=True)


def test_b():
    pass
""",
    )
    assert list(needing(tmp_path)) == ["tests/test_module_skip.py"]


def test_the_engine_names_a_hook_made_alias_as_the_hook_reader_keys_it() -> None:
    from tierlock.census import engine, hookmarks

    assert engine.HOOK_ALIAS == hookmarks.PREFIX


MARK_MAKERS = """\
import importlib.util

import pytest


def needs(modname):
    return pytest.mark.skipif(importlib.util.find_spec(modname) is None, reason="optional dependency")


def needs_not(modname):
    mark = pytest.mark.skipif(not importlib.util.find_spec(modname), reason="optional dependency")
    return mark


def needs_bool(modname, minversion=None):
    return pytest.mark.skipif(not bool(importlib.util.find_spec(modname)), reason="optional dependency")


def without(modname):
    return pytest.mark.skipif(importlib.util.find_spec(modname) is not None, reason="runs without it")


def other_param(modname, other):
    return pytest.mark.skipif(importlib.util.find_spec(other) is None, reason="x")


requires_dask = needs("dask")
requires_dask_not = needs_not("dask")
requires_dask_bool = needs_bool("dask")
without_dask = without("dask")
other_dask = other_param("dask", "numpy")
"""


def test_a_helper_that_returns_only_a_skip_on_its_parameters_module_makes_a_mark_alias(tmp_path: Path) -> None:
    """``requires_dask = needs("dask")`` where ``needs(modname)`` returns ``skipif(find_spec(modname) is None,
    reason="optional dependency")``: the alias skips without dask. Read as a flag before, the tests it marks needed
    nothing, and with a reason naming nothing ``CI=true pytest`` of them went green with the tier missing."""
    write(tmp_path, "tests/__init__.py", MARK_MAKERS)
    tests = "from tests import *\n"
    for alias in ("requires_dask", "requires_dask_not", "requires_dask_bool", "without_dask", "other_dask"):
        tests += f"\n\n@{alias}\ndef test_{alias}():\n    pass\n"
    write(tmp_path, "tests/test_marked.py", tests)
    assert needing(tmp_path) == {
        "tests/test_marked.py": ["test_requires_dask", "test_requires_dask_bool", "test_requires_dask_not"]
    }
