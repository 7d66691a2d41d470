"""A file a kept answer holds by what was taken from it rather than by its bytes (:mod:`tierlock.keptrun`).

Two kinds: a test file the census alone read and looked up (kept by the facts it took, read again by
:mod:`tierlock.census.summary`), and a pyproject.toml every reading of which took only the parts an answer
rests on (kept by their fingerprint, read again by :mod:`tierlock.projectparts`). Each may change on disk; its
look-ups (which take only its kind) and its entry in a scanned folder then hold while it is still a file of the
same kind, and what was taken from it decides.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Container
    from typing import Any


def entries_hold(path: str, now: Any, was: Any, loose: Container[str]) -> bool:
    """Whether the entries of the folder at *path* (*now*, as :func:`tierlock.keptrun.scan` gives them) are those
    kept (*was*), each as it was or a file of *loose* still of the same kind (:func:`same_kind`)."""
    if not isinstance(now, tuple) or not isinstance(was, tuple) or len(now) != len(was):
        return False
    for (name, sig_now), (name_was, sig_was) in zip(now, was, strict=True):
        if name != name_was:
            return False
        if sig_now != sig_was and not same_kind(os.path.join(path, name), sig_now, sig_was, loose):
            return False
    return True


def same_kind(path: str, now: tuple[int, ...], was: tuple[int, ...], loose: Container[str]) -> bool:
    """Whether *path*, a file kept by what was taken from it (*loose*: a test file the census alone looked up,
    which takes its kind; a pyproject.toml kept by its parts, whose look-ups find it and take its kind), is
    still a file of the same kind (:func:`tierlock.keptrun.summaries_hold` or :func:`parts_hold` then reads
    it again)."""
    return path in loose and len(now) == len(was) == 6 and now[0] == was[0]


def parts_hold(
    path: str, parts: dict[str, bytes], look: Callable[[str], tuple[int, ...]], seen: list[Any] | None
) -> bool:
    """Whether *path*, a changed file every reading of which took only its parts (:mod:`tierlock.projectparts`:
    loaded only then), has the same parts now; *seen* then gets ``("parts", {path: identity})``."""
    wanted = parts.get(path)
    if wanted is None:
        return False
    from tierlock.projectparts import parts_of

    if parts_of(path) != wanted:
        return False
    if seen is not None:
        seen.append(("parts", {path: look(path)}))
    return True
