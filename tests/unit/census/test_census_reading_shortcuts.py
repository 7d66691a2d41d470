"""The file reader leaves out a walk only where it could find nothing, and walks in ast.walk's order.

The reader asks a stretch of lines whether it names what a walk looks for (``importorskip``, ``getfixturevalue``,
a skip, an import-by-name call, a helper of the file) before it walks (:mod:`tierlock.census.mentions`). The facts
read so must be the facts read with every stretch walked, for every source: generated sources made of the readers'
shapes, written with every kind of line end the parser knows. A stretch that is not all ASCII is never ruled out
(the parser folds a fullwidth ``i`` in a name to ``i``).
"""

from __future__ import annotations

import ast
import gc
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tierlock.census.filefacts import read_file
from tierlock.census.mentions import Mentions
from tierlock.census.walking import walk

#: Blocks valid at module level, each holding a shape one of the readers looks for (or a near miss).
SHAPES = (
    "import pytest",
    "import importlib",
    'np = pytest.importorskip("numpy")',
    'def helper():\n    return pytest.importorskip("brainpkg")',
    'def test_requests(request):\n    x = request.getfixturevalue("brain")\n    helper()',
    "def test_calls_nothing(tmp_path):\n    assert tmp_path",
    'if not HAS:\n    pytest.skip("no", allow_module_level=True)',
    'if not HAS:\n    @skip("x")\n    def later():\n        pass',
    'if not HAS:\n    @pytest.mark.parametrize(\n        "a", [1]\n    )\n'
    '    def test_p(a):\n        pytest.xfail("x")',
    "try:\n    import brainpkg\n    HAS = True\nexcept ImportError:\n    HAS = False",
    "def _importorskip(modname):\n    try:\n        importlib.import_module(modname)\n        has = True\n"
    '    except ImportError:\n        has = False\n    return has, pytest.mark.skipif(not has, reason="x")',
    "def by_spec(name):\n    return importlib.util.find_spec(name) is not None, 1",
    "def by_dunder(name, other):\n    try:\n        __import__(\n            name\n        )\n    except ImportError:\n"
    "        return False\n    return True",
    'has_b, requires_b = _importorskip("brainpkg")',
    'has_s, requires_s = by_spec("brainpkg")',
    "@requires_b\ndef test_marked():\n    pass",
    'class TestC:\n    def test_c(self):\n        self.skipTest("x")\n\n'
    "    def helper2(self):\n        import brainpkg\n\n    def test_uses(self):\n        self.helper2()",
    "x = (\n    helper()\n)",
    "y = 1 + \\\n    helper()",
    's = """importorskip\ngetfixturevalue\nskip"""',
    "# helper importorskip skip getfixturevalue import_module",
    'def test_d():\n    if not HAS:\n        pytest.xfail("x")\n    raise unittest.SkipTest("y")',
    'def test_g():\n    if not HAS:\n        raise SkipTest("no")',
    "def needs_deco(f):\n    import brainpkg\n    return f\n\n\n@needs_deco\ndef test_deco():\n    pass",
    "def helper_f():\n    import brainpkg\n\n\ndef test_fold():\n    pytest.\uff49mportorskip('brainpkg')\n"
    "    \uff48elper_f()",
    'def test_doc():\n    """caf\u00e9"""\n    return helper()',
    "def test_e():\n    if not HAS:\n        raise pytest.skip.Exception('z')\n    return helper()",
    "def pytest_collection_modifyitems(config, items):\n    for item in items:\n"
    '        if "gpu" in item.keywords and not HAS:\n            item.add_marker(pytest.mark.skip(reason="no"))',
    "@pytest.fixture\ndef brain():\n    return helper()",
    "@pytest.fixture(\n    autouse=True\n)\ndef auto():\n    yield by_spec('x')",
    "def outer():\n    def inner():\n        return helper()\n    return inner",
    "pytestmark = [pytest.mark.skipif(not HAS, reason='x'), requires_b]",
    "if TYPE_CHECKING:\n    import brainpkg",
    "for name in ('a', 'b'):\n    pytest.importorskip(name)",
    "with ctx():\n    pytest.importorskip('brainpkg')",
    "class Helpers:\n    @staticmethod\n    def make():\n        import brainpkg\n\n\n"
    "def test_f():\n    Helpers.make()",
)
ENDS = ("\n", "\r\n", "\r")


@st.composite
def sources(draw: st.DrawFn) -> str:
    """A module of the shapes above in any order, its lines ended by any of the parser's line ends."""
    blocks = draw(st.lists(st.sampled_from(SHAPES), min_size=1, max_size=8))
    lines = "\n\n".join(blocks).split("\n")
    ends = draw(st.lists(st.sampled_from(ENDS), min_size=len(lines), max_size=len(lines)))
    return "".join(line + end for line, end in zip(lines, ends, strict=True))


