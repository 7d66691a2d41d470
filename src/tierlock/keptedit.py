"""A kept answer of ``check`` or ``admit`` after a test file the census alone read changed (:mod:`tierlock.keptrun`).

The changed files are read again as the census reads them (:mod:`tierlock.census.summary`): the same facts,
and the answer holds. Else, when what the census's result shows of each (its tests and their lines) is as it
was, the census is worked out again from the facts kept apart (:mod:`tierlock.census.rerun`): the same
result, and the answer holds too. Loaded only when such a file changed.
"""

from __future__ import annotations

import marshal
import os

from tierlock.keptnote import unpacked

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any


def changed_hold(
    changed: list[tuple[str, Any, Any]],
    sig: Callable[[str], tuple[int, ...]],
    rerun: Callable[[], dict[str, Any] | None],
    seen: list[Any] | None,
) -> bool:
    """Whether the kept answer holds though the files of *changed* (``(path, readings, what the result showed)``
    of each) changed (see the module's docstring); *rerun* gives the facts kept apart. *seen* gets ``(how,
    {path: identity})``."""
    from tierlock.census.summary import facts_hold, shown_holds

    paths = [path for path, _calls, _shown in changed]
    if all(facts_hold(path, calls) for path, calls, _shown in changed):
        if seen is not None:
            seen.append(("facts", {path: sig(path) for path in paths}))
        return True
    if not all(shown is None or shown_holds(path, calls, shown) for path, calls, shown in changed):
        return False  # a test added, renamed or moved: the census's result names it, so it changed
    data = rerun()
    if data is None:
        return False
    from tierlock.census.rerun import surveys_hold

    if seen is not None:
        seen.append(("census", {path: sig(path) for path in paths}))
    return surveys_hold(data["surveys"], data["calls"], set(paths))


class Decoded:
    """Path -> what the census took from a file at each reading (kept apart as ``marshal`` bytes per file: one
    changed test file worked out alone needs the facts of the few files it reaches), decoded when asked for."""

    def __init__(self, raw: dict[str, Any]) -> None:
        self.raw = raw
        self.done: dict[str, Any] = {}

    def get(self, path: str, default: Any = None) -> Any:
        found = self.done.get(path)
        if found is None:
            raw = self.raw.get(path)
            if raw is None:
                return default
            found = marshal.loads(raw) if isinstance(raw, bytes) else raw
            if isinstance(found, list):  # (a reading a kept census result told: its own bytes, inside the file's)
                found = [marshal.loads(call) if isinstance(call, bytes) else unpacked(call) for call in found]
            self.done[path] = found
        return found

    def keys(self) -> Any:
        return self.raw.keys()


def refreshed(entry: dict[str, Any], changed: dict[str, tuple[int, ...]]) -> None:
    """Make *entry* (to be kept again) hold the *changed* test files (each gave the census the same facts) known
    by the identity each had when it was checked, in the entry's table and in the folders scanned, so the next
    run need not read them again. Their digest is dropped: bytes written since the check have another
    identity, and are then read and their facts taken again."""
    summaries = entry["summaries"]
    for name, sig in changed.items():
        summaries[name] = (sig, None, *summaries[name][2:])
        if name in entry["stats"]:
            entry["stats"][name] = sig
    for folder_path, was in entry["scans"].items():
        if isinstance(was, tuple):
            entry["scans"][folder_path] = tuple(
                (name, changed.get(os.path.join(folder_path, name), sig)) for name, sig in was
            )


def parts_refreshed(entry: dict[str, Any], changed: dict[str, tuple[int, ...]]) -> None:
    """Make *entry* (to be kept again) hold each pyproject.toml of *changed* (its parts read again were the same)
    by the identity it had when they were read, in the files read, its look-ups and the folder scanned, so the
    next run need not parse it. Its digest is dropped: bytes written since have another identity, and their
    parts are then read again. A look-up kept of another kind (a symlink's own) stays as it was."""
    for name, sig in changed.items():
        entry["files"][name] = (sig, None)
        for table in ("stats", "lstats"):
            was = entry[table].get(name)
            if was is not None and was[0] == sig[0]:
                entry[table][name] = sig
        folder_path, base = os.path.split(name)
        was = entry["scans"].get(folder_path)
        if isinstance(was, tuple):
            entry["scans"][folder_path] = tuple(
                (item, sig if item == base and found[0] == sig[0] else found) for item, found in was
            )
