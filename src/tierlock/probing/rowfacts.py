"""RECORD's rows turned into the facts a probe checks, from the columns :mod:`tierlock.probing.record` split.

Cheap by design, as the verification after arming meets thousands of rows: the paths are joined to the site
folder's prefix (built once), the sizes converted in C when all are digits, the rare rows (outside the site
folder, compiled, empty fields) found with C-level scans, and one Python pass over the rows (their first parts).
What only a rare probe asks (the modules a distribution provides) is left to
:class:`tierlock.probing.distinfo.DistInfo`'s properties.
"""

from __future__ import annotations

import os
from contextlib import suppress
from itertools import compress, repeat
from typing import TYPE_CHECKING, cast

from tierlock.probing.compiled import is_compiled

if TYPE_CHECKING:
    from tierlock.probing import record
    from tierlock.probing.distinfo import DistInfo

_LEAVES = ("..", "/")
"""How a RECORD path that leaves the site folder starts (``/../`` inside one is looked for in the joined text)."""
_LIBS = (".pyd", ".dll", ".dylib")


def files(facts: DistInfo, columns: record.Columns) -> None:
    """The absolute paths, sizes and kinds of RECORD's rows, from its columns: the paths joined to the site folder's
    once-built prefix, sizes converted in C, one pass over the rows for their first parts; what only a rare
    probe asks (the modules provided, :attr:`DistInfo.loadable`, :attr:`DistInfo.providers`) when it is asked."""
    rels, hashes, sizes_text = columns
    site = facts.site
    prefix = site if site.endswith(os.sep) else site + os.sep
    fulls = [prefix + rel for rel in rels]
    joined = "\n".join(rels)
    leaving = list(compress(range(len(rels)), map(str.startswith, rels, repeat(_LEAVES))))
    if "/../" in joined:
        leaving = sorted({*leaving, *compress(range(len(rels)), map(str.__contains__, rels, repeat("/../")))})
    near = list(rels)  # (what a probe stats from the site folder: each RECORD path, but the rows leaving it)
    for i in leaving:  # console scripts, data files: few rows, found in C
        fulls[i] = near[i] = os.path.normpath(os.path.join(site, rels[i]))
        facts.outside.append(rels[i])
    recorded = sizes(sizes_text)
    facts.records = tuple(zip(fulls, rels, recorded, blanks(hashes), strict=True))
    facts.rels = rels
    facts.heads = heads(rels)
    at = compiled_rows(rels, joined)
    facts.compiled = tuple((fulls[i], rels[i]) for i in at)
    checked(facts, fulls, recorded, at, near)


def compiled_rows(rels: list[str], joined: str) -> list[int]:
    """Which rows name compiled files: each ``.so`` found in the rows *joined* by newlines (in C), its row counted
    from the newlines before it; row by row when a ``.pyd``, ``.dll`` or ``.dylib`` is there or a path holds a
    newline."""
    if any(lib in joined for lib in _LIBS) or joined.count("\n") != len(rels) - 1:
        return [i for i, rel in enumerate(rels) if (".so" in rel or rel.endswith(_LIBS)) and is_compiled(rel)]
    out: list[int] = []
    row = last = 0
    found = joined.find(".so")
    while found >= 0:
        start = joined.rfind("\n", 0, found) + 1
        row += joined.count("\n", last, start)
        last = start
        if is_compiled(rels[row]):
            out.append(row)
        end = joined.find("\n", found)
        found = joined.find(".so", end) if end >= 0 else -1
    return out


def checked(facts: DistInfo, fulls: list[str], sizes: list[int | None], at: list[int], near: list[str]) -> None:
    """The paths a probe stats and their sizes: the compiled files (rows *at*) apart, their identity kept for the
    shared-library check; the others but METADATA and RECORD, whose identity is the folder's key (a recorded size
    of theirs is compared here, once, with the size they had when read). *near*: the same rows as the probe may
    look them up from the site folder (:attr:`DistInfo.near`)."""
    resized: list[tuple[int, str]] = []
    excluded: list[str] = []
    gaps = list(at)
    for own, stamp in zip(facts.own, facts.key[1:3], strict=True):
        if not isinstance(stamp, tuple):
            continue
        found = places(fulls, own)
        gaps += found
        if found:
            excluded.append(own)
        resized += [
            (i, f"{facts.rels[i]} ({stamp[1]} bytes, RECORD says {sizes[i]})")
            for i in found
            if sizes[i] not in (None, stamp[1])
        ]
    facts.meta_resized = max(resized)[1] if resized else None
    facts.excluded = tuple(excluded)
    facts.compiled_sizes = tuple(sizes[i] for i in at)
    facts.watched = (facts.path, *facts.own, *(fulls[i] for i in at))
    if gaps:
        keep = [True] * len(fulls)
        for i in gaps:
            keep[i] = False
        fulls, sizes, near = list(compress(fulls, keep)), list(compress(sizes, keep)), list(compress(near, keep))
    facts.paths = tuple(fulls)
    facts.near = tuple(near)
    facts.sizes = None if None in sizes else cast("list[int]", sizes)


def places(values: list[str], wanted: str) -> list[int]:
    """Where *wanted* is in *values* (each found in C)."""
    out: list[int] = []
    with suppress(ValueError):
        while True:
            out.append(values.index(wanted, out[-1] + 1 if out else 0))
    return out


def sizes(texts: list[str]) -> list[int | None]:
    """RECORD's sizes as numbers (None where it gives none, or no number): converted in C when all are digits."""
    present = list(filter(None, texts))
    if not "".join(present).isdecimal() and present:
        return [int(text) if text.isdecimal() else None for text in texts]
    out: list[int | None] = list(map(int, present))
    for i in places(texts, ""):  # in increasing order: each goes where it was
        out.insert(i, None)
    return out


def blanks(texts: list[str]) -> list[str | None]:
    """*texts* with each empty one None (found in C: RECORD leaves few fields empty)."""
    out: list[str | None] = list(texts)
    for i in places(texts, ""):
        out[i] = None
    return out


def heads(rels: list[str]) -> dict[str, bool]:
    """First parts of RECORD's paths, in order -> whether they are folders (one pass, one slice per row)."""
    out: dict[str, bool] = {}
    for rel in rels:
        cut = rel.find("/")
        if cut < 0:
            out.setdefault(rel, False)
        else:
            out[rel[:cut]] = True
    return out
