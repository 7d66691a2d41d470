"""Every node below an :mod:`ast` node, in :func:`ast.walk`'s order, at a fraction of its cost.

:func:`ast.walk` takes each node's children through two generators (``iter_child_nodes`` over ``iter_fields``);
the census walks some 3 million nodes on a project of 500 files, so that layering is a third of its reading.
:func:`walk` reads the fields in one loop and gives the same nodes in the same order (breadth first, each node's
fields in ``_fields`` order, a list's items in order): a reader that keeps the first or last of something finds
the same one.
"""

from __future__ import annotations

from ast import AST
from collections import deque

TYPE_CHECKING = False  # not typing's: a kept answer re-reading a test file loads this module
if TYPE_CHECKING:
    from collections.abc import Iterator


def walk(node: AST) -> Iterator[AST]:
    """*node* and every node below it, as :func:`ast.walk` gives them."""
    todo = deque([node])
    take, put = todo.popleft, todo.append
    while todo:
        node = take()
        for name in node._fields:
            field = getattr(node, name, None)  # (a field left unset: ast.walk passes it by too)
            if isinstance(field, list):
                for item in field:
                    if isinstance(item, AST):
                        put(item)
            elif isinstance(field, AST):
                put(field)
        yield node
