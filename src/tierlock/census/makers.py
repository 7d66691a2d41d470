"""Flags and mark aliases made by a helper call: xarray's ``has_x, requires_x = _importorskip("x")``.

:func:`flag_maker` tells such a helper from any other function; the reader of the file (:mod:`.filefacts`) then
binds, for each module-level call with a literal module name, the flag and the mark alias it returns.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping, Sequence
from typing import Any

from tierlock.census.astnames import dotted
from tierlock.census.marks import NEGATED, absent, catches_import_error, spec_test
from tierlock.census.walking import walk

#: The calls that try an import by a name they are given: a flag maker calls one (and so names it).
IMPORTERS = ("import_module", "__import__", "find_spec")


def flag_maker(node: ast.FunctionDef | ast.AsyncFunctionDef) -> tuple[int, list[str], str] | None:
    """A helper that tries to import the module its parameter names and says whether it could, as xarray's
    ``def _importorskip(modname): try: importlib.import_module(modname) ... except ImportError: has = False`` with
    ``return has, pytest.mark.skipif(not has, ...)``: (the parameter's position, the kind of each value returned:
    ``flag`` true with the module, ``mark`` a skip without it, ``other``), and that parameter's name. None for any
    other function. The parameter may be any of them: a later one (``needs(reason, module)``), a keyword-only one
    (position -1), or ``*modules`` (its name so written, its position the first it takes: every argument from there
    on names a module).

    The parameter may name several modules (``needs(["dask", "numba"])``): the module tried is then the variable
    of a loop over it (``for name in names``, ``all(find_spec(n) for n in names)``). A helper that answers with
    constants (``except ImportError: return False`` ... ``return True``) is a flag maker too."""
    args = node.args
    positional = [a.arg for a in (*args.posonlyargs, *args.args)]
    params = [*positional, *([args.vararg.arg] if args.vararg else []), *(a.arg for a in args.kwonlyargs)]
    if not params:
        return None  # nothing to name the module by
    named = {p: p for p in params} | _loop_names(node, params)
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
                if isinstance(arg, ast.Name) and arg.id in named:
                    index = params.index(named[arg.id])
    returned = next((s.value for s in walk(node) if isinstance(s, ast.Return) and s.value is not None), None)
    if index is None or returned is None:
        return None
    param = params[index]
    if args.vararg is not None and param == args.vararg.arg:
        index, param = len(positional), "*" + param
    elif index >= len(positional):
        index = -1  # keyword-only
    if _answers_found(node):
        return index, ["flag"], param
    name = param.lstrip("*")
    skips = {
        t.id: kind
        for s in walk(node)
        if isinstance(s, ast.Assign) and (kind := _skip_kind(s.value, name))
        for t in s.targets
        if isinstance(t, ast.Name)
    }
    values = returned.elts if isinstance(returned, ast.Tuple) else [returned]
    return index, [_made_kind(v, skips, name) for v in values], param


def given(maker: Sequence[Any], args: Mapping[str, list[str]]) -> list[str]:
    """The modules a call gives the flag maker *maker* (``[position, kinds, parameter]``, as
    :attr:`~tierlock.census.records.FileFacts.makers` keeps it), from the literals of its arguments *args* (by
    position, ``"0"``, ``"1"``..., and by keyword: :func:`~tierlock.census.madecalls.made_call`): the parameter's, by
    its keyword or its position; for ``*modules``, every argument from its position on."""
    index, _kinds, param = maker
    if param.startswith("*"):
        return [m for key, found in args.items() if key.isdigit() and int(key) >= index for m in found]
    return list(args.get(param) or (args.get(str(index), []) if index >= 0 else []))


def _loop_names(node: ast.AST, params: list[str]) -> dict[str, str]:
    """Loop variable -> the parameter it runs over (``for name in names``, ``... for n in names``)."""
    out: dict[str, str] = {}
    for sub in walk(node):
        if not isinstance(sub, (ast.For, ast.comprehension)):
            continue
        if isinstance(sub.target, ast.Name) and isinstance(sub.iter, ast.Name) and sub.iter.id in params:
            out[sub.target.id] = sub.iter.id
    return out


def _answers_found(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """Whether every ``return`` of *node* gives ``True`` or ``False``: ``False`` from each ``except ImportError``
    and ``True`` somewhere else (``try: import_module(name) except ImportError: return False`` ... ``return
    True``): true exactly when the module could be imported."""
    inside: list[ast.expr | None] = []
    for sub in walk(node):
        if isinstance(sub, (ast.Try, ast.TryStar)):
            caught = [h for h in sub.handlers if catches_import_error(h)]
            inside.extend(r.value for h in caught for s in h.body for r in walk(s) if isinstance(r, ast.Return))
    every = [r.value for r in walk(node) if isinstance(r, ast.Return)]
    if not inside or not all(_constant(v) is not None for v in every):
        return False
    outside = [v for v in every if all(v is not w for w in inside)]
    return all(_constant(v) is False for v in inside) and any(_constant(v) is True for v in outside)


def _constant(value: ast.expr | None) -> bool | None:
    return value.value if isinstance(value, ast.Constant) and isinstance(value.value, bool) else None


def _made_kind(value: ast.expr, skips: Mapping[str, str], param: str) -> str:
    kind = _skip_kind(value, param) or (skips.get(value.id) if isinstance(value, ast.Name) else None)
    if kind is not None:
        return kind
    return "flag" if isinstance(value, (ast.Name, ast.Compare, ast.Call)) else "other"


def _skip_kind(value: ast.expr, param: str = "") -> str | None:
    """``mark`` for ``pytest.mark.skipif(not has, ...)``, or ``skipif(find_spec(param) is None, ...)`` on the module
    the parameter *param* names: a skip when what the condition stands for is absent; ``either`` for a skip when
    every module the parameter names is absent (``skipif(all(find_spec(n) is None for n in param))``: any one of
    them runs the test); None for anything else."""
    if not (isinstance(value, ast.Call) and dotted(value.func).endswith("mark.skipif") and value.args):
        return None
    named = [n for n in absent(value.args[0]) if not n.startswith(NEGATED)]  # (``skipif(GPU)``: no flag's absence)
    return "mark" if named else _absent_param(value.args[0], param)


def _absent_param(condition: ast.expr, param: str) -> str | None:
    """``mark`` for ``find_spec(param) is None`` / ``not find_spec(param)`` / ``not bool(find_spec(param))``: true
    when the module the parameter names cannot be found; for a parameter naming several, ``any(find_spec(n) is None
    for n in param)`` / ``not all(find_spec(n) for n in param)``: true when one of them cannot; ``either`` for
    ``all(find_spec(n) is None for n in param)`` / ``not any(find_spec(n) for n in param)``: true when none can."""
    asked = spec_test(condition)
    if asked is not None:
        return "mark" if not asked[1] and isinstance(asked[0], ast.Name) and asked[0].id == param else None
    negated = isinstance(condition, ast.UnaryOp) and isinstance(condition.op, ast.Not)
    condition = condition.operand if isinstance(condition, ast.UnaryOp) and negated else condition
    if not (isinstance(condition, ast.Call) and len(condition.args) == 1 and not condition.keywords):
        return None
    loop = condition.args[0]
    if not isinstance(loop, (ast.GeneratorExp, ast.ListComp)) or len(loop.generators) != 1:
        return None
    each = loop.generators[0]
    if not (isinstance(each.target, ast.Name) and isinstance(each.iter, ast.Name) and each.iter.id == param):
        return None
    asked = spec_test(loop.elt)
    if asked is None or not isinstance(asked[0], ast.Name) or asked[0].id != each.target.id:
        return None
    if asked[1] != negated:  # (``any(find_spec(n) for n in param)``: a skip when one is there)
        return None
    # ``any(... is None)`` / ``not all(...)``: one missing skips; ``all(... is None)`` / ``not any(...)``: all missing
    return {("any", False): "mark", ("all", True): "mark", ("all", False): "either", ("any", True): "either"}.get(
        (dotted(condition.func), negated)
    )
