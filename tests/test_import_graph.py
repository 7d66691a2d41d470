"""No import circles in ``src/tierlock``, function-level imports included.

Function-level imports keep start-up fast, but they hide circles (the
installer's fast path, receipts and target once imported each other). The
graph is read from the sources with :mod:`ast`: every ``import`` and ``from
... import`` anywhere in a module (imports under ``if TYPE_CHECKING:`` are
left out: they never run), a name a package loads lazily (its ``_LAZY`` table)
counted as an import of the module that defines it.
"""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"


def _modules() -> dict[str, Path]:
    out: dict[str, Path] = {}
    for path in SRC.rglob("*.py"):
        name = ".".join(path.relative_to(SRC).with_suffix("").parts)
        out[name.removesuffix(".__init__")] = path
    return out


def _lazy(tree: ast.Module) -> dict[str, str]:
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "_LAZY" for t in node.targets):
            table = ast.literal_eval(node.value)
            assert isinstance(table, dict)
            return {str(k): str(v) for k, v in table.items()}
    return {}


def _type_checking_only(tree: ast.Module) -> set[int]:
    skip: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
            skip.update(id(inner) for inner in ast.walk(node))
    return skip


def _graph() -> dict[str, set[str]]:
    modules = _modules()
    trees = {name: ast.parse(path.read_text(encoding="utf-8")) for name, path in modules.items()}
    lazy = {name: _lazy(tree) for name, tree in trees.items()}
    graph: dict[str, set[str]] = {}
    for name, tree in trees.items():
        skip = _type_checking_only(tree)
        found: set[str] = set()
        for node in ast.walk(tree):
            if id(node) in skip:
                continue
            if isinstance(node, ast.ImportFrom) and node.module and not node.level:
                for alias in node.names:
                    whole = f"{node.module}.{alias.name}"
                    found.add(whole if whole in modules else lazy.get(node.module, {}).get(alias.name, node.module))
            elif isinstance(node, ast.Import):
                found.update(alias.name for alias in node.names)
        graph[name] = {m for m in found if m in modules and m != name}
    return graph


def _circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for start, first in graph.items():
        if start in index:
            continue
        work = [(start, iter(sorted(first)))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_no_module_of_tierlock_imports_itself_through_others() -> None:
    assert _circles(_graph()) == []


def test_the_circle_finder_finds_a_circle() -> None:
    assert _circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
