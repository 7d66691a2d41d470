"""Globs for a set of test files: the fewest that cover exactly them (``folder/**`` where a folder is all in).

What each test file needs is the census's job (:mod:`tierlock.census`);
this module only turns the files it settled into ``tests`` globs.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence


def compact(chosen: Iterable[str], files: Sequence[str]) -> list[str]:
    """The fewest globs covering *chosen* (files, or ``folder/**`` globs) among all test *files*.

    A folder whose every test file is chosen becomes ``folder/**`` (the
    outermost such folder); other files are named one by one.
    """
    picked = set()
    folders = []
    for item in chosen:
        if item.endswith("/**") or item == "**":
            folders.append(item[:-3] if item != "**" else "")
        else:
            picked.add(item)
    for folder in folders:
        picked.update(f for f in files if not folder or f.startswith(folder + "/"))
    if "" in folders:
        return ["**"]
    out: list[str] = []
    covered: set[str] = set()
    for file in sorted(picked):
        if file in covered:
            continue
        parts = file.split("/")[:-1]
        best: str | None = None
        for depth in range(1, len(parts) + 1):
            folder = "/".join(parts[:depth])
            inside = [f for f in files if f.startswith(folder + "/")]
            if inside and all(f in picked for f in inside):
                best = folder
                break
        if best is None:
            out.append(file)
            covered.add(file)
        else:
            out.append(f"{best}/**")
            covered.update(f for f in files if f.startswith(best + "/"))
            covered.update(f for f in picked if f.startswith(best + "/"))
    return out


def globs_for(roots: Iterable[str], imports: Mapping[str, frozenset[str]]) -> list[str]:
    """The fewest globs covering the test files (keys of *imports*) that need any of *roots*."""
    wanted = set(roots)
    return compact([f for f, needed in imports.items() if needed & wanted], sorted(imports))
