"""The availability flags a module defines, read with :mod:`ast`: what a skip or a guard on them stands for.

* ``try: import x`` (or ``importlib.import_module("x")``, ``__import__("x")``, ``importlib.metadata.version("x")``)
  ``... except ImportError: has_x = False`` (or ``x = None``): :func:`try_flags`;
* ``def x_not_available(): try: import x ... except ImportError: return True`` (a module-level function without
  arguments whose ``except ImportError`` returns a constant), or ``def has_x(): return find_spec("x") is not
  None``: :func:`flag_function`;
* flag tables, one module-level name holding a flag per module, read as ``HAS["x"]`` (:func:`table_flags`)::

    HAS = {name: importlib.util.find_spec(name) is not None for name in ("dask", "numba")}
    HAS = {"dask": find_spec("dask") is not None, "numba": has_numba}
    AVAILABLE = {name for name in ("dask", "numba") if find_spec(name)}

  and skipped on by an entry: ``skipif(not HAS["dask"])``, ``skipif(not HAS.get("dask"))``, ``skipif("dask" not
  in AVAILABLE)``. The entry for ``x`` is the flag ``HAS.x`` (:func:`tierlock.census.marks.table_key` reads it
  from a condition): a flag like any other, followed through imports (``from helpers import HAS``,
  ``helpers.HAS``). An entry is known only where its key is a literal and its value tries that very module;
  anything else in a table is left to the run-time backstop of the pytest plugin.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping

from tierlock.census.astnames import dotted, literal
from tierlock.census.marks import ANY, EITHER, INVERTED, catches_import_error, looked_up, spec_flag, spec_test
from tierlock.census.records import FileFacts
from tierlock.census.walking import walk

#: A flag entry: (module, level, line), as :attr:`tierlock.census.records.FileFacts.flags` holds them.
Entry = tuple[str, int, int]
#: The head of a flag entry's module that is the name of another flag (``NO_X = not HAS_X``: ``@HAS_X``): the
#: flag stands for what that one does, read where its file reads the name (its own, or imported).
SAME = "@"


def unwrap(value: ast.expr) -> tuple[ast.expr, bool]:
    """(the flag a condition reads, whether the condition is true without it): ``not HAS_X``, ``bool(has_x())``,
    ``x is None`` / ``x == None`` / ``x is False`` (true without it), ``x is not None`` (with it), nested."""
    negated = False
    while True:
        if isinstance(value, ast.UnaryOp) and isinstance(value.op, ast.Not):
            value, negated = value.operand, not negated
        elif isinstance(value, ast.Call) and dotted(value.func) == "bool" and len(value.args) == 1:
            value = value.args[0]
        elif _to_nothing(value):
            negated = negated != isinstance(value.ops[0], (ast.Is, ast.Eq))  # type: ignore[attr-defined]
            value = value.left  # type: ignore[attr-defined]
        else:
            return value, negated


def _to_nothing(node: ast.expr) -> bool:
    """``x is None``, ``x == None``, ``x is False``, ``x is not None``, ``x != None``..."""
    if not (isinstance(node, ast.Compare) and len(node.ops) == 1):
        return False
    other = node.comparators[0]
    kinds = (ast.Is, ast.IsNot, ast.Eq, ast.NotEq)
    return isinstance(node.ops[0], kinds) and isinstance(other, ast.Constant) and other.value in (None, False)


def derived(value: ast.expr, line: int) -> list[Entry] | None:
    """The entries of a module-level flag computed from another flag or a ``find_spec``: ``NO_X = not HAS_X``,
    ``HAS_X = x is not None`` (``x = None`` when its import failed), ``NO_X = x is None``, ``HAS = bool(has_x())``,
    ``MISSING = find_spec("x") is None``, ``HAS = has_x()``: :data:`SAME` and the name read (a flag when that name is
    one, which :class:`~tierlock.census.firstparty.Reach` finds out), :data:`INVERTED` after it when true without it.
    ``HAS_BOTH = HAS_X and HAS_Y`` (each part a flag as it is, not negated): one entry per part, true with them all;
    ``HAS_ANY = HAS_X or HAS_Y``: the same, and :data:`~tierlock.census.marks.ANY` (true with any one of them).
    None for anything else."""
    inner, negated = unwrap(value)
    parts = inner.values if isinstance(inner, ast.BoolOp) else [inner]
    entries = [_part(part, line) for part in parts]
    if None in entries:
        return None
    found = [e for e in entries if e is not None]
    if isinstance(inner, ast.BoolOp) and isinstance(inner.op, ast.Or):
        found.append(ANY)
    return [*found, INVERTED] if negated else found


def _part(node: ast.expr, line: int) -> Entry | None:
    """The entry of a flag as it is read (a ``find_spec``, a name, an attribute chain, a call without arguments)."""
    spec = spec_flag(node)
    if spec is not None:
        return (spec, 0, line)
    bare = isinstance(node, ast.Call) and not node.args and not node.keywords
    name = dotted(node) if isinstance(node, (ast.Name, ast.Attribute)) or bare else ""
    return (SAME + name, 0, line) if name else None  # (``X = Y`` too: X is a flag only when Y is one)


def table_flags(
    names: list[str], value: ast.expr, line: int, facts: FileFacts, makers: Mapping[str, tuple[int, list[str]]]
) -> bool:
    """Whether *value*, assigned to *names* at module level, is a flag table: then its entries are flags of
    *facts* (``HAS.x``). *makers*: the module's flag makers (:func:`tierlock.census.makers.flag_maker`)."""
    found = entries(value, line, facts.flags, makers)
    for name in names:
        for key, tried in found.items():
            facts.flags[f"{name}.{key}"] = tried
    return bool(found)


