"""Marks and flags made by a helper of another file, called where they are used.

A helper module defines ``def needs(m): return pytest.mark.skipif(find_spec(m) is None, reason="optional
dependency")`` and a test file writes ``from helpers import needs`` / ``@needs("dask")``: the reason names nothing,
and the census read only the same file's ``requires_x = needs("x")``, so the gate found no selected test needing the
tier and a strict run went green. The class: a flag maker (:func:`tierlock.census.makers.flag_maker`) of one file
called in another, as a decorator, in ``pytestmark``, in ``pytest.param(marks=...)``, bound at module level
(``requires_x = needs("x")``, ``HAS_X = probe("x")``, ``has_x, requires_x = _importorskip("x")``), with a list
of modules (``@needs(["dask", "numba"])``) or a dotted one (``needs("dask.array")``), and a maker that answers
with constants (``except ImportError: return False`` ... ``return True``).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.censusfiles import write
from tierlock.census import CensusTier, census
from tierlock.census.filefacts import read_file
from tierlock.census.records import FileFacts

DASK = CensusTier("parallel", ("dask", "numba"), ("tests/parallel/**",))

HELPERS = """\
import importlib
from importlib import import_module
from importlib.util import find_spec

import pytest


def needs(module):
    return pytest.mark.skipif(find_spec(module) is None, reason="optional dependency")


def needs_all(modules):
    return pytest.mark.skipif(any(find_spec(m) is None for m in modules), reason="optional dependencies")


def needs_each(modules):
    return pytest.mark.skipif(not all(find_spec(m) for m in modules), reason="optional dependencies")


def probe(name):
    try:
        import_module(name)
    except ImportError:
        return False
    return True


def probe_all(names):
    for name in names:
        try:
            import_module(name)
        except ImportError:
            return False
    return True


def _importorskip(modname):
    try:
        importlib.import_module(modname)
        has = True
    except ImportError:
        has = False
    return has, pytest.mark.skipif(not has, reason="requires it")


def describe(module):
    return pytest.mark.skipif(False, reason=module)
"""

TESTS = """\
import pytest

import helpers
from helpers import _importorskip, describe, needs, needs_all, needs_each, probe, probe_all

HAS_DASK = probe("dask")
HAS_BOTH = probe_all(["dask", "numba"])
HAS_JSON = probe("json")
requires_dask = needs("dask")
has_numba, requires_numba = _importorskip("numba")
if HAS_DASK:
    import dask


@needs("dask")
def test_decorated():
    pass


@helpers.needs("dask.array")
def test_dotted_through_the_module():
    pass


@needs_all(["dask", "numba"])
def test_list():
    pass


@needs_each(("numba",))
def test_tuple():
    pass


@requires_dask
def test_bound_mark():
    pass


@pytest.mark.skipif(not HAS_DASK, reason="optional")
def test_made_flag():
    pass


@pytest.mark.skipif(not HAS_BOTH, reason="optional")
def test_made_flag_of_a_list():
    pass


@requires_numba
def test_made_pair():
    pass


@pytest.mark.parametrize("backend", ["json", pytest.param("dask", marks=needs("dask"))])
def test_param(backend):
    pass


class TestMarked:
    pytestmark = [needs("numba")]

    def test_in_class(self):
        pass


@needs("json")
def test_not_a_tier():
    pass


@pytest.mark.skipif(not HAS_JSON, reason="optional")
def test_flag_not_a_tier():
    pass


@describe("dask")
def test_not_a_skip():
    pass


def test_plain():
    pass
