"""The cwd rule against a real checkout (RC015, RC016): symlinks followed.

The only part of the validator that looks at the filesystem besides reading
the config. Each distinct (repository, cwd) pair is resolved once, so a
config of 10,000 commands that share a few folders costs a few ``realpath``
calls, not 10,000.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from tierlock.validators.results import Finding
from tierlock.validators.rules import Repo, commands, lexical_escape, repo_of, repositories, scope_problem
from tierlock.validators.text import js_trim


def find_checkout(config_dir: Path) -> Path:
    """The git top level that holds *config_dir*, else *config_dir* itself."""
    start = config_dir.resolve()
    for folder in (start, *start.parents):
        if (folder / ".git").exists():
            return folder
    return start


def _within(path: str, root: str) -> bool:
    """*path* is *root* or inside it: compared by whole components (``/repo-evil`` is not inside ``/repo``)."""
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def _real(path: str) -> str | None:
    """*path* with symlinks resolved, or None when it cannot be a path (NUL, unencodable text)."""
    if "\x00" in path:
        return None
    try:
        return os.path.realpath(path)
    except (ValueError, OSError, UnicodeError):
        return None


def _symlink_in(root: str, scope: str) -> str | None:
    """The first folder of *scope* (below *root*) that is a symlink, or None."""
    current = root
    for part in scope.replace("\\", "/").split("/"):
        current = os.path.join(current, part)
        try:
            if os.path.islink(current):
                return current
        except (ValueError, OSError):
            return None
    return None


def check(document: Any, *, checkout: Path, config_dir: Path) -> list[Finding]:
    """Findings of the cwd rule with the checkout on disk."""
    out: list[Finding] = []
    top = os.path.realpath(checkout)
    repos = repositories(document) or None  # an empty list runs every command in the checkout root
    roots = _repository_roots(repos, config_dir, top, out) if repos is not None else {}
    out += _cwd_findings(document, repos, roots, top)
    return out


def _repository_roots(
    repos: list[Repo], config_dir: Path, top: str, out: list[Finding]
) -> dict[str, tuple[str, list[str]]]:
    """Repo id -> its real folder and real scope folders; a finding in *out* for each that is wrong."""
    roots: dict[str, tuple[str, list[str]]] = {}
    seen_roots: dict[str, int] = {}
    for repo in repos:
        if repo.id in roots or lexical_escape(repo.path) == "is an absolute path; it must be relative":
            continue
        root = _real(os.path.join(config_dir, repo.path))
        if root is None:
            continue  # the schema reports a NUL; nothing else can be resolved
        found = _root_finding(repo.index, root, top, seen_roots)
        if found is not None:
            out.append(found)
        seen_roots.setdefault(root, repo.index)
        roots[repo.id] = (root, _real_scopes(repo, root, out))
    return roots


def _root_finding(index: int, root: str, top: str, seen_roots: dict[str, int]) -> Finding | None:
    where = ("repositories", index, "path")
    if not _within(root, top):
        return Finding("RC016", where, "leaves the checkout (symlinks followed)")
    if not os.path.isdir(root):
        return Finding("RC016", where, "is not an existing folder in the checkout")
    if root in seen_roots:
        first = seen_roots[root]
        message = f"is the same folder as repositories[{first}] once symlinks are followed"
        return Finding("RC016", where, message, related=("repositories", first, "path"))
    return None


def _real_scopes(repo: Repo, root: str, out: list[Finding]) -> list[str]:
    """The real folders of *repo*'s scope; a finding in *out* for each that is a symlink, leaves or is missing."""
    scopes: list[str] = []
    for i, scope in enumerate(repo.scope):
        if scope_problem(scope) or not js_trim(scope):
            continue  # reported by the lexical rule or the schema
        real = _real(os.path.join(root, scope))
        if real is None:
            continue
        where = ("repositories", repo.index, "scope", i)
        if _symlink_in(root, scope) is not None:
            out.append(Finding("RC015", where, "scope folder is (or goes through) a symlink; name the real folder"))
        elif not _within(real, root):
            out.append(Finding("RC015", where, "scope folder leaves its repository (symlinks followed)"))
        elif not os.path.isdir(real):
            out.append(Finding("RC015", where, "scope folder does not exist in the checkout"))
        scopes.append(real)
    return scopes


def _cwd_findings(
    document: Any, repos: list[Repo] | None, roots: dict[str, tuple[str, list[str]]], top: str
) -> list[Finding]:
    """RC015 for each command whose ``cwd`` resolves outside its repository or scope (one verdict per folder)."""
    out: list[Finding] = []
    by_id = {r.id: r for r in repos or []}
    verdicts: dict[tuple[str, str], str | None] = {}
    scopes: list[str]
    for name, index, command in commands(document):
        cwd = command.get("cwd")
        if not isinstance(cwd, str) or not js_trim(cwd) or "\x00" in cwd or lexical_escape(cwd):
            continue
        if repos is None:
            root, scopes, label = top, [], ""
        else:
            owner = repo_of(command, repos, by_id)
            if owner is None or owner.id not in roots:
                continue
            root, scopes = roots[owner.id]
            label = owner.id
        memo = (label, cwd)
        if memo not in verdicts:
            verdicts[memo] = _verdict(root, scopes, cwd, label)
        message = verdicts[memo]
        if message:
            out.append(Finding("RC015", (name, index, "cwd"), message))
    return out


def _verdict(root: str, scopes: list[str], cwd: str, repo: str) -> str | None:
    target = _real(os.path.join(root, cwd))
    owner = f"repository {repo!r}" if repo else "the checkout"
    if target is None:
        return "cannot be resolved as a folder path"
    if not _within(target, root):
        return f"leaves {owner} once symlinks are followed"
    if scopes and not any(_within(target, s) for s in scopes):
        return f"is outside the scope folders of {owner} (symlinks followed)"
    if not os.path.isdir(target):
        return "is not an existing folder in the checkout"
    return None
