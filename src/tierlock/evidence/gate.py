"""``tierlock verified``: is there a passing, clean, bound receipt for exactly this tree and config?

It runs no command but git's ``rev-parse`` (and ``diff-tree`` to name the
files of a stale tree) and imports only the standard library: a pre-push
hook or a publish step calls it.

Receipts are read newest first. A receipt *matches* when its tree is the
current commit's tree, its config file has the same digest now, and (with
``--config-from REF``) it was made from the same content at REF. Runs with
``--only`` or ``--allow-dirty`` never decide. The newest deciding match must
have passed, been clean at start and end, and its setup's lockfiles must be
unchanged since the setup ran.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
import sys

from tierlock.evidence import IN_GIT_DIR, MAX_LISTED, RECEIPT, RECEIPT_VERSION
from tierlock.evidence.gitcall import run_git

#: The most a config file may hold to be read (:data:`tierlock.fsutil.MAX_BYTES`).
MAX_BYTES = 64 * 1024 * 1024

# Not ``typing``: it imports ``re``; this module stays on os, json and hashlib (and no pathlib, no subprocess).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator
    from typing import IO, Any

#: Every reason ``tierlock verified`` can give (documented in docs/reference/verify.md).
REASONS = {
    "verified": "a passing, clean, bound receipt matches the current tree and config",
    "not-a-checkout": "the folder is not inside a git checkout, so no receipt can be bound to it",
    "no-commit": "the repository has no commit yet",
    "no-run": "no finished run of tierlock verify is recorded",
    "stale": "the newest receipt is for another tree (the files that differ are named)",
    "stale-config": "the runtime config changed since the newest receipt for this tree",
    "config-from-differs": "the receipt was not made with --config-from at the same ref content",
    "failed": "the newest run for this tree and config failed",
    "blocked": "the newest run for this tree and config was blocked",
    "interrupted": "the newest run for this tree and config was interrupted",
    "unusable": "the newest run for this tree changed the tree while it ran, or was not bound",
    "dirty": "only runs with --allow-dirty (or --only) exist for this tree",
    "setup-stale": "the lockfiles changed since the setup ran: run the setup again",
}


class Verdict:
    """The gate's answer: ok, the reason (:data:`REASONS`), a message, and the command that fixes it."""

    def __init__(
        self,
        ok: bool,
        reason: str,
        message: str,
        remedy: str | None,
        *,
        commit: str | None = None,
        tree: str | None = None,
        receipt: str | None = None,
        run_id: str | None = None,
    ) -> None:
        self.ok = ok
        self.reason = reason
        self.message = message
        self.remedy = remedy
        self.commit = commit
        self.tree = tree
        self.receipt = receipt
        self.run_id = run_id
        self.files: list[str] = []

    @property
    def exit_code(self) -> int:
        return 0 if self.ok else 1

    def to_dict(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "verified": self.ok,
            "reason": self.reason,
            "message": self.message,
            "remedy": self.remedy,
            "commit": self.commit,
            "tree": self.tree,
            "receipt": self.receipt,
            "runId": self.run_id,
            "files": self.files,
        }


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
    """(path, receipt) of every finished run in *folder*, newest first (as :func:`receipt.receipts`)."""
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


def verify_command(config: str | None, config_from: str | None, evidence_dir: str | None, project: str | None) -> str:
    """The ``tierlock verify`` line that makes the evidence this gate looks for."""
    argv = ["tierlock"]
    if project:
        argv += ["--project", project]
    argv.append("verify")
    if config:
        argv += ["--config", config]
    if config_from:
        argv += ["--config-from", config_from]
    if evidence_dir:
        argv += ["--evidence-dir", evidence_dir]
    return " ".join(_quote(a) for a in argv)


_SAFE = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789@%+=:,./-_")


def _quote(text: str) -> str:
    """*text* for a POSIX shell, as :func:`shlex.quote` quotes it (without importing re)."""
    if text and all(c in _SAFE for c in text):
        return text
    return "'" + text.replace("'", "'\"'\"'") + "'"


