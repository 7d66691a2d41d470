"""Whether a receipt that claims a pass is evidence at all: it must not contradict itself.

A receipt is a file anyone with write access to the git dir can edit. Before ``tierlock
verified`` accepts a passing one, :func:`contradiction` checks that its claims agree: ``ok``
with ``result``; a pass with every command (each passed, exit 0, at least one verification
check) and with no blocker; and :func:`commit_names_tree` that its ``commit`` names its
``tree`` in this repository. Only the standard library.
"""

from __future__ import annotations

from tierlock.evidence.gitcall import run_git

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def contradiction(document: dict[str, Any]) -> str | None:
    """What a receipt claiming ``passed`` says against itself, or None."""
    if document.get("ok") is not True:
        return "its result is passed but ok is not true"
    commands = document.get("commands")
    if not isinstance(commands, list) or not all(isinstance(c, dict) for c in commands):
        return "it lists no commands"
    if not any(c.get("list") == "verification" for c in commands):
        return "it passed without running a single verification check"
    failing = [c for c in commands if c.get("status") != "passed" or c.get("exitCode") != 0]
    if failing:
        names = ", ".join(str(c.get("key") or c.get("command")) for c in failing)
        return f"its result is passed but its commands did not all pass ({names})"
    if document.get("blocker") is not None:
        return "its result is passed but it records a blocker"
    return None


def _oid(text: str) -> bool:
    return len(text) >= 40 and all(c in "0123456789abcdef" for c in text)


def commit_names_tree(top: str, commit: object, tree: object) -> bool:
    """Whether *commit* is a commit of the repository at *top* whose tree is *tree*."""
    if not isinstance(commit, str) or not isinstance(tree, str) or not _oid(commit):
        return False
    status, out, _ = run_git(top, "rev-parse", "--verify", "--quiet", f"{commit}^{{tree}}")
    return status == 0 and out.decode("ascii", "replace").strip() == tree
