"""Helpers for the kept answers of the read-only commands (:mod:`tierlock.keptrun`)."""

from __future__ import annotations

import os
import time
from pathlib import Path

#: A minute back: files not written just now (a run that looked at a file modified within the file
#: system's clock tick is never kept).
OLD = time.time() - 60


def backdate(*roots: Path) -> None:
    """Date every file and folder under *roots* a minute back (symlinks themselves, not their targets)."""
    for root in roots:
        for folder, dirs, names in os.walk(root):
            for name in [*dirs, *names]:
                os.utime(os.path.join(folder, name), (OLD, OLD), follow_symlinks=False)
        os.utime(root, (OLD, OLD))


def entries(cache: Path) -> dict[str, int]:
    """The kept answers in *cache*: file name -> modification time (a replay leaves it, a new record moves it)."""
    return {p.name: p.stat().st_mtime_ns for p in cache.glob("runs-*.marshal")}