def entries(
    value: ast.expr, line: int, flags: Mapping[str, list[Entry]], makers: Mapping[str, tuple[int, list[str]]]
) -> dict[str, list[Entry]]:
    """Key -> the flag entries of the table *value* assigns (empty when it is no flag table)."""
    if isinstance(value, ast.Dict):
        out: dict[str, list[Entry]] = {}
        for key_node, item in zip(value.keys, value.values, strict=True):
            key = literal(key_node) if key_node is not None else None
            found = _tries(item, line, flags, makers) if key else None
            if key and found:
                out[key] = found
        return out
    if isinstance(value, (ast.DictComp, ast.SetComp)) and len(value.generators) == 1:
        loop = value.generators[0]
        keys = _literals(loop.iter)
        if not isinstance(loop.target, ast.Name) or keys is None or loop.is_async:
            return {}
        var = loop.target.id
        if isinstance(value, ast.DictComp):
            if not (isinstance(value.key, ast.Name) and value.key.id == var) or loop.ifs:
                return {}
            tests = [value.value]
        else:  # ``{name for name in (...) if find_spec(name)}``: the names found
            if not (isinstance(value.elt, ast.Name) and value.elt.id == var) or len(loop.ifs) != 1:
                return {}
            tests = loop.ifs
        return {key: [(key, 0, line)] for key in keys if _tries_var(tests[0], var, makers)}
    return {}


def _literals(node: ast.expr) -> list[str] | None:
    """The strings of a literal tuple, list or set of strings (None for anything else)."""
    if not isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return None
    out = [literal(e) for e in node.elts]
    return [s for s in out if s] if all(s is not None for s in out) else None


def _tries(
    item: ast.expr,
    line: int,
    flags: Mapping[str, list[Entry]],
    makers: Mapping[str, tuple[int, list[str]]],
) -> list[Entry] | None:
    """The entries of one literal entry's value: a ``find_spec`` flag, a flag maker's call, or a flag of the
    module by its name (``"dask": has_dask``)."""
    spec = spec_flag(item)
    if spec is not None:
        return [(spec, 0, line)]
    made = _made(item, makers) if isinstance(item, ast.Call) else None
    if made is not None:
        return [(made, 0, line)]
    if isinstance(item, ast.Name) and item.id in flags:
        return list(flags[item.id])
    return None


