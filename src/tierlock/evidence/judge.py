"""``tierlock verified``: is there a passing, clean, bound receipt for exactly this tree and config?

It runs no command but git's ``rev-parse``, ``status`` (and ``diff-tree`` to name the
files of a stale tree, ``ls-tree`` to find the base's config for ``--config-from``) and
imports only the standard library: a pre-push hook or a publish step calls it.

Receipts are read newest first. A receipt *matches* when its tree is the current commit's
tree, its config file has the same digest now, and (with ``--config-from REF``) it was made
from the config REF holds now, found by the base's own discovery. Runs with ``--only`` or
``--allow-dirty`` never decide. The newest deciding match must have passed without
contradicting itself (:mod:`tierlock.evidence.trust`), been clean at start and end, and its
setup's lockfiles must be unchanged since the setup ran. Then the working tree itself must
have no uncommitted change (modified, staged, deleted, untracked and not ignored), unless
``head`` asks about HEAD alone.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat

from tierlock.evidence import IN_GIT_DIR, MAX_LISTED, RECEIPT, RECEIPT_VERSION, discovery, trust
from tierlock.evidence.answer import Verdict, listed, quote
from tierlock.evidence.gitcall import STATUS, evidence_pathspec, parse_status, run_git
from tierlock.evidence.gitcall import remedy as git_remedy
from tierlock.evidence.hiddenedits import hidden, reveal

# Not ``typing``: it imports ``re``; this module stays on os, json and hashlib (and no pathlib, no subprocess).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator
    from typing import Any

#: The most a config file may hold to be read (:data:`tierlock.fsutil.MAX_BYTES`).
MAX_BYTES = 64 * 1024 * 1024


def _digest(path: str) -> str | None:
    try:
        with open(os.open(path, os.O_RDONLY | os.O_NONBLOCK), "rb") as handle:  # a FIFO is never waited on
            info = os.fstat(handle.fileno())
            if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_BYTES:
                return None
            return "sha256:" + hashlib.sha256(handle.read()).hexdigest()
    except OSError:
        return None


def _git(top: str, *args: str) -> tuple[int, str]:
    """(exit status, stdout) of ``git -C TOP ARGS``."""
    status, out, _ = run_git(top, *args)
    return status, out.decode("utf-8", "replace")


def _oid(text: str) -> bool:
    return len(text) >= 40 and all(c in "0123456789abcdef" for c in text)


def _find(start: str) -> tuple[str, str, str | None, str | None] | None:
    """(top, git dir, HEAD commit, HEAD tree) of the checkout holding *start*, or None."""
    _, out = _git(start, "rev-parse", "--show-toplevel", "--absolute-git-dir", "HEAD^{commit}", "HEAD^{tree}")
    lines = out.splitlines()
    if len(lines) < 2 or not os.path.isabs(lines[0]) or not os.path.isabs(lines[1]):
        return None
    if len(lines) == 4 and _oid(lines[2]) and _oid(lines[3]):
        return lines[0], lines[1], lines[2], lines[3]
    return lines[0], lines[1], None, None


def _receipts(folder: str) -> Iterator[tuple[str, dict[str, Any]]]:
    """(path, receipt) of every finished run in *folder*, newest first (as :func:`store.receipts`)."""
    try:
        names = sorted((e.name for e in os.scandir(folder) if e.is_dir() and not e.name.startswith(".")), reverse=True)
    except OSError:
        return
    for name in names:
        path = os.path.join(folder, name, RECEIPT)
        try:
            with open(path, "rb") as handle:
                document = json.loads(handle.read())
        except (OSError, ValueError):
            continue
        if (
            isinstance(document, dict)
            and document.get("receiptVersion") == RECEIPT_VERSION
            and document.get("result") != "running"
        ):
            yield path, document


def _relative(top: str, path: str) -> str | None:
    real, root = os.path.realpath(path), os.path.realpath(top)
    if real == root or not real.startswith(root.rstrip(os.sep) + os.sep):
        return None
    return os.path.relpath(real, root).replace(os.sep, "/")


def _base_config(top: str, start: str, ref: str) -> tuple[str | None, str | None] | discovery.BaseUnclear | None:
    """(path, blob) of the config *ref* holds, found by the base's discovery; (None, None) without one;
    None when *ref* names no commit; the reason when it cannot be found unambiguously."""
    try:
        _folders, found = discovery.base_at_ref(top, ref, start)
    except LookupError:
        return None
    except discovery.BaseUnclear as unclear:
        return unclear
    return found if found is not None else (None, None)


class _Search:
    """What the receipts are matched against."""

    def __init__(self, top: str, tree: str | None, config_rel: str | None, base: object, start: str | None) -> None:
        self.top = top
        self.tree = tree
        self.config_rel = config_rel
        self.base = base
        """None: no --config-from; else the base's (path, blob), (None, None) when REF has no config."""
        self.start = start
        """Where discovery starts; None with --config (that file is the config, never the base's alone)."""
        self._bare: bool | None = None
        self.digests: dict[str, str | None] = {}

    @property
    def bare(self) -> bool:
        """--config-from found a base config, no --config, and the working tree has no runtime config: a run of the
        base's config alone may match (looked at once, and only for such a receipt: the gate's usual path pays
        nothing)."""
        if self._bare is None:
            found = isinstance(self.base, tuple) and self.base[0] is not None
            self._bare = found and self.start is not None and discovery.on_disk(self.start) is None
        return self._bare

    def matches(self, document: dict[str, Any]) -> bool:
        if document.get("tree") != self.tree or not document.get("bound"):
            return False
        cfg = document.get("config") or {}
        cfg_path = cfg.get("path")
        if cfg_path is None and cfg.get("digest") is None and self.bare:
            return self._from_base(cfg)
        if not isinstance(cfg_path, str) or (self.config_rel is not None and cfg_path != self.config_rel):
            return False
        if cfg_path not in self.digests:
            self.digests[cfg_path] = _digest(os.path.join(self.top, cfg_path))
        if cfg.get("digest") != self.digests[cfg_path]:
            return False
        return self._from_base(cfg)

    def _from_base(self, cfg: dict[str, Any]) -> bool:
        if self.base is None:
            return True
        origin = cfg.get("from") or {}
        return origin.get("ref") is not None and (origin.get("path"), origin.get("blob")) == self.base


