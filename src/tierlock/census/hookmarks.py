"""A project's own mark that a conftest hook turns into a skip when a flag says a root is missing.

A ``conftest.py`` keeps ``HAS_BRAIN`` from a ``try: import brainpkg`` and skips every test of a mark named after
nothing the project declares::

    def pytest_collection_modifyitems(config, items):
        for item in items:
            if "gpu" in item.keywords and not HAS_BRAIN:
                item.add_marker(pytest.mark.skip(reason="no gpu"))

(or ``pytest_runtest_setup`` calling ``pytest.skip``, or ``if HAS_BRAIN: return`` before the loop). The mark is
tied to the root by the flag the same branch reads: :func:`hook_skips` gives, per mark name, the names whose absence
the skip needs; the census resolves them as flags (:meth:`~.firstparty.Reach.skip_needs`), so a test marked
``@pytest.mark.gpu`` below that conftest needs ``brainpkg``. A branch that reads no flag (``--runslow``:
``config.getoption``) ties the mark to nothing.
"""

from __future__ import annotations

import ast

from tierlock.census.astnames import dotted, literal
from tierlock.census.marks import absent, leaves, present, skips
from tierlock.census.walking import walk

#: The hooks whose skips reach tests by their marks.
HOOKS = frozenset({"pytest_collection_modifyitems", "pytest_runtest_setup", "pytest_itemcollected"})
#: The key of a hook-made mark alias in a file's ``aliases`` (``@gpu``: no name a file writes starts so).
PREFIX = "@"
_MARK_READERS = ("get_closest_marker", "iter_markers", "get_marker")


def hook_skips(node: ast.FunctionDef | ast.AsyncFunctionDef) -> dict[str, list[str]]:
    """Mark name -> the names whose absence the hook's skip of that mark's tests needs."""
    out: dict[str, list[str]] = {}
    _visit(node.body, [], [], out)
    return out


def _visit(stmts: list[ast.stmt], marks: list[str], gone: list[str], out: dict[str, list[str]]) -> None:
    gone = list(gone)
    for stmt in stmts:
        if isinstance(stmt, ast.If):
            inner_marks = [*marks, *mark_names(stmt.test)]
            inner_gone = [*gone, *absent(stmt.test)]
            if inner_marks and inner_gone and _adds_skip(stmt.body):
                for mark in inner_marks:
                    out.setdefault(mark, []).extend(n for n in inner_gone if n not in out.get(mark, []))
            _visit(stmt.body, inner_marks, inner_gone, out)
            _visit(stmt.orelse, marks, [*gone, *present(stmt.test)], out)
            if leaves(stmt.body):
                gone += present(stmt.test)  # ``if HAS: return``: what follows runs without it
        elif isinstance(stmt, (ast.For, ast.AsyncFor, ast.While, ast.With, ast.AsyncWith)):
            _visit(stmt.body, marks, gone, out)


def mark_names(test: ast.expr) -> list[str]:
    """The marks a condition asks an item about: ``"gpu" in item.keywords``, ``item.get_closest_marker("gpu")``."""
    out: list[str] = []
    for sub in walk(test):
        if isinstance(sub, ast.Compare) and len(sub.ops) == 1 and isinstance(sub.ops[0], ast.In):
            name = literal(sub.left)
            if name and dotted(sub.comparators[0]).endswith(".keywords"):
                out.append(name)
        elif isinstance(sub, ast.Call) and dotted(sub.func).rsplit(".", 1)[-1] in _MARK_READERS:
            args = [*sub.args[:1], *(k.value for k in sub.keywords if k.arg == "name")]
            name = literal(args[0]) if args else None
            if name:
                out.append(name)
    return out


def _adds_skip(body: list[ast.stmt]) -> bool:
    """``item.add_marker(pytest.mark.skip(...))`` (or of a name holding one), or ``pytest.skip(...)``."""
    for stmt in body:
        if skips(stmt):
            return True
        for sub in walk(stmt):
            if isinstance(sub, ast.Call) and dotted(sub.func).endswith("add_marker") and sub.args:
                marker = sub.args[0]
                text = dotted(marker)
                if isinstance(marker, ast.Name) or text.endswith(("mark.skip", "mark.skipif", "mark.xfail")):
                    return True
    return False
