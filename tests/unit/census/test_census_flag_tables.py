"""Flag tables: one name holding a flag per module (``HAS = {name: find_spec(name) is not None for name in
(...)}``), skipped on by an entry (``skipif(not HAS["dask"])``).

Without them, a test skipped by ``skipif(not HAS["dask"], reason="x")`` needed nothing by the census: the gate let
``CI=true pytest`` of it run with the tier missing and the run went green (its reason names no package, so the
run-time backstop could not name the tier either). Each table shape, each way of reading an entry, and each way of
reaching the table (the same file, ``from helpers import HAS``, ``helpers.HAS``) is read here; entries the table
does not try, and keys that are not literals, need nothing.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.censusfiles import write
from tierlock.census import CensusTier, census
from tierlock.census.filefacts import read_file

DASK = CensusTier("parallel", ("dask",), ("tests/parallel/**",))

TABLES = """\
import importlib
import importlib.util
from importlib.util import find_spec

try:
    import numba
    has_numba = True
except ImportError:
    has_numba = False


def _has(modname):
    return importlib.util.find_spec(modname) is not None


COMP = {name: importlib.util.find_spec(name) is not None for name in ("dask", "numba")}
BOOL = {m: bool(find_spec(m)) for m in ["dask"]}
BARE = {m: find_spec(m) for m in {"dask"}}
MADE = {m: _has(m) for m in ("dask",)}
LITERAL = {"dask": find_spec("dask") is not None, "numba": has_numba, "made": _has("dask"), 7: find_spec("dask")}
AVAILABLE = {m for m in ("dask", "numba") if find_spec(m) is not None}
FOUND = {m for m in ("dask",) if find_spec(m)}
NOT_A_TABLE = {name: len(name) for name in ("dask",)}
COMPUTED = {name: find_spec(name) is not None for name in NAMES}
FILTERED = {name: find_spec(name) is not None for name in ("dask",) if name}
NOT_THE_NAME = {name: find_spec("dask") is not None for name in ("numba",)}
NOT_THE_NAME_MADE = {name: _has("dask") for name in ("numba",)}
NOT_THE_ELEMENT = {has_numba for name in ("dask",) if find_spec(name)}
"""


def test_each_table_shape_gives_a_flag_per_entry_it_tries() -> None:
    flags = read_file(TABLES).flags
    tables = {k: v for k, v in flags.items() if "." in k}
    assert {k: [m for m, _level, _line in v] for k, v in tables.items()} == {
        "COMP.dask": ["dask"],
        "COMP.numba": ["numba"],
        "BOOL.dask": ["dask"],
        "BARE.dask": ["dask"],
        "MADE.dask": ["dask"],
        "LITERAL.dask": ["dask"],
        "LITERAL.numba": ["numba"],  # the flag it holds, tried at line 6
        "LITERAL.made": ["dask"],
        "AVAILABLE.dask": ["dask"],
        "AVAILABLE.numba": ["numba"],
        "FOUND.dask": ["dask"],
    }
    assert tables["COMP.dask"] == [("dask", 0, 16)]
    assert tables["LITERAL.dask"] == tables["LITERAL.made"] == [("dask", 0, 20)]
    assert tables["LITERAL.numba"] == [("numba", 0, 6)]


CONDITIONS = [
    'not COMP["dask"]',
    'not COMP.get("dask")',
    'COMP["dask"] is None',
    'not COMP["numba"] or not COMP["dask"]',
    '"dask" not in AVAILABLE',
    'not LITERAL["made"]',
    'not FOUND["dask"]',
]


@pytest.mark.parametrize("condition", CONDITIONS)
@pytest.mark.parametrize(
    ("imported", "prefix"),
    [("from tests.tables import *", ""), ("from tests import tables", "tables."), ("import tests.tables as t", "t.")],
    ids=["star", "module", "alias"],
)
def test_a_skip_on_an_entry_needs_its_module_wherever_the_table_comes_from(
    tmp_path: Path, condition: str, imported: str, prefix: str
) -> None:
    write(tmp_path, "tests/__init__.py", "")
    write(tmp_path, "tests/tables.py", TABLES)
    for name in ("COMP", "AVAILABLE", "LITERAL", "FOUND"):
        condition = condition.replace(name, prefix + name)
    test = f"import pytest\n{imported}\n\n\n@pytest.mark.skipif({condition}, reason='x')\ndef test_x():\n    pass\n"
    write(tmp_path, "tests/test_x.py", test)
    (use,) = census(tmp_path, [DASK]).tier("parallel").outside
    assert (use.file, use.test, use.root) == ("tests/test_x.py", "test_x", "dask")
    assert "tests/tables.py" in use.how


@pytest.mark.parametrize(
    "condition",
    [
        'not COMP["numba"]',  # another module's entry
        'COMP["dask"]',  # runs only without it
        '"dask" in AVAILABLE',
        'not NOT_A_TABLE["dask"]',
        'not COMPUTED["dask"]',
        'not FILTERED["dask"]',
        "not COMP[name]",
        "not LITERAL[7]",
    ],
)
def test_an_entry_that_is_not_a_flag_of_the_module_needs_nothing(tmp_path: Path, condition: str) -> None:
    write(tmp_path, "tests/__init__.py", "")
    write(tmp_path, "tests/tables.py", TABLES)
    test = f"import pytest\nfrom tests.tables import *\n\n\n@pytest.mark.skipif({condition}, reason='x')\n"
    write(tmp_path, "tests/test_x.py", test + "def test_x():\n    pass\n")
    assert census(tmp_path, [DASK]).tier("parallel").outside == []


def test_an_import_under_an_entry_is_guarded_and_a_skip_under_one_in_the_test_needs_it(tmp_path: Path) -> None:
    write(tmp_path, "tests/__init__.py", "")
    write(tmp_path, "tests/tables.py", TABLES)
    write(
        tmp_path,
        "tests/test_x.py",
        """\
import pytest
from tests.tables import COMP


def test_guarded():
    if COMP["dask"]:
        import dask


def test_skips():
    if not COMP.get("dask"):
        pytest.skip("no")
""",
    )
    uses = census(tmp_path, [DASK]).tier("parallel").outside
    assert [(u.test, u.root) for u in uses] == [("test_skips", "dask")]