def _made(call: ast.Call, makers: Mapping[str, tuple[int, list[str]]]) -> str | None:
    """The module a flag maker's call with a literal tries (``_has("dask")``), when it returns a flag alone."""
    if not isinstance(call.func, ast.Name) or call.func.id not in makers:
        return None
    index, kinds = makers[call.func.id]
    if kinds != ["flag"] or len(call.args) <= index:
        return None
    return literal(call.args[index])


def _tries_var(test: ast.expr, var: str, makers: Mapping[str, tuple[int, list[str]]]) -> bool:
    """Whether *test* is true exactly when the module named by the loop variable *var* is there:
    ``find_spec(var) is not None``, ``bool(find_spec(var))``, ``find_spec(var)``, or a flag maker's ``_has(var)``."""
    asked = spec_test(test)
    if asked is not None:
        return asked[1] and _is(asked[0], var)
    if isinstance(test, ast.Call) and isinstance(test.func, ast.Name) and test.func.id in makers:
        index, kinds = makers[test.func.id]
        return kinds == ["flag"] and len(test.args) > index and _is(test.args[index], var)
    return False


def _is(node: ast.expr, var: str) -> bool:
    return isinstance(node, ast.Name) and node.id == var


def try_flags(node: ast.Try | ast.TryStar, facts: FileFacts) -> None:
    """Availability flags of a module-level ``try: import x ... except ImportError: has_x = False`` (the name
    bound in the ``try`` body or in its ``else:``, which runs only when the import succeeded). A body that is itself
    a ``try`` of one import falling back to another (aiohttp's ``try: import brotlicffi as brotli except
    ImportError: import brotli``) makes a flag true with either one (:data:`~tierlock.census.marks.ANY`)."""
    tried, bound = tried_imports(node.body)
    if not tried:
        return
    tried = _either_import(node.body) or tried
    bound |= tried_imports(node.orelse)[1]
    for handler in node.handlers:
        for stmt in handler.body:
            for sub in walk(stmt):
                if not _assigns_nothing(sub):
                    continue
                for target in sub.targets:  # type: ignore[attr-defined]
                    if isinstance(target, ast.Name) and target.id in bound:
                        facts.flags[target.id] = tried


def _either_import(body: list[ast.stmt]) -> list[Entry] | None:
    """The entries of a body that is one ``try:`` of one import whose ``except ImportError:`` handlers each import
    one other: each is an alternative, and :data:`~tierlock.census.marks.ANY` after them. None for anything else."""
    if len(body) != 1 or not isinstance(body[0], ast.Try) or body[0].orelse or body[0].finalbody:
        return None
    inner = body[0]
    if not inner.handlers or not all(catches_import_error(h) for h in inner.handlers):
        return None
    parts = [tried_imports(inner.body)[0], *(tried_imports(h.body)[0] for h in inner.handlers)]
    if any(len(part) != 1 for part in parts):
        return None
    return [part[0] for part in parts] + [ANY]


def flag_function(node: ast.FunctionDef | ast.AsyncFunctionDef, facts: FileFacts) -> None:
    """``def has_x(): try: import x except ImportError: return False ...``, ``def has_x(): return find_spec("x") is
    not None`` (``is None``: true without x): a flag, true or false without x."""
    if node.args.args or node.args.posonlyargs or node.args.kwonlyargs or node.args.vararg:
        return
    answer = _returned_spec(node.body)
    if answer is not None:
        facts.flags[node.name] = answer
        return
    for stmt in node.body:
        if not isinstance(stmt, (ast.Try, ast.TryStar)):
            continue
        tried, _ = tried_imports(stmt.body)
        answers = {_constant_return(h.body) for h in stmt.handlers if catches_import_error(h)}
        if tried and len(answers) == 1 and None not in answers:
            facts.flags[node.name] = [*tried, INVERTED] if answers.pop() else tried
            return


