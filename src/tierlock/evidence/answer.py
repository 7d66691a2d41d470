"""The answer of ``tierlock verified``: a :class:`Verdict` with its reason (:data:`REASONS`), printed once.

Only the standard library: the gate's fast path imports it.
"""

from __future__ import annotations

import json
import sys

from tierlock.evidence import MAX_LISTED
from tierlock.exitcodes import EXIT_FAILED, EXIT_OK

# Not ``typing``: it imports ``re``; this module stays on os, json and hashlib (and no pathlib, no subprocess).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import IO, Any

#: Every reason ``tierlock verified`` can give (documented in docs/reference/verify.md).
REASONS = {
    "verified": "a passing, clean, bound receipt matches the current tree and config, and the tree has no change",
    "not-a-checkout": "the folder is not inside a git checkout, so no receipt can be bound to it",
    "no-commit": "the repository has no commit yet",
    "no-run": "no finished run of tierlock verify is recorded",
    "stale": "the newest receipt is for another tree (the files that differ are named)",
    "stale-config": "the runtime config changed since the newest receipt for this tree",
    "config-from-differs": "the receipt was not made with --config-from at the same content of the base's config",
    "config-from-ambiguous": "the base's config at --config-from REF cannot be found unambiguously: name it, REF:PATH",
    "failed": "the newest run for this tree and config failed",
    "blocked": "the newest run for this tree and config was blocked",
    "interrupted": "the newest run for this tree and config was interrupted",
    "unusable": "the newest run for this tree changed the tree while it ran, or was not bound",
    "inconsistent": "the receipt contradicts itself (its commit does not name its tree, or its result its commands)",
    "dirty": "only runs with --allow-dirty (or --only) exist for this tree",
    "setup-stale": "the lockfiles changed since the setup ran: run the setup again",
    "uncommitted": "HEAD was verified, but the working tree has uncommitted changes (the files are named)",
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
        return EXIT_OK if self.ok else EXIT_FAILED

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


_SAFE = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789@%+=:,./-_")


def quote(text: str) -> str:
    """*text* for a POSIX shell, as :func:`shlex.quote` quotes it (without importing re)."""
    if text and all(c in _SAFE for c in text):
        return text
    return "'" + text.replace("'", "'\"'\"'") + "'"


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
    return " ".join(quote(a) for a in argv)


def printable(text: str) -> str:
    """*text* with every character that is not printable written as its escape (``\\x1b``): no file name or
    command line reaches a terminal with a raw control character in it."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


def listed(names: list[str]) -> str:
    """*names* for a message: the first MAX_LISTED (printable), then how many more."""
    shown = ", ".join(printable(name) for name in names[:MAX_LISTED])
    return shown + (f" and {len(names) - MAX_LISTED} more" if len(names) > MAX_LISTED else "")


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
