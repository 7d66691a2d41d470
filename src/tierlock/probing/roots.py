"""Import roots: the top-level names a distribution makes importable, found from RECORD or on disk.

Which file provides a module depends on the target: a ``.py`` file anywhere,
an extension module only when its name ends with one of the target's
extension suffixes (:func:`tierlock.probing.compiled.module_name`).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Mapping, Sequence

from tierlock.probing.compiled import module_name
from tierlock.probing.regular import open_text

_NOT_ROOTS = (".dist-info", ".data", ".libs")


def providers(rels: Iterable[str], suffixes: Sequence[str]) -> dict[str, list[str]]:
    """Top-level module name -> the RECORD paths that provide it (``.py`` files, extension modules for
    *suffixes*), in RECORD order; a folder provides its name when it records a module anywhere below it."""
    out: dict[str, list[str]] = {}
    for name, rel in provided(rels, suffixes):
        out.setdefault(name, []).append(rel)
    return out


def provided(rels: Iterable[str], suffixes: Sequence[str]) -> Iterator[tuple[str, str]]:
    """(top-level module name, RECORD path) for each of *rels* that provides a module, in their order."""
    for rel in rels:
        head, sep, _rest = rel.partition("/")
        leaf = rel.rpartition("/")[2]
        if not (leaf.endswith(".py") or module_name(leaf, suffixes) is not None):
            continue
        if sep:
            if head.endswith(_NOT_ROOTS) or head in ("__pycache__", "..") or not head.isidentifier():
                continue
            yield head, rel
            continue
        name = head[:-3] if head.endswith(".py") else module_name(head, suffixes)
        if name and name.isidentifier():
            yield name, rel


def roots_from_heads(heads: Mapping[str, bool], suffixes: Sequence[str]) -> tuple[str, ...]:
    """Import roots from the first parts of RECORD's paths (a folder when the flag is set), in RECORD order."""
    out: list[str] = []
    for head, folder in heads.items():
        if folder:
            name: str | None = head
            if head.endswith(_NOT_ROOTS) or head in ("__pycache__", ".."):
                continue
        elif head.endswith(".py"):
            name = head[:-3]
        else:
            name = module_name(head, suffixes)
        if name and name.isidentifier() and name not in out:
            out.append(name)
    return tuple(out)


def roots_from_top_level(dist_info: str) -> tuple[str, ...]:
    try:
        with open_text(os.path.join(dist_info, "top_level.txt"), errors="replace") as fh:
            names = [line.strip() for line in fh]
    except OSError:
        return ()
    return tuple(n for n in names if n and n.isidentifier())


def find_root(root: str, places: Sequence[str], suffixes: Sequence[str]) -> str:
    """``ok``, ``missing``, or the folder where *root* is empty or namespace-only."""
    hollow = ""
    for place in places:
        folder = os.path.join(place, root)
        if os.path.isdir(folder):
            if os.path.isfile(os.path.join(folder, "__init__.py")) or has_module(folder, suffixes):
                return "ok"
            hollow = hollow or folder
            continue
        if os.path.isfile(folder + ".py") or any(os.path.isfile(folder + s) for s in suffixes):
            return "ok"
    return hollow or "missing"


def has_module(folder: str, suffixes: Sequence[str]) -> bool:
    ends = (".py", *suffixes)
    return any(any(n.endswith(ends) for n in names) for _, _, names in os.walk(folder))
