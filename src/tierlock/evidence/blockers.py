"""Blockers: why a run could not reach a verdict, as data.

A blocker has a ``kind`` (:data:`KINDS`), a ``reason``, the command, its
args and cwd, a ``requiredAction`` sentence and the path of the command's
log. Any blocker makes ``tierlock verify`` exit 3. Which failures are
``network``, ``credential`` and ``env-variable`` is read from the command's
log tail (:mod:`tierlock.evidence.causes`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

#: Every blocker kind (documented in docs/reference/verify.md).
KINDS = {
    "toolchain": "a command was not found, or cannot be executed (also: a shell's exit 127, command not found)",
    "setup": "a setup command failed; verification did not run",
    "timeout": "a command ran longer than its timeoutMs and was stopped",
    "scope": "a command's cwd is no longer a folder inside the checkout",
    "network": "a command failed on the network: a connection refused or reset, a name that does not resolve",
    "credential": "a command was refused its credentials: 401, 403, authentication failed",
    "env-variable": "a command needs an environment variable that is not set",
    "environment": "a command could not be started for another reason (its log cannot be written, the machine)",
}


@dataclass(frozen=True)
class Blocker:
    kind: str
    reason: str
    command: str | None
    args: tuple[str, ...]
    cwd: str | None
    required_action: str
    log: str | None
    key: str | None = None
    list: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "reason": self.reason,
            "list": self.list,
            "key": self.key,
            "command": self.command,
            "args": list(self.args),
            "cwd": self.cwd,
            "requiredAction": self.required_action,
            "log": self.log,
        }
