"""The git side of evidence: which checkout, commit and tree, and whether it is clean.

Every git call is a short ``git -C TOP ...`` without a shell, and without the
optional index lock (``GIT_OPTIONAL_LOCKS=0``), so two runs on one checkout
never trip over each other's ``git status``.
"""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

from tierlock.evidence.gitcall import STATUS, evidence_pathspec, parse_status, run_git
from tierlock.evidence.hiddenedits import hidden


class GitUnavailable(Exception):
    """git is not installed, or the folder is not in a repository."""


class Checkout(NamedTuple):
    """A git working tree: its top folder, its own git dir, and what HEAD holds."""

    top: Path
    git_dir: Path
    """This working tree's git dir (``.git``, or ``.git/worktrees/NAME`` in a linked worktree)."""
    commit: str | None
    """HEAD's commit, or None in a repository without commits."""
    tree: str | None
    """HEAD's tree id, or None in a repository without commits."""


def git(top: Path, *args: str, check: bool = True) -> str:
    """The stdout of ``git -C TOP ARGS`` (raises :class:`GitUnavailable` when it fails and *check*)."""
    status, out, err = run_git(str(top), *args)
    if status == 127 and not out:
        raise GitUnavailable(f"git cannot be run: {err.decode(errors='replace').strip()}")
    if check and status != 0:
        message = err.decode(errors="replace").strip()
        raise GitUnavailable(message or f"git {' '.join(args)} failed (exit {status})")
    return out.decode("utf-8", errors="surrogateescape")


def _oid(text: str) -> bool:
    return len(text) >= 40 and all(c in "0123456789abcdef" for c in text)


def find(start: Path) -> Checkout | None:
    """The checkout holding *start*, or None outside a git repository (or without git)."""
    try:
        out = git(
            start, "rev-parse", "--show-toplevel", "--absolute-git-dir", "HEAD^{commit}", "HEAD^{tree}", check=False
        )
    except GitUnavailable:
        return None
    lines = out.splitlines()
    if len(lines) < 2 or not Path(lines[0]).is_absolute() or not Path(lines[1]).is_absolute():
        return None
    top, git_dir = Path(lines[0]), Path(lines[1])
    if len(lines) == 4 and _oid(lines[2]) and _oid(lines[3]):
        return Checkout(top, git_dir, lines[2], lines[3])
    return Checkout(top, git_dir, None, None)


def changes(top: Path, not_checked: list[str] | None = None) -> list[str]:
    """Paths that differ from HEAD: modified, staged, deleted, or untracked and not ignored (also edits of files
    flagged assume-unchanged or skip-worktree, which git status does not show)."""
    return status(top, not_checked)[1]


def pathspec(not_checked: list[str] | None) -> list[str]:
    """The pathspec of the whole tree but what tierlock writes in the evidence folders *not_checked*."""
    return evidence_pathspec(not_checked)


def status(top: Path, not_checked: list[str] | None = None) -> tuple[str | None, list[str]]:
    """(HEAD's commit, the paths that differ from it) from one ``git status``; *not_checked*: evidence folders."""
    commit, paths, _ = parse_status(git(top, *STATUS, *pathspec(not_checked)))
    paths.extend(path for path in hidden(str(top), pathspec(not_checked)) if path not in paths)
    return commit, paths


def changed_submodules(top: Path, not_checked: list[str] | None = None) -> list[str]:
    """The submodules whose checkout differs from HEAD's record (a file edited or untracked, the commit moved)."""
    return parse_status(git(top, *STATUS, *pathspec(not_checked)))[2]


def resolve(top: Path, ref: str) -> str | None:
    """The commit *ref* names, or None."""
    out = git(top, "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}", check=False).strip()
    return out or None


def tree_diff(top: Path, old: str, new: str) -> list[str] | None:
    """Paths that differ between two trees (None when git cannot tell, e.g. a pruned tree)."""
    try:
        out = git(top, "diff-tree", "-r", "-z", "--name-only", "--no-renames", old, new)
    except GitUnavailable:
        return None
    return [p for p in out.split("\0") if p]


def relative(top: Path, path: Path) -> str | None:
    """*path* relative to *top* in git's spelling, or None when it lies outside."""
    try:
        return path.resolve().relative_to(top.resolve()).as_posix()
    except ValueError:
        return None