def _files(names: list[str]) -> str:
    shown = ", ".join(names[:MAX_LISTED])
    return shown + (f" and {len(names) - MAX_LISTED} more" if len(names) > MAX_LISTED else "")


def check(
    start: str,
    *,
    config: str | None = None,
    config_from: str | None = None,
    evidence_dir: str | None = None,
    remedy: str = "tierlock verify",
) -> Verdict:
    """The gate's verdict for the checkout holding the folder *start*."""
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
    config_rel = _relative(top, config) if config is not None else None
    ref_blob: str | None = None
    if config_from is not None:
        rel_for_ref = config_rel
        ref_blob = "?"
        if rel_for_ref is None:
            for _, document in _receipts(folder):
                rel_for_ref = (document.get("config") or {}).get("path")
                break
        if rel_for_ref is not None:
            _, out = _git(top, "rev-parse", "--verify", "--quiet", f"{config_from}:{rel_for_ref}")
            ref_blob = out.strip() or None
    digests: dict[str, str | None] = {}
    newest: dict[str, Any] | None = None
    undecided: dict[str, Any] | None = None
    for path, document in _receipts(folder):
        cfg = document.get("config") or {}
        if newest is None:
            newest = document
        if document.get("tree") != tree or not document.get("bound"):
            continue
        cfg_path = cfg.get("path")
        if not isinstance(cfg_path, str) or (config_rel is not None and cfg_path != config_rel):
            continue
        if cfg_path not in digests:
            digests[cfg_path] = _digest(os.path.join(top, cfg_path))
        if cfg.get("digest") != digests[cfg_path]:
            continue
        if config_from is not None:
            origin = cfg.get("from") or {}
            if origin.get("ref") is None or origin.get("blob") != ref_blob:
                continue
        if document.get("only") or (document.get("allowDirty") and not (document.get("clean") or {}).get("atStart")):
            undecided = undecided or document
            continue
        return _decide(base, path, document, top)
    if undecided is not None:
        base.reason = "dirty"
        base.message = (
            f"the only runs for tree {str(tree)[:12]} were partial (--only) "
            "or on a dirty tree (--allow-dirty); neither is evidence"
        )
        base.run_id = undecided.get("runId")
        return base
    if newest is None:
        base.reason = "no-run"
        base.message = f"no run of tierlock verify is recorded in {folder}"
        return base
    return _stale(base, newest, top, config_from)


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
        what = f"; changed since: {_files(files)}" if files else ""
        if not newest.get("bound"):
            what = " (that run was not bound to a commit)"
        base.message = (
            f"the newest receipt is for tree {str(old)[:12]} (commit {str(newest.get('commit'))[:12]}), "
            f"not the current commit {str(base.commit)[:12]}'s tree{what}"
        )
        return base
    cfg = newest.get("config") or {}
    if ref is not None and (cfg.get("from") or {}).get("ref") is None:
        base.reason = "config-from-differs"
        base.message = f"the receipts for this tree were not made with --config-from {ref}"
        return base
    if ref is not None:
        base.reason = "config-from-differs"
        base.message = f"the config committed at {ref} changed since the receipt was made"
        return base
    base.reason = "stale-config"
    base.message = f"the runtime config {cfg.get('path')} changed since the newest receipt for this tree"
    base.files = [str(cfg.get("path"))]
    return base


