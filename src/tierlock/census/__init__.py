"""The census: which test files need which tier, read statically (never importing them).

The parts, each readable on its own:

* :mod:`.filefacts` — one file read with :mod:`ast`: imports (guarded or not),
  availability flags, mark aliases, tests, fixtures and helpers;
* :mod:`.firstparty` — through the project's own modules: what importing one
  needs, and what a name imported from one stands for;
* :mod:`.fixtures` — what a test needs through the fixtures it requests
  (looked up as pytest does) and the helpers it calls;
* :mod:`.attribute` — each file's uses, and each tier's report, attributed
  to the smallest tier that provides the root;
* :mod:`.remedy` — the findings ``tierlock check`` reports, with their fix;
* :mod:`.cache` and :mod:`.tree` — the per-file cache and the disk, both
  injected into :func:`.engine.survey`;
* :mod:`.projectcensus` — a :class:`tierlock.tiers.Project`'s census.

What stays out of static reach (a fixture looked up by a name computed at run
time, ``pytest_generate_tests`` choosing backends, a decoder the library
picks by itself) is left to the pytest plugin, which attributes at run time
any skip or import error naming an absent tier's root.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence

from tierlock.census.cache import CACHE_KEY, CensusCache, FolderCache, Memo
from tierlock.census.engine import DEFAULT_PATHS, DEFAULT_PATTERNS, survey
from tierlock.census.filefacts import FileFacts, read_file
from tierlock.census.projectcensus import accept_table, census_tiers, import_paths, project_census, pytest_settings
from tierlock.census.report import Census, CensusTier, Finding, TierReport, Use
from tierlock.census.tree import SKIP_DIRS, DiskTree, Tree, walk

__all__ = [
    "CACHE_KEY",
    "DEFAULT_PATTERNS",
    "SKIP_DIRS",
    "Census",
    "CensusCache",
    "CensusTier",
    "DiskTree",
    "FileFacts",
    "Finding",
    "FolderCache",
    "TierReport",
    "Tree",
    "Use",
    "accept_table",
    "census",
    "census_tiers",
    "import_paths",
    "project_census",
    "pytest_settings",
    "read_file",
    "root_tier",
    "survey",
    "walk",
]


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