def check(
    start: str,
    *,
    config: str | None = None,
    config_from: str | None = None,
    evidence_dir: str | None = None,
    head: bool = False,
    remedy: str = "tierlock verify",
) -> Verdict:
    """The gate's verdict for the checkout holding the folder *start* (*head*: HEAD alone, not the tree)."""
    found = _find(start)
    if found is None:
        return Verdict(
            False,
            "not-a-checkout",
            f"{start} is not inside a git checkout",
            "git init && git add -A && git commit -m 'first commit'",
        )
    top, git_dir, commit, tree = found
    if commit is None:
        return Verdict(False, "no-commit", f"{top} has no commit yet", "git add -A && git commit -m 'first commit'")
    base = Verdict(False, "", "", remedy, commit=commit, tree=tree)
    folder = evidence_dir or os.path.join(git_dir, *IN_GIT_DIR)
    ref_config = None if config_from is None else _base_config(top, start, config_from)
    if config_from is not None and ref_config is None:
        base.reason = "config-from-differs"
        base.message, twin, fetch = discovery.unknown_ref(top, config_from)
        base.remedy = _with_config_from(remedy, config_from, twin) if twin else fetch or base.remedy
        return base
    if isinstance(ref_config, discovery.BaseUnclear):
        base.reason = "config-from-ambiguous"
        base.message = ref_config.message
        if ref_config.fix is not None and config_from is not None:
            base.remedy = _with_config_from(remedy, config_from, f"{ref_config.ref}:{ref_config.fix}")
        return base
    config_rel = _relative(top, config) if config is not None else None
    search = _Search(top, tree, config_rel, ref_config, None if config is not None else start)
    verdict = _search(base, search, folder, config_from)
    if verdict.ok and not head:
        in_git_dir = _relative(git_dir, folder) is not None or os.path.realpath(folder) == os.path.realpath(git_dir)
        return _uncommitted(verdict, top, None if in_git_dir else _relative(top, folder))
    return verdict


def _with_config_from(remedy: str, old: str, new: str) -> str:
    """The verify command *remedy* (:func:`answer.verify_command`) with ``--config-from NEW`` for OLD."""
    return remedy.replace(f"--config-from {quote(old)}", f"--config-from {quote(new)}")


def _search(base: Verdict, search: _Search, folder: str, config_from: str | None) -> Verdict:
    newest: dict[str, Any] | None = None
    undecided: dict[str, Any] | None = None
    for path, document in _receipts(folder):
        newest = newest or document
        if not search.matches(document):
            continue
        if document.get("only") or (document.get("allowDirty") and not (document.get("clean") or {}).get("atStart")):
            undecided = undecided or document
            continue
        return _decide(base, path, document, search.top)
    if undecided is not None:
        base.reason = "dirty"
        base.message = (
            f"the only runs for tree {str(base.tree)[:12]} were partial (--only) "
            "or on a dirty tree (--allow-dirty); neither is evidence"
        )
        base.run_id = undecided.get("runId")
        return base
    if newest is None:
        base.reason = "no-run"
        base.message = f"no run of tierlock verify is recorded in {folder}"
        return base
    return _stale(base, newest, search.top, config_from)


