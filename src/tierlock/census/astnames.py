"""Names and literals read from :mod:`ast` nodes: what every reader of the census asks of an expression."""

from __future__ import annotations

import ast


def dotted(node: ast.expr) -> str:
    """``a.b.c`` for a name or attribute chain (a call: its function's name); ``""`` otherwise."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        head = dotted(node.value)
        return f"{head}.{node.attr}" if head else ""
    if isinstance(node, ast.Call):
        return dotted(node.func)
    return ""


def literal(node: ast.expr | None) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    return None
