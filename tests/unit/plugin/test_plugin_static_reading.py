"""What the plugin reads of a test file without importing it, and which arguments select a file whole.

:func:`read_items` gives the tests pytest would collect from a source (its ``python_functions`` and
``python_classes``, a unittest ``TestCase``'s ``test*`` methods), each with its lines and marks (``pytest.mark.x``
and ``mark.x`` after ``from pytest import mark``); :meth:`Selection.in_whole` says whether a file or folder
argument (not a node id) selects a path.
"""

from __future__ import annotations

from tierlock.pytest_plugin.selection import Selection
from tierlock.pytest_plugin.static_items import StaticItem, read_items


def test_an_item_spans_the_lines_from_its_first_decorator_to_its_last_line() -> None:
    item = StaticItem(("test_a",), 5, 8, frozenset())
    assert [line for line in range(3, 11) if item.spans(line)] == [5, 6, 7, 8]


def test_a_mark_imported_from_pytest_is_read_as_pytest_mark() -> None:
    source = (
        "from pytest import mark\nimport pytest\n\n\n@mark.slow\ndef test_a():\n    pass\n\n\n"
        "@pytest.mark.gpu\ndef test_b():\n    pass\n\n\n@slow\ndef test_c():\n    pass\n"
    )
    items = read_items(source, ["test"], ["Test"])
    assert items is not None
    assert [(i.chain, sorted(i.marks)) for i in items] == [
        (("test_a",), ["slow"]),
        (("test_b",), ["gpu"]),
        (("test_c",), []),
    ]


def test_a_class_inside_a_test_class_is_read_only_when_its_name_is_a_test_classs() -> None:
    source = (
        "class TestOuter:\n    class Helper:\n        def test_hidden(self):\n            pass\n\n"
        "    class TestInner:\n        def test_seen(self):\n            pass\n"
    )
    items = read_items(source, ["test"], ["Test"])
    assert items is not None
    assert [i.chain for i in items] == [("TestOuter", "TestInner", "test_seen")]


def test_a_whole_argument_selects_itself_and_what_is_below_it_and_nothing_else() -> None:
    selection = object.__new__(Selection)  # (the two fields in_whole reads: no pytest run needed)
    selection.paths = ["/p/tests/test_a.py", "/p/tests/sub", "/p/tests/test_n.py"]
    selection.named = [("/p/tests/test_n.py", "test_x")]
    assert selection.in_whole("/p/tests/test_a.py")
    assert selection.in_whole("/p/tests/sub/test_b.py")
    assert not selection.in_whole("/p/tests/test_b.py")
    assert not selection.in_whole("/p/tests/subway/test_c.py")
    assert not selection.in_whole("/p/tests/test_n.py")  # (named by a node id only: not whole)