def _uncommitted(verdict: Verdict, top: str, evidence_rel: str | None) -> Verdict:
    """*verdict* (HEAD verified), unless the working tree has uncommitted changes: then not verified, naming them."""
    spec = evidence_pathspec([evidence_rel] if evidence_rel else None)
    status, out = _git(top, *STATUS, *spec)
    _, paths, submodules = parse_status(out) if status == 0 else (None, ["(git status failed)"], [])
    flagged = hidden(top, spec)
    paths.extend(path for path in flagged if path not in paths)
    if not paths:
        return verdict
    steps = reveal(top, flagged) if flagged else []  # git stash passes flagged files by until they are cleared
    steps.extend(git_remedy(top, spec, submodules))
    remedy = " && ".join(" ".join(quote(a) for a in step) for step in steps)
    refused = Verdict(
        False,
        "uncommitted",
        f"{verdict.message}, but the working tree has {len(paths)} uncommitted change(s) ({listed(paths)}): "
        "the tree as it stands was not verified (commit and run tierlock verify, or --head to ask about HEAD alone)",
        remedy,
        commit=verdict.commit,
        tree=verdict.tree,
        receipt=verdict.receipt,
        run_id=verdict.run_id,
    )
    refused.files = paths[: MAX_LISTED * 5]
    return refused


def _stale(base: Verdict, newest: dict[str, Any], top: str, ref: str | None) -> Verdict:
    base.run_id = newest.get("runId")
    if newest.get("tree") != base.tree:
        base.reason = "stale"
        old = newest.get("tree")
        files: list[str] = []
        if isinstance(old, str) and _oid(old):
            status, out = _git(top, "diff-tree", "-r", "-z", "--name-only", "--no-renames", old, str(base.tree))
            files = [p for p in out.split("\0") if p] if status == 0 else []
        base.files = files[: MAX_LISTED * 5]
        what = f"; changed since: {listed(files)}" if files else ""
        if not newest.get("bound"):
            what = " (that run was not bound to a commit)"
        base.message = (
            f"the newest receipt is for tree {str(old)[:12]} (commit {str(newest.get('commit'))[:12]}), "
            f"not the current commit {str(base.commit)[:12]}'s tree{what}"
        )
        return base
    cfg = newest.get("config") or {}
    base.reason = "config-from-differs" if ref is not None else "stale-config"
    if ref is not None and (cfg.get("from") or {}).get("ref") is None:
        base.message = f"the receipts for this tree were not made with --config-from {ref}"
    elif ref is not None:
        base.message = f"the config committed at {ref} changed since the receipt was made"
    elif cfg.get("path") is None:
        base.message = (
            f"the receipts for this tree ran the config of --config-from {(cfg.get('from') or {}).get('ref')} alone "
            "(the working tree has no runtime config): ask with the same --config-from"
        )
    else:
        base.message = f"the runtime config {cfg.get('path')} changed since the newest receipt for this tree"
        base.files = [str(cfg.get("path"))]
    return base


def _not_passed(base: Verdict, path: str, document: dict[str, Any]) -> Verdict:
    result = document.get("result")
    base.reason = result if result in ("failed", "blocked", "interrupted") else "failed"
    failing = [c.get("key") or c.get("command") for c in document.get("commands", []) if c.get("status") != "passed"]
    which = f" ({', '.join(str(f) for f in failing)})" if failing else ""
    base.message = f"the newest run for this tree and config {base.reason}{which}: receipt {path}"
    if base.reason == "blocked":
        action = (document.get("blocker") or {}).get("requiredAction") or "remove the blocker"
        base.remedy = f"{action}; then: {base.remedy}"
    elif base.reason == "failed":
        base.remedy = f"fix the failing check(s){which} and commit; then: {base.remedy}"
    return base


def _decide(base: Verdict, path: str, document: dict[str, Any], top: str) -> Verdict:
    base.receipt = path
    base.run_id = document.get("runId")
    if document.get("result") != "passed":
        return _not_passed(base, path, document)
    problem = trust.contradiction(document)
    same_head = document.get("commit") == base.commit  # its tree matched HEAD's: HEAD's commit names it
    if problem is None and not same_head and not trust.commit_names_tree(top, document.get("commit"), base.tree):
        problem = (
            f"its commit {str(document.get('commit'))[:12]} does not name its tree {str(document.get('tree'))[:12]}"
        )
    if problem is not None:
        base.reason = "inconsistent"
        base.message = f"the receipt {path} is not evidence: {problem}"
        return base
    evidence = document.get("evidence") or {}
    if not evidence.get("usable"):
        base.reason = "unusable"
        base.message = "the newest run for this tree is not evidence: " + "; ".join(evidence.get("reasons", []))
        return base
    lockfiles = (document.get("setup") or {}).get("lockfiles")
    if lockfiles is None:
        base.reason = "setup-stale"
        base.message = "the run used --no-setup and no earlier run recorded a setup: the environment is unproven"
        return base
    changed = sorted(rel for rel, digest in lockfiles.items() if _digest(os.path.join(top, rel)) != digest)
    if changed:
        base.reason = "setup-stale"
        base.files = changed
        base.message = f"the lockfiles changed since the setup ran ({listed(changed)}): run the setup again"
        return base
    return Verdict(
        True,
        "verified",
        f"commit {str(document.get('commit'))[:12]} (tree {str(document.get('tree'))[:12]}) was verified "
        f"by run {document.get('runId')}",
        None,
        commit=base.commit,
        tree=base.tree,
        receipt=path,
        run_id=document.get("runId"),
    )
