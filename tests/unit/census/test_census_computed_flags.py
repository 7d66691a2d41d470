"""Flags computed from flags, inverted flags, and skip conditions written as strings.

A suite writes ``NO_DASK = not has("dask")`` and ``skipif(NO_DASK, reason="optional")``, or ``try: import dask
except ImportError: dask = None`` / ``HAS_DASK = dask is not None`` / ``skipif(not HAS_DASK, ...)``, or pytest's string
condition ``skipif("not has_dask")``: the census read a flag set by an import or a ``find_spec`` only, and a
condition's bare name as "skipped when present", so none of these tests needed the tier and a strict run went green
over their skips. Now a module-level flag computed from another (``not``, ``is None``, ``is not None``, ``bool()``, a
flag function's call, a copy) stands for what that one does, inverted or not, through imports, and a string condition
is read as the expression pytest evaluates. A name computed from anything that is no flag is no flag.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.censusfiles import write
from tierlock.census import CensusTier, census

DASK = CensusTier("parallel", ("dask",), ("tests/parallel/**",))

HELPERS = """\
from importlib.util import find_spec


def has(name):
    return find_spec(name) is not None


def has_dask():
    return find_spec("dask") is not None


try:
    import dask
except ImportError:
    dask = None

HAS_DASK = dask is not None
NO_DASK = not has("dask")
"""

#: Each shape: (the test file's head, the test's decorator). Each test needs dask.
NEEDING = {
    "inverted-call": ("from helpers import has\n\nNO_X = not has('dask')", "@pytest.mark.skipif(NO_X, reason='x')"),
    "inverted-imported": ("from helpers import NO_DASK", "@pytest.mark.skipif(NO_DASK, reason='x')"),
    "is-not-none-imported": ("from helpers import HAS_DASK", "@pytest.mark.skipif(not HAS_DASK, reason='x')"),
    "is-not-none-here": (
        "try:\n    import dask\nexcept ImportError:\n    dask = None\nHAS_X = dask is not None",
        "@pytest.mark.skipif(not HAS_X, reason='x')",
    ),
    "is-none-here": (
        "try:\n    import dask\nexcept ImportError:\n    dask = None\nMISSING = dask is None",
        "@pytest.mark.skipif(MISSING, reason='x')",
    ),
    "not-not": ("from helpers import HAS_DASK\n\nNO_X = not HAS_DASK", "@pytest.mark.skipif(NO_X, reason='x')"),
    "twice-inverted": (
        "from helpers import NO_DASK\n\nHAS_X = not NO_DASK",
        "@pytest.mark.skipif(not HAS_X, reason='x')",
    ),
    "spec-is-none": (
        "from importlib.util import find_spec\n\nMISSING = find_spec('dask') is None",
        "@pytest.mark.skipif(MISSING, reason='x')",
    ),
    "flag-function-called": (
        "from helpers import has_dask\n\nHAS = has_dask()",
        "@pytest.mark.skipif(not HAS, reason='x')",
    ),
    "bool-of-a-flag": ("import helpers\n\nHAS = bool(helpers.HAS_DASK)", "@pytest.mark.skipif(not HAS, reason='x')"),
    "string": ("from helpers import HAS_DASK", "@pytest.mark.skipif('not HAS_DASK', reason='x')"),
    "string-keyword": ("from helpers import NO_DASK", "@pytest.mark.skipif(condition='NO_DASK', reason='x')"),
    "unittest-skipif": ("import unittest\nfrom helpers import NO_DASK", "@unittest.skipIf(NO_DASK, 'x')"),
    "unittest-skipunless": ("import unittest\nfrom helpers import HAS_DASK", "@unittest.skipUnless(HAS_DASK, 'x')"),
    "xfail": ("from helpers import NO_DASK", "@pytest.mark.xfail(NO_DASK, reason='x')"),
    "and": (
        "from helpers import HAS_DASK, has_dask\n\nBOTH = HAS_DASK and has_dask()",
        "@pytest.mark.skipif(not BOTH, reason='x')",
    ),
    "not-and": (
        "import helpers\n\nNONE = not (helpers.HAS_DASK and helpers.has_dask())",
        "@pytest.mark.skipif(NONE, reason='x')",
    ),
}

#: Each shape: a test that does not need dask (skipped when it is there, or on a flag of no tier, or on no flag).
NOT_NEEDING = {
    "runs-without-it": ("from helpers import HAS_DASK", "@pytest.mark.skipif(HAS_DASK, reason='x')"),
    "inverted-runs-without-it": ("from helpers import NO_DASK", "@pytest.mark.skipif(not NO_DASK, reason='x')"),
    "another-module": (
        "from helpers import has\n\nNO_JSON = not has('json')",
        "@pytest.mark.skipif(NO_JSON, reason='x')",
    ),
    "no-flag": ("import os\n\nSLOW = not os.environ.get('SLOW')", "@pytest.mark.skipif(SLOW, reason='x')"),
    "copy-of-no-flag": ("CI = False\nLOCAL = not CI", "@pytest.mark.skipif(LOCAL, reason='x')"),
    "string-runs-without-it": ("from helpers import NO_DASK", "@pytest.mark.skipif('not NO_DASK', reason='x')"),
    "string-no-expression": ("from helpers import NO_DASK", "@pytest.mark.skipif('NO_DASK is', reason='x')"),
    "and-of-an-inverted-flag": (
        "from helpers import NO_DASK, has_dask\n\nODD = has_dask() and NO_DASK",
        "@pytest.mark.skipif(not ODD, reason='x')",
    ),
    "and-of-no-flag": (
        "import os\nfrom helpers import HAS_DASK\n\nBOTH = HAS_DASK and os.sep",
        "@pytest.mark.skipif(not BOTH, reason='x')",
    ),
}


def needing(root: Path) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for use in census(root, [DASK]).tier("parallel").outside:
        out.setdefault(use.file, []).append(str(use.test))
    return {k: sorted(set(v)) for k, v in sorted(out.items())}


def _test_file(head: str, decorator: str) -> str:
    return f"import pytest\n{head}\n\n\n{decorator}\ndef test_a():\n    pass\n\n\ndef test_plain():\n    pass\n"


@pytest.mark.parametrize("shape", NEEDING)
def test_a_skip_on_a_flag_computed_from_a_flag_needs_what_that_flag_stands_for(tmp_path: Path, shape: str) -> None:
    write(tmp_path, "tests/helpers.py", HELPERS)
    write(tmp_path, "tests/test_x.py", _test_file(*NEEDING[shape]))
    assert needing(tmp_path) == {"tests/test_x.py": ["test_a"]}


@pytest.mark.parametrize("shape", NOT_NEEDING)
def test_a_skip_when_the_module_is_there_or_on_no_flag_needs_nothing(tmp_path: Path, shape: str) -> None:
    write(tmp_path, "tests/helpers.py", HELPERS)
    write(tmp_path, "tests/test_x.py", _test_file(*NOT_NEEDING[shape]))
    assert needing(tmp_path) == {}


def test_what_the_use_says_names_the_flag_it_comes_from(tmp_path: Path) -> None:
    write(tmp_path, "tests/helpers.py", HELPERS)
    write(tmp_path, "tests/test_x.py", _test_file(*NEEDING["inverted-imported"]))
    said = {(u.test, u.root, u.how) for u in census(tmp_path, [DASK]).tier("parallel").outside}
    assert said == {("test_a", "dask", "skipped without dask (tests/helpers.py:18 tries dask)")}


def test_an_import_under_a_name_computed_from_no_flag_is_still_needed(tmp_path: Path) -> None:
    """``ENABLED = not DISABLED`` (no flag) guards nothing: ``if ENABLED: import dask`` at a file's top needs it."""
    source = "DISABLED = False\nENABLED = not DISABLED\nif ENABLED:\n    import dask\n\n\ndef test_a():\n    pass\n"
    write(tmp_path, "tests/test_x.py", source)
    assert needing(tmp_path) == {"tests/test_x.py": ["None"]}  # (the file's own import: every test of it)