def tried_imports(body: list[ast.stmt]) -> tuple[list[tuple[str, int, int]], set[str]]:
    """(module, level, line) of each import in a ``try`` body, and the names it binds (``x = True`` too)."""
    tried: list[tuple[str, int, int]] = []
    bound: set[str] = set()
    for stmt in body:
        for sub in walk(stmt):
            if isinstance(sub, ast.Import):
                tried.extend((alias.name, 0, sub.lineno) for alias in sub.names)
                bound.update(alias.asname or alias.name.split(".")[0] for alias in sub.names)
            elif isinstance(sub, ast.ImportFrom):
                tried.append((sub.module or "", sub.level, sub.lineno))
                # ``from proj import helpers``: the module imported may be a name of it (``proj.helpers``)
                here = f"{sub.module}." if sub.module else ""
                tried.extend((here + a.name, sub.level, sub.lineno) for a in sub.names if a.name != "*")
                bound.update(a.asname or a.name for a in sub.names)
            elif isinstance(sub, ast.Assign) and isinstance(sub.value, ast.Constant) and sub.value.value is True:
                bound.update(t.id for t in sub.targets if isinstance(t, ast.Name))
            elif isinstance(sub, ast.Assign) and isinstance(sub.value, ast.Call) and _imported(sub.value):
                bound.update(t.id for t in sub.targets if isinstance(t, ast.Name))  # ``x = import_module("x")``
            elif isinstance(sub, ast.Call):
                tried.extend((name, 0, sub.lineno) for name in looked_up(sub))
                module = _imported(sub)
                if module:
                    tried.append((module, 0, sub.lineno))
    return tried, bound


def failed_first(body: list[ast.stmt]) -> list[str]:
    """The guards of what an ``except ImportError:`` of a ``try`` with *body* runs: ``|x`` for each root the body
    imports (that code runs only after one of them failed: ``try: import x except ImportError: lib =
    pytest.importorskip("y")`` needs y only where x is missing, :meth:`~tierlock.census.firstparty.Reach.guarded`),
    or ``pytest.importorskip("x")``s (``except pytest.skip.Exception:`` then importing another)."""
    found = [module for module, level, _ in tried_imports(body)[0] if not level]
    for stmt in body:
        for sub in walk(stmt):
            if isinstance(sub, ast.Call) and dotted(sub.func).endswith("importorskip") and sub.args:
                found.append(literal(sub.args[0]) or "")
    return list(dict.fromkeys(EITHER + module.split(".")[0] for module in found if module))


#: The calls that import the module they name: ``importlib.import_module("x")``, ``__import__("x")``.
_IMPORT_CALLS = frozenset({"import_module", "__import__"})


def _imported(call: ast.Call) -> str | None:
    """The module ``importlib.import_module("x")`` / ``__import__("x")`` imports (a literal, not relative)."""
    if dotted(call.func).rpartition(".")[2] not in _IMPORT_CALLS or not call.args:
        return None
    module = literal(call.args[0])
    return module if module and not module.startswith(".") else None


def _returned_spec(body: list[ast.stmt]) -> list[Entry] | None:
    """The flag entries of a body that only returns ``find_spec("x") is not None`` (or ``bool(...)``; ``is None``:
    true without x, :data:`INVERTED`), after a docstring."""
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]
    if len(body) != 1 or not isinstance(body[0], ast.Return) or body[0].value is None:
        return None
    asked = spec_test(body[0].value)
    module = literal(asked[0]) if asked is not None else None
    if asked is None or not module:
        return None
    entry = (module, 0, body[0].lineno)
    return [entry] if asked[1] else [entry, INVERTED]


def _constant_return(body: list[ast.stmt]) -> bool | None:
    """What a block's ending ``return True`` / ``return False`` / ``return None`` / ``return`` answers, else None."""
    last = body[-1] if body else None
    if not isinstance(last, ast.Return):
        return None
    if last.value is None:
        return False
    if isinstance(last.value, ast.Constant) and last.value.value in (True, False, None):
        return bool(last.value.value)
    return None


def _assigns_nothing(node: ast.AST) -> bool:
    """``name = None`` / ``name = False``."""
    return isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant) and node.value.value in (None, False)