"""


def needing(root: Path) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for use in census(root, [DASK]).tier("parallel").outside:
        out.setdefault(use.file, []).append(str(use.test))
    return {k: sorted(set(v)) for k, v in sorted(out.items())}


def test_a_maker_of_another_file_called_as_a_decorator_bound_or_in_a_param_needs_its_modules(tmp_path: Path) -> None:
    write(tmp_path, "tests/helpers.py", HELPERS)
    write(tmp_path, "tests/test_made.py", TESTS)
    assert needing(tmp_path) == {
        "tests/test_made.py": [
            "TestMarked.test_in_class",
            "test_bound_mark",
            "test_decorated",
            "test_dotted_through_the_module",
            "test_list",
            "test_made_flag",
            "test_made_flag_of_a_list",
            "test_made_pair",
            "test_param",
            "test_tuple",
        ]
    }


def test_what_each_use_says_names_the_call_and_the_helper(tmp_path: Path) -> None:
    write(tmp_path, "tests/helpers.py", HELPERS)
    write(tmp_path, "tests/test_made.py", TESTS)
    said = {(u.test, u.root, u.how) for u in census(tmp_path, [DASK]).tier("parallel").outside}
    assert ("test_decorated", "dask", "@needs('dask') (skipped without dask: tests/helpers.py)") in said
    assert ("test_list", "numba", "@needs_all('numba') (skipped without numba: tests/helpers.py)") in said
    assert ("test_made_flag", "dask", "skipped without dask (tests/test_made.py:6 tries dask)") in said


def test_a_module_level_pytestmark_of_a_made_mark_needs_it_for_every_test(tmp_path: Path) -> None:
    write(tmp_path, "tests/helpers.py", HELPERS)
    write(
        tmp_path,
        "tests/test_module.py",
        "from helpers import needs\n\npytestmark = needs('dask')\n\n\ndef test_a():\n    pass\n",
    )
    result = census(tmp_path, [DASK]).tier("parallel").outside
    assert [(u.file, u.scope, u.root) for u in result] == [("tests/test_module.py", "file", "dask")]


def test_the_made_flag_guards_the_import_under_it(tmp_path: Path) -> None:
    write(tmp_path, "tests/helpers.py", HELPERS)
    write(
        tmp_path,
        "tests/test_guarded.py",
        "from helpers import probe\n\nHAS = probe('dask')\nif HAS:\n    import dask\n",
    )
    assert needing(tmp_path) == {}


@pytest.mark.parametrize(
    "source",
    [
        "import os\n\nHAS = os.getenv('dask')\n",  # the standard library's
        "from os import getenv\n\nHAS = getenv('dask')\n",
        "from helpers import probe\n\nname = 'dask'\nHAS = probe(name)\n",  # a computed module
    ],
    ids=["stdlib-attribute", "stdlib-name", "computed"],
)
def test_a_call_of_the_standard_library_or_with_a_computed_name_is_no_flag(tmp_path: Path, source: str) -> None:
    write(tmp_path, "tests/helpers.py", HELPERS)
    write(
        tmp_path,
        "tests/test_other.py",
        source + "\n\n@pytest.mark.skipif(not HAS, reason='x')\ndef test_a():\n    pass\n",
    )
    assert needing(tmp_path) == {}
    assert "HAS" not in read_file(source).made


def test_a_same_file_maker_used_as_a_decorator_needs_its_module(tmp_path: Path) -> None:
    write(tmp_path, "tests/test_same.py", HELPERS + "\n\n@needs('dask')\ndef test_a():\n    pass\n")
    assert needing(tmp_path) == {"tests/test_same.py": ["test_a"]}


def test_a_maker_naming_the_module_by_a_later_parameter_is_not_read_by_its_first_argument(tmp_path: Path) -> None:
    helpers = "import pytest\nfrom importlib.util import find_spec\n\n\ndef needs(reason, module):\n"
    helpers += "    return pytest.mark.skipif(find_spec(module) is None, reason=reason)\n"
    write(tmp_path, "tests/helpers.py", helpers)
    write(
        tmp_path, "tests/test_late.py", "from helpers import needs\n\n\n@needs('dask', 'x')\ndef test_a():\n    pass\n"
    )
    assert needing(tmp_path) == {}


def test_the_makers_and_the_made_names_survive_the_cache() -> None:
    facts = read_file(HELPERS)
    assert facts.makers == {
        "needs": [0, ["mark"], "module"],
        "needs_all": [0, ["mark"], "modules"],
        "needs_each": [0, ["mark"], "modules"],
        "probe": [0, ["flag"], "name"],
        "probe_all": [0, ["flag"], "names"],
        "_importorskip": [0, ["flag", "mark"], "modname"],
    }
    tests = read_file(TESTS)
    assert tests.made["has_numba"] == ["_importorskip", {"0": ["numba"]}, 0, 10, False]
    assert tests.made["requires_numba"] == ["_importorskip", {"0": ["numba"]}, 1, 10, False]
    for each in (facts, tests):
        again = FileFacts.from_json(each.to_json())
        assert (again.makers, again.made, again.to_json()) == (each.makers, each.made, each.to_json())
    assert len(read_file("import os\n").to_json()) == 7  # (no maker, nothing made: the facts as they were)


KEYWORDS = """\
import pytest

from helpers import _importorskip, needs, probe

HAS_DASK = probe(name="dask")
requires_numba = needs(module="numba")
has_x, requires_dask = _importorskip(modname="dask")


@needs(module="dask")
def test_decorated():
    pass


@requires_numba
def test_bound():
    pass


@pytest.mark.skipif(not HAS_DASK, reason="optional")
def test_flag():
    pass


@requires_dask
def test_pair():
    pass


@needs(reason="dask")
def test_another_keyword():
    pass