def test_an_import_under_a_computed_flag_is_guarded(tmp_path: Path) -> None:
    write(tmp_path, "tests/helpers.py", HELPERS)
    write(
        tmp_path,
        "tests/test_x.py",
        "from helpers import NO_DASK\n\nHAS = not NO_DASK\nif HAS:\n    import dask\n\n\ndef test_a():\n    pass\n",
    )
    assert needing(tmp_path) == {}


def test_flags_computed_from_each_other_in_a_cycle_are_no_flags(tmp_path: Path) -> None:
    write(tmp_path, "tests/a.py", "from b import B\nA = not B\n")
    write(tmp_path, "tests/b.py", "from a import A\nB = not A\n")
    write(tmp_path, "tests/test_x.py", _test_file("from a import A", "@pytest.mark.skipif(not A, reason='x')"))
    assert needing(tmp_path) == {}


def test_a_flag_of_two_flags_of_one_root_is_one_use(tmp_path: Path) -> None:
    write(tmp_path, "tests/helpers.py", HELPERS)
    write(tmp_path, "tests/test_x.py", _test_file(*NEEDING["and"]))
    said = [(u.test, u.root) for u in census(tmp_path, [DASK]).tier("parallel").outside]
    assert said == [("test_a", "dask")]


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        # a flag function whose ``except ImportError`` returns nothing (``return``): false without the module
        (
            "def has_dask():\n    try:\n        import dask\n    except ImportError:\n        return\n"
            "    return True\n\nHAS = has_dask()",
            {"tests/test_x.py": ["test_a"]},
        ),
        # ``import_module(name, package)``: the module is its first argument, not the package
        (
            "import importlib\n\ntry:\n    importlib.import_module('dask', 'tests')\n    HAS = True\n"
            "except ImportError:\n    HAS = False",
            {"tests/test_x.py": ["test_a"]},
        ),
        (
            "import importlib\n\ntry:\n    importlib.import_module('json', 'dask')\n    HAS = True\n"
            "except ImportError:\n    HAS = False",
            {},
        ),
    ],
    ids=["bare-return", "import-module-with-a-package", "package-named-like-a-root"],
)
def test_a_flag_read_through_its_function_or_its_import_call(
    tmp_path: Path, source: str, expected: dict[str, list[str]]
) -> None:
    write(tmp_path, "tests/test_x.py", _test_file(source, "@pytest.mark.skipif(not HAS, reason='x')"))
    assert needing(tmp_path) == expected
