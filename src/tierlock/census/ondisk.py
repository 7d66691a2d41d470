"""The census of a project on disk, with its per-file cache (:func:`census`), and a small helper of its reports."""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence

from tierlock.census.cache import CACHE_KEY, CensusCache, Memo
from tierlock.census.engine import DEFAULT_PATHS, DEFAULT_PATTERNS, survey
from tierlock.census.report import Census, CensusTier
from tierlock.census.tree import DiskTree, Tree


def census(
    root: str | os.PathLike[str],
    tiers: Sequence[CensusTier],
    *,
    folders: Sequence[str] = (".",),
    patterns: Sequence[str] = DEFAULT_PATTERNS,
    limit_to: Iterable[str] | None = None,
    report: Iterable[str] | None = None,
    walk_globs: bool = True,
    cache: CensusCache | None = None,
    cache_key: str = CACHE_KEY,
    tree: Tree | None = None,
    paths: Sequence[str] = DEFAULT_PATHS,
) -> Census:
    """The census of the test files below *folders* (relative to *root*) for *tiers*.

    *limit_to* (relative paths) keeps only those test files as importers (a
    pytest run's selection); the globs are still matched against every file.
    *report* names the tiers reported (default: all of *tiers*). With
    *walk_globs* the folders the globs name are read too (a glob can reach
    outside the test paths); the pytest plugin reads only its selection.
    With a *cache* (pytest's cache, or :class:`FolderCache`), a file whose
    size and mtime are unchanged is neither read nor parsed again. *tree*
    gives the files (default: the disk below *root*); *paths* are where the
    project's own modules are imported from.
    """
    memo = Memo(cache.get(cache_key, None) if cache is not None else None)
    result = survey(
        DiskTree(root) if tree is None else tree,
        tiers,
        folders=folders,
        patterns=patterns,
        paths=paths,
        limit_to=limit_to,
        report=report,
        walk_globs=walk_globs,
        memo=memo,
    )
    if cache is not None and result.cache_entry is not None:
        cache.set(cache_key, result.cache_entry)
    return result


def root_tier(roots: Mapping[str, list[str]], root: str, tier: str) -> bool:
    return tier in roots.get(root, ())
