"""The tests of a file as written, read with :mod:`ast` (never imported), and pytest's ``-k``/``-m`` on them.

Each test is a chain of names (``TestModel``, ``test_fit``) with the line
range it spans and the marks written on it (decorators ``@pytest.mark.X``,
``@mark.X``, the class's, and the module's ``pytestmark``). ``-k`` and ``-m``
are evaluated with pytest's own expression parser on the names pytest would
use: the folders below the rootdir, the file, the class and the function, and
the marks. What only exists at run time (parametrize ids, marks added by
hooks) is not seen.
"""

from __future__ import annotations

import ast
import fnmatch
from collections.abc import Iterable, Sequence


class StaticItem:
    """One test as written."""

    __slots__ = ("chain", "first", "last", "marks")

    def __init__(self, chain: tuple[str, ...], first: int, last: int, marks: frozenset[str]) -> None:
        self.chain = chain
        self.first = first
        self.last = last
        self.marks = marks

    def spans(self, line: int) -> bool:
        return self.first <= line <= self.last


def _name_matches(name: str, patterns: Sequence[str]) -> bool:
    """pytest's ``python_functions`` / ``python_classes``: a prefix, or a glob when it holds a wildcard."""
    for pattern in patterns:
        if any(c in pattern for c in "*?["):
            if fnmatch.fnmatch(name, pattern):
                return True
        elif name.startswith(pattern):
            return True
    return False


def _mark_name(node: ast.expr) -> str | None:
    target = node.func if isinstance(node, ast.Call) else node
    parts: list[str] = []
    while isinstance(target, ast.Attribute):
        parts.append(target.attr)
        target = target.value
    if isinstance(target, ast.Name):
        parts.append(target.id)
    parts.reverse()
    if len(parts) >= 2 and parts[-2] == "mark":
        return parts[-1]
    return None


def _marks(decorators: Iterable[ast.expr]) -> set[str]:
    return {m for m in (_mark_name(d) for d in decorators) if m is not None}


def _module_marks(tree: ast.Module) -> set[str]:
    out: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "pytestmark" for t in node.targets):
            values = node.value.elts if isinstance(node.value, (ast.List, ast.Tuple)) else [node.value]
            out |= _marks(values)
    return out


def read_items(source: str, functions: Sequence[str], classes: Sequence[str]) -> list[StaticItem] | None:
    """The tests of *source*, or None when it does not parse."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError):  # (RecursionError: thousands of chained operators)
        return None
    module_marks = _module_marks(tree)
    items: list[StaticItem] = []
    for node in tree.body:
        first = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", []))])
        last = getattr(node, "end_lineno", None) or node.lineno
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and _name_matches(node.name, functions):
            marks = frozenset(module_marks | _marks(node.decorator_list))
            items.append(StaticItem((node.name,), first, last, marks))
        elif isinstance(node, ast.ClassDef) and (_name_matches(node.name, classes) or _test_case(node)):
            items += _class_items(node, (), module_marks, functions, classes)
    return items


def _test_case(node: ast.ClassDef) -> bool:
    """:func:`tierlock.census.marks.is_test_case`, loaded only when a class is read (not at the plugin's start)."""
    from tierlock.census.marks import is_test_case

    return is_test_case(node)


def _class_items(
    node: ast.ClassDef, outer: tuple[str, ...], marks: set[str], functions: Sequence[str], classes: Sequence[str]
) -> list[StaticItem]:
    """The tests of a test class, and of the test classes nested in it (``TestOuter::TestInner::test_x``); a
    ``TestCase``'s are its ``test*`` methods (unittest's loader), and pytest collects no class nested in one."""
    chain = (*outer, node.name)
    class_marks = marks | _marks(node.decorator_list)
    unit = _test_case(node)
    items: list[StaticItem] = []
    for child in node.body:
        if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
            if child.name.startswith("test") if unit else _name_matches(child.name, functions):
                start = min([child.lineno, *(d.lineno for d in child.decorator_list)])
                end = child.end_lineno or child.lineno
                marks_of = frozenset(class_marks | _marks(child.decorator_list))
                items.append(StaticItem((*chain, child.name), start, end, marks_of))
        elif isinstance(child, ast.ClassDef) and not unit and _name_matches(child.name, classes):
            items += _class_items(child, chain, class_marks, functions, classes)
    return items


class _Keywords:
    def __init__(self, names: Iterable[str]) -> None:
        self.names = [n.lower() for n in names]

    def __call__(self, name: str, /, **kwargs: str | int | bool | None) -> bool:
        text = name.lower()
        return any(text in n for n in self.names)


class _Marks:
    def __init__(self, marks: Iterable[str]) -> None:
        self.marks = set(marks)

    def __call__(self, name: str, /, **kwargs: str | int | bool | None) -> bool:
        return name in self.marks  # mark arguments are not read: a mark of that name matches


def keep(item: StaticItem, parents: Sequence[str], keyword: str, markexpr: str) -> bool:
    """Whether ``-k`` *keyword* and ``-m`` *markexpr* keep *item* (*parents*: the folders and the file's name)."""
    from _pytest.mark.expression import Expression

    if keyword.strip():
        names = [*parents, *item.chain, *item.marks]
        if not Expression.compile(keyword.strip()).evaluate(_Keywords(names)):
            return False
    if markexpr.strip():
        return Expression.compile(markexpr.strip()).evaluate(_Marks(item.marks))
    return True
