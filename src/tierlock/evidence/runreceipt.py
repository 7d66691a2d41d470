"""The receipt of one run of ``tierlock verify``, as a type: what each command did, and the verdict.

:class:`Receipt` is written when the run starts (``result`` ``running``) and again when it
ends (:mod:`tierlock.evidence.store` writes it); :meth:`Receipt.to_dict` is the document
described in docs/reference/verify.md, :meth:`Receipt.summary` the ``--json`` line.
Each result has its exit code (:data:`EXIT_CODES`).
"""

from __future__ import annotations

import builtins
from dataclasses import dataclass, field
from typing import Any

from tierlock.errors import EXIT_BACKEND, EXIT_FAILED, EXIT_INTERRUPTED, EXIT_OK
from tierlock.evidence import MAX_LISTED, RECEIPT_VERSION
from tierlock.evidence.blockers import Blocker

#: The exit code of each result: a blocker is exit 3, as a backend that failed.
EXIT_CODES = {"passed": EXIT_OK, "failed": EXIT_FAILED, "blocked": EXIT_BACKEND, "interrupted": EXIT_INTERRUPTED}


@dataclass(eq=False, repr=False)  # no comparison or repr: cheaper to define at start-up
class CommandRecord:
    """One command of the run: what ran, where, how it ended, and the shown tail of its log."""

    list: str
    key: str | None
    label: str | None
    command: str
    args: builtins.list[str]
    cwd: str
    env_names: builtins.list[str]
    command_source: str
    config_file: str | None
    timeout_ms: int | None
    status: str = "running"
    exit_code: int | None = None
    signal: int | None = None
    timed_out: bool = False
    interrupted: bool = False
    duration: float = 0.0
    log: dict[str, Any] = field(default_factory=dict)
    tail: builtins.list[str] = field(default_factory=builtins.list)
    tail_cut: dict[str, int] | None = None
    env_activated: bool = False

    @property
    def name(self) -> str:
        return self.key or self.command

    def to_dict(self) -> dict[str, Any]:
        return {
            "list": self.list,
            "key": self.key,
            "label": self.label,
            "command": self.command,
            "args": self.args,
            "cwd": self.cwd,
            "envNames": self.env_names,
            "commandSource": self.command_source,
            "configFile": self.config_file,
            "timeoutMs": self.timeout_ms,
            "envActivated": self.env_activated,
            "status": self.status,
            "exitCode": self.exit_code,
            "signal": self.signal,
            "timedOut": self.timed_out,
            "interrupted": self.interrupted,
            "durationSeconds": round(self.duration, 3),
            "log": self.log,
            "tail": self.tail,
            "tailCut": self.tail_cut,
        }


#: The fields of a command in the ``--json`` line.
SUMMARY_KEYS = (
    "list",
    "key",
    "label",
    "command",
    "args",
    "cwd",
    "commandSource",
    "configFile",
    "status",
    "exitCode",
    "signal",
    "timedOut",
    "durationSeconds",
    "log",
    "tail",
    "tailCut",
)


@dataclass(eq=False, repr=False)
class Clean:
    """Whether the working tree was clean at the start and the end, and what changed while the run went."""

    at_start: bool | None
    dirty_files: builtins.list[str]
    not_checked: builtins.list[str]
    at_end: bool | None = None
    changed_during_run: bool | None = None
    changed_files: builtins.list[str] = field(default_factory=builtins.list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "atStart": self.at_start,
            "atEnd": self.at_end,
            "dirtyFiles": self.dirty_files[:MAX_LISTED],
            "changedDuringRun": self.changed_during_run,
            "changedFiles": self.changed_files[:MAX_LISTED],
            "notChecked": self.not_checked,
        }


@dataclass(eq=False, repr=False)
class Receipt:
    """Everything a run records (docs/reference/verify.md, "The receipt")."""

    run_id: str
    pid: int
    tierlock_version: str
    started_at: str
    bound: bool
    checkout: str | None
    commit: str | None
    tree: str | None
    clean: Clean
    allow_dirty: bool
    config: dict[str, Any]
    only: builtins.list[str] | None
    environment: dict[str, Any]
    result: str = "running"
    ended_at: str | None = None
    duration: float | None = None
    setup: dict[str, Any] | None = None
    commands: builtins.list[CommandRecord] = field(default_factory=builtins.list)
    repair: dict[str, Any] | None = None
    escaped: builtins.list[dict[str, Any]] | None = None
    blocker: Blocker | None = None
    reasons: builtins.list[str] = field(default_factory=lambda: ["the run has not finished"])

    @property
    def ok(self) -> bool:
        return self.result == "passed"

    @property
    def usable(self) -> bool:
        return not self.reasons

    @property
    def exit_code(self) -> int:
        return EXIT_CODES.get(self.result, EXIT_FAILED)

    def to_dict(self) -> dict[str, Any]:
        return {
            "receiptVersion": RECEIPT_VERSION,
            "runId": self.run_id,
            "pid": self.pid,
            "tierlockVersion": self.tierlock_version,
            "result": self.result,
            "ok": self.ok,
            "startedAt": self.started_at,
            "endedAt": self.ended_at,
            "durationSeconds": self.duration,
            "bound": self.bound,
            "checkout": self.checkout,
            "commit": self.commit,
            "tree": self.tree,
            "clean": self.clean.to_dict(),
            "allowDirty": self.allow_dirty,
            "config": self.config,
            "only": self.only,
            "environment": self.environment,
            "setup": self.setup,
            "commands": [c.to_dict() for c in self.commands],
            "repair": self.repair,
            "escapedProcesses": self.escaped,
            "blocker": self.blocker.to_dict() if self.blocker else None,
            "evidence": {"usable": self.usable, "reasons": self.reasons},
        }

    def summary(self, receipt_path: str) -> dict[str, Any]:
        """The ``--json`` line: the result without the per-command details a reader rarely needs."""
        return {
            "ok": self.ok,
            "result": self.result,
            "exitCode": self.exit_code,
            "runId": self.run_id,
            "bound": self.bound,
            "commit": self.commit,
            "tree": self.tree,
            "usable": self.usable,
            "unusableBecause": self.reasons,
            "receipt": receipt_path,
            "environment": self.environment,
            "commands": [{k: v for k, v in c.to_dict().items() if k in SUMMARY_KEYS} for c in self.commands],
            "twice": (self.setup or {}).get("twice"),
            "repair": self.repair,
            "escapedProcesses": self.escaped,
            "blocker": self.blocker.to_dict() if self.blocker else None,
        }