"""


def test_a_maker_given_its_module_by_the_keyword_of_its_parameter_needs_it(tmp_path: Path) -> None:
    write(tmp_path, "tests/helpers.py", HELPERS)
    write(tmp_path, "tests/test_keywords.py", KEYWORDS)
    write(
        tmp_path,
        "tests/test_same.py",
        HELPERS + "\n\nhas_d, req_d = _importorskip(modname='dask')\n\n\n@req_d\ndef test_a():\n    pass\n",
    )
    assert needing(tmp_path) == {
        "tests/test_keywords.py": ["test_bound", "test_decorated", "test_flag", "test_pair"],
        "tests/test_same.py": ["test_a"],
    }


#: Helpers that are no maker of a skip on their parameter's module, or a maker of something else.
NOT_MADE = {
    "answers-true-without-it": (
        "def f(m):\n    try:\n        import_module(m)\n    except ImportError:\n        return True\n"
        "    return True\n",
        (0, ["other"]),
    ),
    "answers-false-either-way": (
        "def f(m):\n    try:\n        import_module(m)\n    except ImportError:\n        return False\n"
        "    return False\n",
        (0, ["other"]),
    ),
    "tries-a-name-of-its-own": (
        "def f(m):\n    name = 'x'\n    try:\n        import_module(name)\n    except ImportError:\n"
        "        return False\n    return True\n",
        None,
    ),
    "loops-over-pairs": ("def f(pairs):\n    for name, _v in pairs:\n        find_spec(name)\n    return True\n", None),
    "loops-over-a-call": (
        "def f(m):\n    for n in range(3):\n        pass\n    return find_spec(m) is not None\n",
        (0, ["flag"]),
    ),
}

#: Helpers that try their parameter's module but whose mark skips on something else: no skip of that module.
OTHER_SKIPS = {
    "loops-over-a-global": "pytest.mark.skipif(any(find_spec(n) is None for n in OTHERS), reason='x')",
    "a-plain-name": "pytest.mark.skipif(GPU, reason='gpu')",
    "a-call-with-a-keyword": "pytest.mark.skipif(any((find_spec(n) is None for n in m), key=1), reason='x')",
    "a-loop-of-two": "pytest.mark.skipif(any(find_spec(n) is None for n in m for k in m), reason='x')",
    "not-any": "pytest.mark.skipif(not any(find_spec(n) for n in m), reason='x')",
}


@pytest.mark.parametrize("shape", NOT_MADE)
def test_a_helper_is_read_by_what_it_answers_and_tries(shape: str) -> None:
    import ast

    from tierlock.census.makers import flag_maker

    source, expected = NOT_MADE[shape]
    node = ast.parse("from importlib import import_module\nfrom importlib.util import find_spec\n" + source).body[-1]
    assert isinstance(node, ast.FunctionDef)
    found = flag_maker(node)
    assert (found[:2] if found is not None else None) == expected


@pytest.mark.parametrize("shape", OTHER_SKIPS)
def test_a_helpers_mark_on_anything_but_its_parameters_modules_is_no_skip_of_them(shape: str) -> None:
    import ast

    from tierlock.census.makers import flag_maker

    source = f"def needs(m):\n    find_spec(m)\n    return {OTHER_SKIPS[shape]}\n"
    node = ast.parse(source).body[0]
    assert isinstance(node, ast.FunctionDef)
    found = flag_maker(node)
    assert found is not None
    assert "mark" not in found[1]


def test_a_mark_bound_to_another_name_in_a_test_class_marks_nothing(tmp_path: Path) -> None:
    """Only the class's ``pytestmark`` marks its tests: a mark (a helper's, or a skip on a flag) kept under another
    name in the class body, or a table entry set there, is no mark of the class."""
    write(tmp_path, "tests/helpers.py", HELPERS)
    source = "import pytest\n\nfrom helpers import needs, probe\n\nHAS_X = probe('dask')\nTABLE = {}\n\n\n"
    source += "class TestPlain:\n"
    source += "    kept = needs('dask')\n    also = pytest.mark.skipif(not HAS_X, reason='x')\n    TABLE['k'] = 1\n\n"
    source += "    def test_a(self):\n        pass\n"
    write(tmp_path, "tests/test_class.py", source)
    assert needing(tmp_path) == {}


def test_more_names_than_a_maker_returns_bind_nothing_past_its_values(tmp_path: Path) -> None:
    write(tmp_path, "tests/helpers.py", HELPERS)
    source = "import pytest\n\nfrom helpers import _importorskip\n\n"
    source += "has_a, requires_a, extra = _importorskip('dask')\n\n\n"
    source += "@pytest.mark.skipif(not extra, reason='x')\ndef test_a():\n    pass\n\n\n"
    source += "@requires_a\ndef test_b():\n    pass\n"
    write(tmp_path, "tests/test_three.py", source)
    assert needing(tmp_path) == {"tests/test_three.py": ["test_b"]}