def _facts(source: str) -> object:
    return read_file(source, "test_x.py").to_json()


def _every_stretch_walked(source: str) -> object:
    """The facts read with no stretch ruled out: what the reader found before it looked at the lines first."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(Mentions, "lines", lambda *_: True)
        patch.setattr(Mentions, "names", lambda *_: True)
        patch.setattr(Mentions, "any", lambda *_: True)
        return _facts(source)


@settings(max_examples=300, deadline=None)
@given(sources())
def test_facts_read_with_the_shortcut_are_the_facts_read_without_it(source: str) -> None:
    assert _facts(source) == _every_stretch_walked(source)


def test_every_shape_alone_is_read_the_same_with_and_without_the_shortcut() -> None:
    for shape in SHAPES:
        for end in ENDS:
            source = shape.replace("\n", end) + end
            assert _facts(source) == _every_stretch_walked(source), (shape, end)


def test_a_skip_whose_decorator_is_on_the_line_above_its_def_is_still_read() -> None:
    facts = read_file('import pytest\nif not HAS_X:\n    @skip("no x")\n    def later():\n        pass\n')
    assert facts.module.skips == [("HAS_X", 2)]


def test_a_name_the_parser_folds_from_non_ascii_letters_is_still_found() -> None:
    facts = read_file('import pytest\n\ndef test_a():\n    pytest.\uff49mportorskip("brainpkg")\n')  # fullwidth i
    assert [(root, how) for root, _, how, _, _ in facts.imports] == [
        ("pytest", "import pytest"),
        ("brainpkg", "importorskip('brainpkg')"),
    ]
    maker = "def _i(modname):\n    try:\n        importlib.\uff49mport_module(modname)\n        has = True\n"
    maker += "    except ImportError:\n        has = False\n    return has, pytest.mark.skipif(not has, reason='x')\n"
    facts = read_file(maker + 'has_b, requires_b = _i("brainpkg")\n')
    assert facts.flags["has_b"] == [("brainpkg", 0, 8)]


def test_lines_are_counted_as_the_parser_counts_them() -> None:
    text = Mentions("a = 1\rb = 2\r\nc = 3\n# d\x0ce\nf")
    assert [text.lines(n, n, ["f"]) for n in range(1, 6)] == [False, False, False, False, True]
    assert text.lines(4, 4, ["e"])
    assert text.lines(1, 3, ["c"])
    assert not text.lines(1, 2, ["c"])
    assert text.lines(5, None, ["f"])
    assert Mentions("helper(\n    1)\n").lines(1, 2, ["helper"])  # a stretch from the first line
    assert Mentions("helper(\n    1)\n").names(1, 2, {"helper"})
    assert Mentions("é\nx").lines(1, 1, ["y"])  # not ASCII: never ruled out
    assert not Mentions("é\nx").lines(2, 2, ["y"])  # (the other lines are)
    assert Mentions("x = helper2()\n").names(1, 1, {"helper2"})
    assert not Mentions("x = helper2()\n").names(1, 1, {"helper"})  # a whole name, not a part of one
    assert Mentions("x = \uff48elper()\n").names(1, 1, {"helper"})
    assert Mentions("x = 1if helper else 2\n").names(1, 1, {"if"})  # a name right after a number
    assert Mentions("x = (helper)\n").names(1, 1, {"helper"})
    assert not Mentions("x = 1\n").names(1, 1, {"helper"})
    assert Mentions("abc").any(["b"])
    assert not Mentions("abc").any(["d"])
    assert Mentions("é").any(["d"])


@settings(max_examples=200, deadline=None)
@given(sources())
def test_the_walk_gives_the_nodes_of_ast_walk_in_its_order(source: str) -> None:
    tree = ast.parse(source)
    assert [id(n) for n in walk(tree)] == [id(n) for n in ast.walk(tree)]


def test_the_walk_gives_the_nodes_of_ast_walk_in_its_order_over_real_modules() -> None:
    folder = Path(ast.__file__).parent
    sources = [*Path(__file__).parents[3].joinpath("src", "tierlock", "census").glob("*.py")]
    sources += [folder / name for name in ("ast.py", "dataclasses.py", "argparse.py", "typing.py")]
    for path in sources:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        assert [id(n) for n in walk(tree)] == [id(n) for n in ast.walk(tree)], path
    partial = ast.Name()  # type: ignore[call-arg]  # built without its fields: ast.walk passes them by
    assert list(walk(partial)) == list(ast.walk(partial)) == [partial]


def test_the_collector_runs_after_a_file_is_read_as_it_ran_before() -> None:
    assert gc.isenabled()
    for source in ("import brainpkg\n", "def broken(:\n", "x = '\0'\n"):  # read, refused, refused
        read_file(source)
        assert gc.isenabled()
        gc.disable()
        try:
            read_file(source)
            assert not gc.isenabled()
        finally:
            gc.enable()
