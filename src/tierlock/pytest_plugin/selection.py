"""What the run selects, weighed against the tiers: gated files, named tests, census importers.

:func:`weigh` fills a :class:`~tierlock.pytest_plugin.gate.Gate` before
collection: per tier the selected test files its globs match, the tests named
with ``file.py::test`` inside gated files, and (only when a tier is not
present) the census of the selection -- files that import the tier's roots,
mark tests ``tier(...)`` or use a conftest fixture that needs it. A strict run
fails closed only on a required tier the selection needs.
"""

from __future__ import annotations

import fnmatch
import os
import re
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from tierlock.census import CensusCache
    from tierlock.pytest_plugin.gate import Gate

_SKIP_DIRS = {"__pycache__", "node_modules", "site-packages"}
#: The plugin's census cache entry (its words are the missing tiers' roots, not every tier's as in ``check``).
CACHE_KEY = "tierlock/census-pytest"


def patterns(config: pytest.Config) -> list[str]:
    value = config.getini("python_files")
    return [str(v) for v in value] if isinstance(value, list) else ["test_*.py", "*_test.py"]


def is_test_file(name: str, pats: Sequence[str]) -> bool:
    return name.endswith(".py") and any(fnmatch.fnmatch(name, p) for p in pats)


def walked(name: str) -> bool:
    """Whether the counts walk into a folder of this name (pytest does not recurse into dot folders either)."""
    return not name.startswith(".") and name not in _SKIP_DIRS


def test_files(folder: Path, pats: Sequence[str]) -> list[Path]:
    out: list[Path] = []
    for dirpath, dirnames, filenames in os.walk(folder):
        dirnames[:] = [d for d in dirnames if walked(d)]
        out.extend(Path(dirpath, f) for f in filenames if is_test_file(f, pats))
    return out


def selection(config: pytest.Config, file_or_dir: Sequence[str]) -> tuple[list[str], list[tuple[str, str]]]:
    """(the selected paths, absolute; the ``(path, rest)`` of arguments naming tests with ``::``).

    Without arguments pytest collects ``testpaths`` (when run from the
    rootdir) or the invocation folder; so does this.
    """
    base = config.invocation_params.dir
    args = [str(a) for a in file_or_dir if not str(a).startswith("-")]
    named: list[tuple[str, str]] = []
    paths: list[str] = []
    for arg in args:
        head, sep, rest = arg.partition("::")
        full = os.path.abspath(base / head)
        paths.append(full)
        if sep and rest:
            named.append((full, rest))
    if not paths:
        testpaths = config.getini("testpaths") if base == config.rootpath else []
        import glob

        for entry in testpaths or []:
            paths.extend(os.path.abspath(p) for p in sorted(glob.glob(str(config.rootpath / str(entry)))))
        if not paths:
            paths.append(str(base))
    return paths, named


def _stem(glob_text: str) -> str:
    """The glob's text before its first wildcard, less a leading ``./`` only (``.brain/**`` starts in ``.brain``)."""
    text = re.sub(r"^(?:\./)+", "", glob_text.replace("\\", "/").strip())
    return re.split(r"[*?\[]", text, maxsplit=1)[0].rstrip("/")


def _inside(path: str, folders: Sequence[str]) -> bool:
    return any(path == f or path.startswith(f.rstrip(os.sep) + os.sep) for f in folders)


def globbed_files(root: Path, globs: Sequence[str], paths: Sequence[str], pats: Sequence[str]) -> set[str]:
    """Test files of the selection (*paths*) that *globs* match, walking only below the globs' folders."""
    from tierlock.tiers.globs import matches

    found: set[str] = set()
    for glob_text in globs:
        start = root / _stem(glob_text)
        while not start.exists() and start != root:
            start = start.parent
        candidates = [start] if start.is_file() else test_files(start, pats)
        for path in candidates:
            text = str(path)
            rel = path.relative_to(root).as_posix()
            if matches(rel, globs) and _inside(text, paths) and is_test_file(path.name, pats):
                found.add(text)
    return found


def weigh(
    gate: Gate, config: pytest.Config, text: str, file_or_dir: Sequence[str], cache: CensusCache | None = None
) -> None:
    """Fill *gate*'s counts for this run's selection, and the tiers a strict run fails closed on.

    *cache* keeps the census's per-file facts (by size and mtime) between runs.
    """
    root = Path(gate.root)
    pats = patterns(config)
    paths, named = selection(config, file_or_dir)
    gate.selection = paths
    named_files = {p for p, _ in named}
    whole = [p for p in paths if p not in named_files]
    tiers_globs = {t: g for t, g in gate.globs.items() if g}
    kept_out: set[str] = set()
    for tier, globs in tiers_globs.items():
        files = globbed_files(root, globs, paths, pats)
        gate.globbed[tier] = len(files)
        if tier in gate.gated:
            kept_out.update(f for f in files if _inside(f, whole) and f not in named_files)
    gate.expected = len(kept_out)  # a file two missing tiers gate is one file
    gate.named = sum(1 for path, _ in named if _rel_tier(gate, root, path) is not None)
    missing = [t for t, state in gate.states.items() if state != "present"]
    if missing:
        _census(gate, root, text, paths, pats, globs=tiers_globs, cache=cache)
    gate.failing = [
        t for t in gate.required if t in missing and gate.strict and (gate.globbed.get(t, 0) or gate.needed.get(t, 0))
    ]


def _rel_tier(gate: Gate, root: Path, path: str) -> str | None:
    try:
        rel = Path(path).relative_to(root).as_posix()
    except ValueError:
        return None
    return gate.tier_of(rel)


def _census(
    gate: Gate,
    root: Path,
    text: str,
    paths: Sequence[str],
    pats: Sequence[str],
    *,
    globs: dict[str, list[str]],
    cache: CensusCache | None,
) -> None:
    """The census of the selection for the tiers that are not present (imports, importorskip, markers, fixtures)."""
    import tomllib

    from tierlock.census import CensusTier, census
    from tierlock.remedies import layers_from_pyproject
    from tierlock.tiers.globs import matches

    try:
        gate.layers = layers_from_pyproject(tomllib.loads(text))
    except tomllib.TOMLDecodeError:
        gate.layers = {}
    # No ``covered_by`` (the tiers layered on each): it only sorts a tier's importers into covered and
    # uncovered, and the plugin counts both alike.
    tiers = [CensusTier(t, tuple(gate.roots.get(t, ())), tuple(globs.get(t, ()))) for t in gate.states]
    folders = []
    for path in paths:
        try:
            folders.append(os.path.relpath(path, root))
        except ValueError:
            continue
    missing = [t for t in gate.states if t in gate.roots]
    result = census(
        root, tiers, folders=folders, patterns=pats, report=missing, walk_globs=False, cache=cache, cache_key=CACHE_KEY
    )
    for tier in missing:
        files = {f for f in result.importer_files(tier) if not matches(f, globs.get(tier, ()))}
        gate.needed[tier] = len(files)
