"""Which selected test files need a tier that is not present: the census of the selection, before collection.

The census (:func:`tierlock.census.census`) reads the selected files and the
conftest files above them (a fixture defined higher up counts), for the
roots each missing tier owns. A file whose use sits inside a test the run
does not keep (a node id naming another test, ``-k``, ``-m``,
``--deselect``) does not need the tier in this run; a use at module level
needs it whenever any test of the file is kept.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tierlock.pytest_plugin.selection import Selection

if TYPE_CHECKING:
    from tierlock.census import CensusCache

#: What the census says of a need that is a skip without the root (a skip condition, a mark alias, a helper's
#: mark, a conftest hook's mark): ``skipped without brainpkg (...)``, ``@needs('brainpkg') (skipped without ...)``.
_SKIPS = " without "  # (tierlock.census.fixtures.SKIPPED: a fixture that skips says it too)

#: What the census adds to a need that any one of several roots meets (``tries pyarrow; runs with polars too``:
#: :meth:`tierlock.census.firstparty.Reach.either`): the test is that one tier's, and the others are said with it.
_ALSO = re.compile(r"; runs with ([^;()]+) too")

#: The plugin's census cache entry (its words are the missing tiers' roots, not every tier's as in ``check``).
CACHE_KEY = "tierlock/census-pytest"


def _folders(root: Path, selection: Selection) -> list[str]:
    """The selection relative to *root*, with every conftest.py between *root* and a selected path."""
    out: list[str] = []
    for path in selection.paths:
        try:
            rel = os.path.relpath(path, root)
        except ValueError:
            continue
        if rel.startswith(".."):
            continue
        out.append(rel)
        for parent in Path(path).parents:
            if parent != root and root not in parent.parents:
                break
            if (parent / "conftest.py").is_file():
                out.append(os.path.relpath(parent / "conftest.py", root))
    return list(dict.fromkeys(out))


def _basedirs(root: Path, selection: Selection) -> list[str]:
    """For each selected file, the first folder above it without an ``__init__.py`` (relative to *root*): where
    pytest's default import mode puts it on ``sys.path``, so its ``import helpers`` finds the ``helpers.py`` beside
    it, which the census must read when the file alone is selected (a flag set there)."""
    out: list[str] = []
    for path in selection.paths:
        folder = Path(path).parent
        if not Path(path).is_file() or (folder != root and root not in folder.parents):
            continue
        while folder != root and (folder / "__init__.py").is_file():
            folder = folder.parent
        rel = os.path.relpath(folder, root).replace(os.sep, "/")
        out.append("" if rel == "." else rel)
    return list(dict.fromkeys(out))


def needing_files(
    root: Path,
    roots: Mapping[str, Sequence[str]],
    globs: Mapping[str, Sequence[str]],
    selection: Selection,
    cache: CensusCache | None,
) -> tuple[dict[str, set[str]], dict[str, dict[str, str]]]:
    """(tier -> the selected files (relative) outside its globs that need it in this run, tier -> what a skip
    without it skips there: ``file::Class.test`` for a test's own skip condition or mark, ``file`` for its
    ``pytestmark``'s, each with the root it needs).

    *roots*: tier -> the import roots it owns.
    """
    from tierlock.census import DEFAULT_PATHS, CensusTier, census
    from tierlock.tiers.globs import matches

    tiers = [CensusTier(t, tuple(names), tuple(globs.get(t, ()))) for t, names in roots.items()]
    if not tiers:
        return {}, {}
    result = census(
        root,
        tiers,
        folders=_folders(root, selection),
        patterns=selection.patterns,
        report=list(roots),
        walk_globs=False,
        cache=cache,
        cache_key=CACHE_KEY,
        paths=list(dict.fromkeys([*DEFAULT_PATHS, *_basedirs(root, selection)])),
    )
    out: dict[str, set[str]] = {}
    tests: dict[str, dict[str, str]] = {}
    for tier in roots:
        report = result.tier(tier)
        uses = [*report.inside, *report.outside, *report.accepted]
        files: set[str] = set()
        for rel in {u.file for u in uses}:
            if rel.endswith("conftest.py") or matches(rel, globs.get(tier, ())):
                continue
            full = str(root / rel)
            here = [u for u in uses if u.file == rel]
            if selection.selects(full) and _kept(full, here, selection):
                files.add(rel)
                for use in here:
                    if _SKIPS not in use.how:
                        continue  # (an import or a fixture: a skip of it for another reason is not the tier's)
                    key = f"{rel}::{use.test}" if use.test and use.scope == "test" else rel
                    also = _ALSO.search(use.how)
                    needed = f"{use.root} (or {also.group(1)})" if also else use.root
                    tests.setdefault(tier, {}).setdefault(key.replace(os.sep, "/"), needed)
        out[tier] = files
    return out, tests


def _kept(path: str, uses: Sequence[Any], selection: Selection) -> bool:
    """Whether a use of the tier in the file at *path* lies in a test this run keeps."""
    if not selection.narrows(path):
        return True
    kept = selection.kept_items(path)
    if not kept:
        return False
    if any(u.module_level for u in uses):
        return True
    # A use the census ties to a test (``Class.test``; a class's mark reaches each of its tests from the class's own
    # decorator line, inside no test) counts when that test is kept; the others are placed by their line.
    named = {".".join(item.chain) for item in kept}
    if any(u.test in named for u in uses if getattr(u, "test", None)):
        return True
    placed = [u for u in uses if not getattr(u, "test", None)]
    return any(item.spans(u.line) for u in placed for item in kept) or any(
        not any(item.spans(u.line) for item in kept) and _outside_every_test(path, u.line, selection) for u in placed
    )


def _outside_every_test(path: str, line: int, selection: Selection) -> bool:
    """A use in a helper, not in any test: the whole file may need it (conservative)."""
    from tierlock.pytest_plugin.static_items import read_items

    try:
        source = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return True
    items = read_items(source, selection.functions, selection.classes) or []
    return not any(item.spans(line) for item in items)
