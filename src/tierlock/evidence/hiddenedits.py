"""Edits ``git status`` does not show: tracked files marked assume-unchanged or skip-worktree.

``git update-index --assume-unchanged PATH`` (or ``--skip-worktree``, the flag a sparse checkout
sets) tells git never to look at PATH's file again: ``git status`` and ``git stash`` pass an edited
one by in silence. A run over such an edit tests content no commit holds, so the tree as it stands
is not HEAD's tree. Each flagged file is compared with its index entry here (hashed by git, with
the path's filters, so line endings and clean filters count as git counts them); one that differs,
is gone, or is no longer a file of its kind is an uncommitted change. A skip-worktree file that is
absent from a sparse checkout (``core.sparseCheckout``) is the sparse checkout's, not a change.

Only the standard library and :mod:`tierlock.evidence.gitcall`: ``tierlock verified`` reads it.
"""

from __future__ import annotations

import hashlib
import os
import stat

from tierlock.evidence.gitcall import run_git

#: Paths hashed by one ``git hash-object`` call.
BATCH = 500


def _flagged(top: str, spec: list[str]) -> list[tuple[bool, str, str, str]]:
    """(skip-worktree, mode, index oid, path) of every index entry git status does not look at."""
    status, out, _ = run_git(top, "ls-files", "-z", "-v", "-s", *spec)
    if status != 0:
        return []  # (git status, run beside this, says what is wrong with the checkout)
    flagged = []
    for entry in out.decode("utf-8", "surrogateescape").split("\0"):
        tag = entry[:1]
        if not (tag.islower() or tag == "S"):  # lower case: assume-unchanged; S: skip-worktree
            continue
        meta, _, path = entry.partition("\t")
        fields = meta.split(" ")
        if len(fields) == 4 and path:
            flagged.append((tag in "Ss", fields[1], fields[2], path))
    return flagged


def _sparse(top: str) -> bool:
    status, out, _ = run_git(top, "config", "--bool", "core.sparseCheckout")
    return status == 0 and out.strip() == b"true"


def _link_oid(target: bytes, oid: str) -> str:
    name = "sha256" if len(oid) == 64 else "sha1"
    return hashlib.new(name, b"blob %d\0" % len(target) + target).hexdigest()


def _hashed(top: str, paths: list[str]) -> dict[str, str]:
    """The blob id git would store for each regular file of *paths* (none for a batch git cannot hash)."""
    oids: dict[str, str] = {}
    for at in range(0, len(paths), BATCH):
        batch = paths[at : at + BATCH]
        status, out, _ = run_git(top, "hash-object", "--", *batch)
        lines = out.decode("ascii", "replace").split()
        if status == 0 and len(lines) == len(batch):
            oids.update(zip(batch, lines, strict=True))
    return oids


def hidden(top: str, spec: list[str]) -> list[str]:
    """The flagged files of the checkout at *top* (within the pathspec *spec*) that differ from the index."""
    flagged = _flagged(top, spec)
    if not flagged:
        return []
    changed: list[str] = []
    files: list[tuple[str, str]] = []
    sparse: bool | None = None
    for skip, mode, oid, path in flagged:
        full = os.path.join(top, path)
        try:
            info = os.lstat(full)
        except OSError:
            if skip and (sparse := _sparse(top) if sparse is None else sparse):
                continue
            changed.append(path)
            continue
        if mode == "160000":  # a submodule: git status looks at it
            continue
        if mode == "120000":
            if not stat.S_ISLNK(info.st_mode) or _link_oid(os.fsencode(os.readlink(full)), oid) != oid:
                changed.append(path)
        elif stat.S_ISREG(info.st_mode):
            files.append((path, oid))
        else:
            changed.append(path)
    oids = _hashed(top, [path for path, _ in files])
    changed.extend(path for path, oid in files if oids.get(path) != oid)
    return sorted(changed)


def reveal(top: str, paths: list[str]) -> list[list[str]]:
    """The git commands that clear the flags of *paths*, so git status and git stash see their edits (one
    ``update-index`` call clears one kind of flag: it stops at the first it is given)."""
    return [
        ["git", "-C", top, "update-index", flag, "--", *paths]
        for flag in ("--no-skip-worktree", "--no-assume-unchanged")
    ]
