"""Flags and mark aliases made by a helper call: xarray's ``has_x, requires_x = _importorskip("x")``.

:func:`flag_maker` tells such a helper from any other function; the reader of the file (:mod:`.filefacts`) then
binds, for each module-level call with a literal module name, the flag and the mark alias it returns.
"""

from __future__ import annotations

import ast

from tierlock.census.marks import absent, catches_import_error, dotted, spec_test
from tierlock.census.walking import walk

#: The calls that try an import by a name they are given: a flag maker calls one (and so names it).
IMPORTERS = ("import_module", "__import__", "find_spec")


def flag_maker(node: ast.FunctionDef | ast.AsyncFunctionDef) -> tuple[int, list[str]] | None:
    """A helper that tries to import the module its parameter names and says whether it could, as xarray's
    ``def _importorskip(modname): try: importlib.import_module(modname) ... except ImportError: has = False`` with
    ``return has, pytest.mark.skipif(not has, ...)``: (the parameter's position, the kind of each value returned:
    ``flag`` true with the module, ``mark`` a skip without it, ``other``). None for any other function."""
    params = [a.arg for a in (*node.args.posonlyargs, *node.args.args)]
    if not params:
        return None  # nothing to name the module by
    index = None
    for stmt in walk(node):
        calls: list[ast.AST] = []
        if isinstance(stmt, (ast.Try, ast.TryStar)) and any(catches_import_error(h) for h in stmt.handlers):
            calls = [n for s in stmt.body for n in walk(s)]
        elif isinstance(stmt, ast.Call) and dotted(stmt.func).endswith("find_spec"):
            calls = [stmt]  # find_spec of a missing module answers None, it does not raise
        for call in calls:
            if isinstance(call, ast.Call) and dotted(call.func).rsplit(".", 1)[-1] in IMPORTERS and call.args:
                arg = call.args[0]
                if isinstance(arg, ast.Name) and arg.id in params:
                    index = params.index(arg.id)
    returned = next((s.value for s in walk(node) if isinstance(s, ast.Return) and s.value is not None), None)
    if index is None or returned is None:
        return None
    skips = {
        t.id
        for s in walk(node)
        if isinstance(s, ast.Assign) and _skip_mark(s.value, params[index])
        for t in s.targets
        if isinstance(t, ast.Name)
    }
    values = returned.elts if isinstance(returned, ast.Tuple) else [returned]
    return index, [_made_kind(v, skips, params[index]) for v in values]


def _made_kind(value: ast.expr, skips: set[str], param: str) -> str:
    if _skip_mark(value, param) or (isinstance(value, ast.Name) and value.id in skips):
        return "mark"
    return "flag" if isinstance(value, (ast.Name, ast.Compare, ast.Call)) else "other"


def _skip_mark(value: ast.expr, param: str = "") -> bool:
    """``pytest.mark.skipif(not has, ...)``, or ``skipif(find_spec(param) is None, ...)`` on the module the
    parameter *param* names: a skip when what the condition stands for is absent."""
    if not (isinstance(value, ast.Call) and dotted(value.func).endswith("mark.skipif") and value.args):
        return False
    return bool(absent(value.args[0])) or _absent_param(value.args[0], param)


def _absent_param(condition: ast.expr, param: str) -> bool:
    """``find_spec(param) is None`` / ``not find_spec(param)`` / ``not bool(find_spec(param))``: true when the
    module the parameter names cannot be found."""
    asked = spec_test(condition)
    return asked is not None and not asked[1] and isinstance(asked[0], ast.Name) and asked[0].id == param
