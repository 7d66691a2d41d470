"""The record of a failed ``install-tier``, kept in the target so ``status`` can say what went wrong.

``<prefix>/tierlock/failures/<tier>.json`` holds, per tier of the failed run,
when it failed, the error (message, package, what a build lacked) and its
remedy. A later successful install of the tier deletes it. Writing never
fails the command: a record that cannot be written is only a lost note.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping, Sequence
from contextlib import suppress
from pathlib import Path
from typing import Any

from tierlock.installer.fastpath import FAILURES_DIR  # (one definition: the fast path reads it too)

#: The ``step`` of a failure to install the packages of the project's tree (the tiers' own packages are in).
PROJECT_STEP = "project-tree"


def failure_path(prefix: Path, tier: str) -> Path:
    return prefix.joinpath(*FAILURES_DIR, f"{tier}.json")


def write(prefix: Path, tiers: Sequence[str], error: Mapping[str, Any], *, step: str | None = None) -> None:
    """Record *error* (a ``TierlockError.to_dict()``) as the last install failure of each of *tiers*; *step*:
    :data:`PROJECT_STEP` when it failed installing the project's tree (after the tiers' packages were in)."""
    document: dict[str, Any] = {
        "tiers": list(tiers),
        "failed_at": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "error": dict(error),
    }
    if step is not None:
        document["step"] = step
    text = json.dumps(document, indent=2) + "\n"
    for tier in tiers:
        path = failure_path(prefix, tier)
        with suppress(OSError):
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")


def read(prefix: Path, tier: str) -> dict[str, Any] | None:
    """The last install failure recorded for *tier*, or None (none, or unreadable)."""
    try:
        document = json.loads(failure_path(prefix, tier).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(document, dict) or not isinstance(document.get("error"), dict):
        return None
    return document


def clear(prefix: Path, tiers: Sequence[str]) -> None:
    """Forget the recorded failures of *tiers* (they were just installed)."""
    for tier in tiers:
        with suppress(OSError):
            failure_path(prefix, tier).unlink(missing_ok=True)
