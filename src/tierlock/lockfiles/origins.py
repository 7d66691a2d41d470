"""Where a lock's packages come from: registry distributions, and files inside the project (pure).

A lockfile names distributions an index serves (``name==version``, or a file
URL of an index in a pylock) and, for a project's own packages, paths inside
the project. A ``file:`` URL or a path that leads anywhere else
(``file:///tmp/x.whl``, ``../../x.whl``, a symlink out of the project), a file
on another host, or a URL of another scheme is a finding with its line: the
body digest does not vouch for it, since a hand edit can recompute it.

An ``https`` direct reference (``name @ https://…``) is what the project
declared and is left alone.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from tierlock.lockfiles.locks import Lock, LockEntry, LockfileError

if TYPE_CHECKING:
    from tierlock.tiers import Project, Tier

#: URL schemes of registry distributions (an index's files, a declared download).
REGISTRY_SCHEMES = frozenset({"http", "https"})
WHY = "a lock names registry distributions and files inside the project"


def _inside(path: str, root: str) -> bool:
    """Whether *path* (symlinks followed) is *root* or lies under it, comparing whole path components."""
    real, top = os.path.realpath(path), os.path.realpath(root)
    return real == top or real.startswith(top.rstrip(os.sep) + os.sep)


def problem(location: str, *, is_path: bool, base: Path, root: Path) -> str | None:
    """Why *location* (a URL, or with *is_path* a path relative to *base*) is no registry file and no file
    inside *root*, or None."""
    if is_path:
        path = location
    else:
        from urllib.parse import unquote, urlsplit  # (a lock that names a URL: most name versions only)

        parts = urlsplit(location)
        scheme = parts.scheme.lower()
        if scheme in REGISTRY_SCHEMES:
            return None
        if scheme not in ("file", ""):
            return f"names a {scheme}: URL ({location})"
        if scheme == "file" and parts.netloc.lower() not in ("", "localhost"):
            return f"names a file on another host ({location})"
        path = unquote(parts.path if scheme == "file" else location)
    resolved = path if os.path.isabs(path) else os.path.join(base, path)
    if not _inside(resolved, os.fspath(root)):
        return f"names a file outside the project ({location})"
    return None


def _locations(entry: LockEntry) -> Iterator[tuple[str, bool]]:
    if entry.url:
        yield entry.url, False
    for file in entry.files:
        if file.url:
            yield file.url, False
        if file.path:
            yield file.path, True


def outside(lock: Lock, project: Project, remedy: str) -> list[tuple[int | None, str, str]]:
    """(line, what, the fix) of each entry of *lock* that names something other than a registry file or a
    file inside the project.

    The fix is *remedy* (lock the tier again: ``tierlock lock`` writes no such lock), unless the project
    itself declares that location: then the declaration is what to change first.
    """
    return [
        (entry.line, detail, f"{declared_fix(entry.name)}, then run: {remedy}" if declared else remedy)
        for entry, detail, declared in foreign(lock.entries, lock.path.parent, project)
    ]


def foreign(entries: Sequence[LockEntry], base: Path, project: Project) -> list[tuple[LockEntry, str, bool]]:
    """(entry, what, whether the project declares that location) of each entry naming something other
    than a registry file or a file inside the project; paths are read from *base* (the lockfile's folder)."""
    found: list[tuple[LockEntry, str, bool]] = []
    for entry in entries:
        for location, is_path in _locations(entry):
            why = problem(location, is_path=is_path, base=base, root=project.root)
            if why is not None:
                found.append((entry, f"{entry.name} {why}: {WHY}", _declared(project, entry.name, location)))
                break
    return found


def declared_fix(name: str) -> str:
    return f"point {name} at a file inside the project in pyproject.toml"


#: What to do when a backend would lock files outside the project (a wheelhouse elsewhere on the machine).
LOCAL_WHEELS_FIX = "put the wheels inside the project (for example in wheels/) and lock with --find-links wheels"


def refuse_foreign(project: Project, tier: Tier, entries: Sequence[LockEntry], backend: str) -> None:
    """Refuse to write a lock that names files outside the project (a pylock made from a ``--find-links``
    folder elsewhere on the machine): ``tierlock check`` would refuse it, and ``tierlock lock`` must converge."""
    found = foreign(entries, tier.lockfile.parent, project)
    if not found:
        return
    declared = [entry.name for entry, _, is_declared in found if is_declared]
    raise LockfileError(
        f"{backend} would lock {tier.name} to {len(found)} file(s) outside the project; nothing was written",
        file=str(tier.lockfile),
        tier=tier.name,
        detail="\n".join(detail for _, detail, _ in found),
        remedy=declared_fix(declared[0]) if declared else LOCAL_WHEELS_FIX,
    )


def _declared(project: Project, name: str, location: str) -> bool:
    """Whether a tier of *project* names *name* at *location* itself (``name @ file:///…``)."""
    return any(r.url == location and r.name.lower() == name for t in project.tiers.values() for r in t.requirements)


__all__: Sequence[str] = [
    "LOCAL_WHEELS_FIX",
    "REGISTRY_SCHEMES",
    "WHY",
    "declared_fix",
    "foreign",
    "outside",
    "problem",
    "refuse_foreign",
]
