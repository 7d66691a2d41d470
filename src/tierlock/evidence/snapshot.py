"""What a setup run changed: files added, removed and changed in the environment and in the tree.

``tierlock verify --twice`` takes a :func:`take` of the target environment and of the working
tree before and after each setup run; :func:`compare` counts the difference. A file is
changed when its size, modification time, mode or symlink target differ. Left out: the
``.git`` folder, the evidence folder, the environment inside the tree (counted as the
environment), and ``__pycache__`` folders (bytecode caches the interpreter writes on import).
"""

from __future__ import annotations

import os
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tierlock.evidence import MAX_LISTED

Snapshot = dict[str, tuple[int, int, int, str]]
_SKIPPED_NAMES = frozenset({".git", "__pycache__"})


def take(root: Path, skip: Collection[Path] = ()) -> Snapshot:
    """Every file and symlink under *root* (not following symlinks), by path relative to *root*."""
    skipped = {os.path.realpath(p) for p in skip}
    out: Snapshot = {}
    if not root.is_dir():
        return out
    for folder, dirs, files in os.walk(root):
        links = [d for d in dirs if os.path.islink(os.path.join(folder, d))]
        dirs[:] = [
            d
            for d in dirs
            if d not in _SKIPPED_NAMES and d not in links and os.path.realpath(os.path.join(folder, d)) not in skipped
        ]
        for name in [*files, *links]:
            path = os.path.join(folder, name)
            try:
                st = os.lstat(path)
                target = os.readlink(path) if os.path.islink(path) else ""
            except OSError:
                continue
            out[os.path.relpath(path, root).replace(os.sep, "/")] = (st.st_size, st.st_mtime_ns, st.st_mode, target)
    return out


@dataclass(frozen=True)
class Changes:
    """What one setup run changed in one place."""

    added: int
    removed: int
    changed: int
    files: tuple[str, ...]
    """The paths (at most MAX_LISTED)."""

    @property
    def total(self) -> int:
        return self.added + self.removed + self.changed

    def to_dict(self) -> dict[str, Any]:
        return {"added": self.added, "removed": self.removed, "changed": self.changed, "files": list(self.files)}


def compare(before: Mapping[str, object], after: Mapping[str, object]) -> Changes:
    """The files added, removed and changed from *before* to *after*."""
    added = sorted(set(after) - set(before))
    removed = sorted(set(before) - set(after))
    changed = sorted(k for k in set(before) & set(after) if before[k] != after[k])
    files = sorted([*added, *removed, *changed])[:MAX_LISTED]
    return Changes(len(added), len(removed), len(changed), tuple(files))