def _decide(base: Verdict, path: str, document: dict[str, Any], top: str) -> Verdict:
    base.receipt = path
    base.run_id = document.get("runId")
    result = document.get("result")
    evidence = document.get("evidence") or {}
    if result != "passed":
        base.reason = result if result in ("failed", "blocked", "interrupted") else "failed"
        failing = [
            c.get("key") or c.get("command") for c in document.get("commands", []) if c.get("status") != "passed"
        ]
        which = f" ({', '.join(str(f) for f in failing)})" if failing else ""
        base.message = f"the newest run for this tree and config {base.reason}{which}: receipt {path}"
        if base.reason == "blocked":
            action = (document.get("blocker") or {}).get("requiredAction") or "remove the blocker"
            base.remedy = f"{action}; then: {base.remedy}"
        elif base.reason == "failed":
            base.remedy = f"fix the failing check(s){which} and commit; then: {base.remedy}"
        return base
    if not evidence.get("usable"):
        base.reason = "unusable"
        base.message = "the newest run for this tree is not evidence: " + "; ".join(evidence.get("reasons", []))
        return base
    setup = document.get("setup") or {}
    lockfiles = setup.get("lockfiles")
    if lockfiles is None:
        base.reason = "setup-stale"
        base.message = "the run used --no-setup and no earlier run recorded a setup: the environment is unproven"
        return base
    changed = sorted(rel for rel, digest in lockfiles.items() if _digest(os.path.join(top, rel)) != digest)
    if changed:
        base.reason = "setup-stale"
        base.files = changed
        base.message = f"the lockfiles changed since the setup ran ({_files(changed)}): run the setup again"
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


def render(verdict: Verdict, *, json_mode: bool, quiet: bool, stdout: IO[str] | None = None) -> int:
    """Print *verdict* (one JSON line with --json; else a line on stdout, or the reason on stderr)."""
    from tierlock.redaction import redact, redact_json  # every line and field, as every command's

    out = stdout or sys.stdout
    if json_mode:
        out.write(json.dumps(redact_json(verdict.to_dict()), separators=(",", ":")) + "\n")
    elif verdict.ok:
        if not quiet:
            out.write(redact(f"verified: {verdict.message}") + "\n")
    else:
        sys.stderr.write(redact(f"not verified ({verdict.reason}): {verdict.message}") + "\n")
        if verdict.remedy:
            sys.stderr.write(redact(f"  to fix: {verdict.remedy}") + "\n")
    return verdict.exit_code


#: Options of ``tierlock verified`` that take a value, as the fast path reads them.
_VALUED = ("--project", "--config", "--config-from", "--evidence-dir")


def fast(argv: list[str]) -> int | None:
    """``tierlock verified [options]`` without argparse or the CLI; None for anything it does not know."""
    values: dict[str, str] = {}
    flags = {"--json": False, "-q": False}
    command = None
    i = 0
    while i < len(argv):
        token = argv[i]
        i += 1
        name, eq, value = token.partition("=")
        if not token.startswith("-"):
            if command is not None or token != "verified":
                return None
            command = token
        elif name in _VALUED and (command is not None or name == "--project"):
            if not eq:
                if i >= len(argv) or argv[i].startswith("-"):
                    return None
                value = argv[i]
                i += 1
            if name in values:
                return None
            values[name] = value
        elif token in ("--json", "-q", "--quiet"):
            flags["-q" if token == "--quiet" else token] = True
        else:
            return None
    project = values.get("--project")
    if command is None or (project is not None and not (os.path.isdir(project) or os.path.isfile(project))):
        return None  # the CLI decides (a named project that is not there: a usage error)
    return run(
        values.get("--project"),
        values.get("--config"),
        values.get("--config-from"),
        values.get("--evidence-dir"),
        json_mode=flags["--json"],
        quiet=flags["-q"],
    )


def run(
    project: str | None,
    config: str | None,
    config_from: str | None,
    evidence_dir: str | None,
    *,
    json_mode: bool,
    quiet: bool,
    stdout: IO[str] | None = None,
) -> int:
    """The whole of ``tierlock verified``: check, print, return the exit code."""
    start = os.path.abspath(project or ".")
    if os.path.isfile(start):  # a pyproject.toml
        start = os.path.dirname(start)
    verdict = check(
        start,
        config=os.path.abspath(config) if config else None,
        config_from=config_from,
        evidence_dir=os.path.abspath(evidence_dir) if evidence_dir else None,
        remedy=verify_command(config, config_from, evidence_dir, project),
    )
    return render(verdict, json_mode=json_mode, quiet=quiet, stdout=stdout)
