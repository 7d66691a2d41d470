"""Calls of a function of the project's that name modules: the marks and flags a flag maker makes where it is called.

``@needs("dask")``, ``@needs("optional", module="dask")``, ``HAS = probe("json", "dask")``: which argument names the
maker's module is the maker's to say (:func:`tierlock.census.makers.given`); a call keeps each argument that names
modules, by position and by keyword.
"""

from __future__ import annotations

import ast

from tierlock.census.astnames import dotted, literal

#: How a mark made by a call is kept among a function's marks: ``needs(0=dask,numba)`` for ``@needs(["dask",
#: "numba"])`` (the function called, then each argument naming modules: by its position or its keyword, ``;``
#: between them), ``needs(reason=optional;module=dask)`` for ``@needs(reason="optional", module="dask")``.
MADE = "("


def made_call(node: ast.expr) -> tuple[str, dict[str, list[str]]] | None:
    """(the function called, the modules each argument names, by position ``"0"``, ``"1"``... or by keyword) of
    ``needs("x")``, ``helpers.needs(["x", "y"])``, ``needs("a", "b")``, ``needs("optional", "x")``,
    ``needs(module="x")``: a call of a function of the project's (not pytest's) with an argument that names modules
    (a literal dotted name, or a list or tuple of them): a mark or a flag when it is a flag maker, which of its
    arguments names the module the maker says (:func:`tierlock.census.makers.given`). Positions stop at a
    ``*starred`` argument."""
    if not isinstance(node, ast.Call):
        return None
    name = dotted(node.func) if isinstance(node.func, (ast.Name, ast.Attribute)) else ""
    if not name or name.startswith(("pytest.", "mark.")):
        return None
    args: dict[str, list[str]] = {}
    for at, arg in enumerate(node.args):
        if isinstance(arg, ast.Starred):
            break
        if modules(arg):
            args[str(at)] = modules(arg)
    for keyword in node.keywords:
        if keyword.arg and modules(keyword.value):
            args[keyword.arg] = modules(keyword.value)
    return (name, args) if args else None


def literals(node: ast.expr) -> list[str]:
    """The strings a literal string, or a literal list or tuple of strings, names (empty for anything else)."""
    items = node.elts if isinstance(node, (ast.List, ast.Tuple)) else [node]
    found = [literal(i) for i in items]
    return [f for f in found if f] if all(found) else []


def modules(node: ast.expr) -> list[str]:
    """The :func:`literals` of *node* when each is a dotted name (a module's; a reason such as ``"needs dask"`` is
    none)."""
    found = literals(node)
    return found if all(all(part.isidentifier() for part in f.split(".")) for f in found) else []


def made_mark(node: ast.expr) -> str | None:
    """``needs(0=x)`` for ``@needs("x")``, ``needs(module=x)`` for ``@needs(module="x")`` (:data:`MADE`), None for
    any other mark."""
    made = made_call(node)
    if made is None:
        return None
    callee, args = made
    given = ";".join(key + "=" + ",".join(found) for key, found in args.items())
    return f"{callee}{MADE}{given})"


def made_args(mark: str) -> tuple[str, dict[str, list[str]]]:
    """(the function called, its arguments naming modules) of a mark :func:`made_mark` wrote."""
    callee, _, inner = mark.removesuffix(")").partition(MADE)
    args = {}
    for part in inner.split(";"):
        key, _, found = part.partition("=")
        args[key] = found.split(",")
    return callee, args
