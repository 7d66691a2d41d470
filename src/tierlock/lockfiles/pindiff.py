"""Pin changes between two locks of a tier: ``+scipy 1.14.1``, ``-six 1.16.0``, ``numpy 2.1.0 -> 2.2.0`` (pure)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from packaging.version import Version

from tierlock.lockfiles import pylock, requirements
from tierlock.lockfiles.digest import body_digest
from tierlock.lockfiles.fileread import format_of
from tierlock.lockfiles.header import parse_comment
from tierlock.lockfiles.locks import Lock, LockEntry


def changes(path: Path, previous: bytes | None, body: str, entries: Sequence[LockEntry]) -> list[str]:
    """The pin changes against the *previous* file's bytes (not parsed when its body digest equals *body*)."""
    if previous is None:
        return pin_changes(None, entries)
    try:
        text = previous.decode("utf-8-sig")
    except UnicodeDecodeError:
        return pin_changes(None, entries)
    if format_of(path) == "pylock":
        return pin_diff(pylock.parse(text).entries, entries)
    lines = requirements.split_lines(text)
    if body_digest(lines[parse_comment(lines)[1] :]) == body:
        return []  # the same body: the same pins
    return pin_diff(requirements.parse(text).entries, entries)


def pin_changes(previous: Lock | None, entries: Sequence[LockEntry]) -> list[str]:
    """The pin changes from *previous* to *entries*: ``+name v``, ``-name v``, ``name a -> b``."""
    return pin_diff(previous.entries if previous is not None else (), entries)


def pin_diff(before_entries: Sequence[LockEntry], entries: Sequence[LockEntry]) -> list[str]:
    def pins(items: Sequence[LockEntry]) -> dict[str, list[str]]:
        out: dict[str, set[Version]] = {}
        for entry in items:
            out.setdefault(entry.name, set()).add(entry.version)
        return {name: [str(v) for v in sorted(versions)] for name, versions in out.items()}

    new = pins(entries)
    old = pins(before_entries)
    found: list[str] = []
    for name in sorted(set(old) | set(new)):
        before, after = old.get(name), new.get(name)
        if before == after:
            continue
        if before is None:
            found.append(f"+{name} {', '.join(after or ())}")
        elif after is None:
            found.append(f"-{name} {', '.join(before)}")
        else:
            found.append(f"{name} {', '.join(before)} -> {', '.join(after)}")
    return found
