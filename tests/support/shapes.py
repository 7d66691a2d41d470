"""A document with one part replaced or removed: the cases of the tests that read files of any shape.

:func:`put` copies a document (a receipt, a pylock, a project's settings, as plain data) and puts a value at a
place (a path of keys and indexes), or removes what is there; a place that is not there leaves the copy as it was.
"""

from __future__ import annotations

import contextlib
import copy
from collections.abc import Sequence
from typing import Any


def put(document: Any, place: Sequence[str | int], value: object = None, *, drop: bool = False) -> Any:
    """A copy of *document* with *value* at *place*, or without what is there (*drop*)."""
    out = copy.deepcopy(document)
    holder = out
    for step in place[:-1]:
        try:
            holder = holder[step]
        except (KeyError, IndexError, TypeError):
            return out
    with contextlib.suppress(KeyError, IndexError, TypeError):
        if drop:
            del holder[place[-1]]
        else:
            holder[place[-1]] = value
    return out
