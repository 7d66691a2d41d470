"""``tierlock verify``: validate, bind to the tree, run setup then verification, write the receipt.

:func:`prepare` does everything that can refuse the run (exit 2) before any
command starts; :func:`execute` runs the commands and returns the
:class:`Result` whose :meth:`Result.summary` is the ``--json`` line.
"""

from __future__ import annotations

import contextlib
import errno
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tierlock.errors import UsageError
from tierlock.evidence import MAX_LISTED, RECEIPT_VERSION, gitbind, plan, receipt
from tierlock.evidence import run as runner
from tierlock.evidence.blockers import Blocker
from tierlock.evidence.config import (
    VALIDATION_CACHE,
    credential_shaped,
    find_config,
    from_ref,
    lockfile_digests,
    sha256,
    validated,
)
from tierlock.evidence.view import View

EXIT_INTERRUPTED = 130
#: Lines of a failing command's log shown and recorded.
TAIL_LINES = 20
#: Config env values at least this long are masked in tails too (shorter ones, like "0", would mask noise).
MIN_MASKED_VALUE = 4


class DirtyTree(UsageError):
    """The working tree has changes: verify refuses (exit 2) without --allow-dirty."""

    kind = "dirty-tree"


@dataclass
class Options:
    config: Path | None = None
    project: Path | None = None
    only: list[str] | None = None
    no_setup: bool = False
    allow_dirty: bool = False
    config_from: str | None = None
    evidence_dir: Path | None = None
    keep: int = receipt.DEFAULT_KEEP
    grace: float = runner.GRACE_SECONDS
    fail_fast: bool = False


@dataclass
class Prepared:
    """Everything decided before the first command runs."""

    config_path: Path
    config_dir: Path
    root: Path
    """The checkout top (or, outside git, the config's folder): where cwd values point."""
    checkout: gitbind.Checkout | None
    dirty: list[str]
    config_digest: str
    config_from: dict[str, Any] | None
    setup: list[plan.Step]
    setup_source: dict[str, Any]
    checks: list[plan.Step]
    evidence_dir: Path
    options: Options
    masked: list[tuple[str, str]] = field(default_factory=list)
    redact_args: bool = False
    """A command or argument is credential-shaped (accepted by the config): record and show them redacted."""
    dirty_state: dict[str, str] = field(default_factory=dict)
    """Content digests of the dirty paths at the start (``--allow-dirty``)."""
    """(env name, value) of config env values masked in tails."""


def prepare(options: Options) -> Prepared:
    """Validate, bind and plan; raise (exit 2) on anything that refuses the run. Nothing runs here."""
    config_path = find_config(options.config, options.project)
    config_dir = config_path.resolve().parent
    checkout = gitbind.find(config_dir)
    root = checkout.top if checkout is not None else config_dir
    evidence_dir = (options.evidence_dir or receipt.default_dir(checkout.git_dir if checkout else None, root)).resolve()
    if checkout is None and options.evidence_dir is None:
        receipt.ignore_outside_git(evidence_dir)
    config, shaped = validated(config_path, root, evidence_dir / VALIDATION_CACHE if checkout is not None else None)
    dirty: list[str] = []
    if checkout is not None and checkout.commit is not None:
        dirty = gitbind.changes(checkout.top)
        if dirty and not options.allow_dirty:
            listed = ", ".join(dirty[:MAX_LISTED]) + (" ..." if len(dirty) > MAX_LISTED else "")
            raise DirtyTree(
                f"the working tree of {checkout.top} has {len(dirty)} uncommitted change(s) ({listed}): "
                "a receipt must belong to one commit's tree",
                remedy=f"git -C {checkout.top} stash --include-untracked   # or commit; "
                "--allow-dirty runs anyway, and its receipt never satisfies tierlock verified",
            )
    checks = plan.steps(config, "verification", config_dir=config_dir, checkout=root)
    config_from: dict[str, Any] | None = None
    if options.config_from is not None:
        rel = gitbind.relative(root, config_path) if checkout is not None else None
        if checkout is None or rel is None:
            raise UsageError(
                f"--config-from {options.config_from} needs the config inside a git checkout",
                remedy="run it inside the repository, or drop --config-from",
            )
        ref_config, config_from = from_ref(checkout.top, options.config_from, rel, config_path, config_dir)
        if ref_config is not None:
            shaped = shaped or credential_shaped(ref_config)
            ref_checks = plan.steps(ref_config, "verification", config_dir=config_dir, checkout=root, source="ref")
            checks = plan.merge(ref_checks, checks)
    checks = plan.select(checks, options.only)
    setup_source: dict[str, Any]
    if config.get("setup"):
        setup = plan.steps(config, "setup", config_dir=config_dir, checkout=root)
        setup_source = {"source": "runtime-config", "reason": f"the setup list of {config_path.name}"}
    else:
        from tierlock.setup_derivation import from_lockfiles

        proposal = from_lockfiles(config_dir)
        setup = plan.derived(proposal.commands, config_dir)
        setup_source = {"source": proposal.source, "reason": proposal.reason}
    masked = [
        (name, value)
        for step in [*setup, *checks]
        for name, value in step.env.items()
        if len(value) >= MIN_MASKED_VALUE
    ]
    return Prepared(
        config_path=config_path,
        config_dir=config_dir,
        root=root,
        checkout=checkout,
        dirty=dirty,
        config_digest=sha256(config_path.read_bytes()),
        config_from=config_from,
        setup=setup,
        setup_source=setup_source,
        checks=checks,
        evidence_dir=evidence_dir,
        options=options,
        masked=sorted(set(masked), key=lambda p: -len(p[1])),
        dirty_state=_snapshot(checkout.top, dirty) if checkout is not None and dirty else {},
        redact_args=shaped,
    )


def _snapshot(top: Path, paths: list[str]) -> dict[str, str]:
    """sha256 (or a marker) of each changed path's content: a dirty file edited further is a change too."""
    out: dict[str, str] = {}
    for rel in paths:
        path = top / rel
        try:
            out[rel] = sha256(path.read_bytes()) if path.is_file() else ("folder" if path.is_dir() else "missing")
        except OSError:
            out[rel] = "unreadable"
    return out


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


@dataclass
class Result:
    document: dict[str, Any]
    receipt_path: Path
    exit_code: int

    def summary(self) -> dict[str, Any]:
        """The ``--json`` line: the result without the per-command log digests."""
        doc = self.document
        return {
            "ok": doc["ok"],
            "result": doc["result"],
            "exitCode": self.exit_code,
            "runId": doc["runId"],
            "bound": doc["bound"],
            "commit": doc["commit"],
            "tree": doc["tree"],
            "usable": doc["evidence"]["usable"],
            "unusableBecause": doc["evidence"]["reasons"],
            "receipt": str(self.receipt_path),
            "commands": [
                {
                    k: c[k]
                    for k in (
                        "list",
                        "key",
                        "label",
                        "command",
                        "args",
                        "cwd",
                        "commandSource",
                        "status",
                        "exitCode",
                        "signal",
                        "timedOut",
                        "durationSeconds",
                        "log",
                        "tail",
                    )
                }
                for c in doc["commands"]
            ],
            "blocker": doc["blocker"],
        }


class Execution:
    """One run: its folder, its records, and the blocker if one stops it."""

    def __init__(self, prepared: Prepared, view: View) -> None:
        self.p = prepared
        self.view = view
        self.run_id, self.folder = receipt.new_run(prepared.evidence_dir)
        self.records: list[dict[str, Any]] = []
        self.blocker: Blocker | None = None
        self.interrupts = runner.Interrupts()
        self.position = 0

    def _mask(self, text: str) -> str:
        from tierlock.validators.credentials import redact

        for name, value in self.p.masked:
            text = text.replace(value, f"[env {name}]")
        return redact(text)

    def _shown(self, text: str) -> str:
        if not self.p.redact_args:
            return text
        from tierlock.validators.credentials import redact

        return redact(text)

    def _tail(self, log: Path) -> list[str]:
        return [self._mask(line) for line in runner.tail(log, TAIL_LINES)]

    def run_step(self, step: plan.Step) -> dict[str, Any]:
        self.position += 1
        log = self.folder / step.log_name(self.position)
        record: dict[str, Any] = {
            "list": step.list,
            "key": step.key,
            "label": step.label,
            "command": self._shown(step.command),
            "args": [self._shown(a) for a in step.args],
            "cwd": step.cwd,
            "envNames": sorted(step.env),
            "commandSource": step.source,
            "timeoutMs": step.timeout_ms,
        }
        self.view.started(step)
        scope_problem = None
        if not plan.inside(step.cwd_path, self.p.root):
            scope_problem = f"cwd {step.cwd!r} resolves to {step.cwd_path}, outside the checkout {self.p.root}"
        elif not step.cwd_path.is_dir():
            scope_problem = f"cwd {step.cwd!r} ({step.cwd_path}) is not an existing folder in the checkout"
        if scope_problem is not None:
            log.write_text(scope_problem + "\n", encoding="utf-8")
            outcome = runner.Outcome(None, None, False, False, 0.0)
            status = "scope"
            self._block(step, "scope", scope_problem, "restore the folder, or fix cwd in the runtime config", log)
        else:
            env = {**os.environ, **step.env}
            timeout = step.timeout_ms / 1000 if step.timeout_ms else None
            outcome = runner.run(
                step.argv,
                cwd=step.cwd_path,
                env=env,
                log=log,
                timeout=timeout,
                interrupts=self.interrupts,
                grace=self.p.options.grace,
                tick=lambda elapsed: self.view.tick(step, elapsed),
            )
            status = self._status(step, outcome, log)
        try:
            size, sha = runner.digest_file(log)
        except OSError:  # the log could not be written (a blocker says so)
            size, sha = 0, None
        record.update(
            {
                "status": status,
                "exitCode": outcome.exit_code,
                "signal": outcome.signal,
                "timedOut": outcome.timed_out,
                "interrupted": outcome.interrupted,
                "durationSeconds": round(outcome.duration, 3),
                "log": {"path": str(log), "size": size, "sha256": sha},
                "tail": self._tail(log) if status != "passed" else [],
            }
        )
        self.records.append(record)
        self.view.finished(step, record)
        return record

    def _status(self, step: plan.Step, outcome: runner.Outcome, log: Path) -> str:
        if outcome.spawn_error is not None:
            kind, reason = runner.describe_spawn_error(outcome.spawn_error, step.command, outcome.stage)
            with contextlib.suppress(OSError), log.open("a", encoding="utf-8") as handle:
                handle.write(reason + "\n")
            if kind == "scope":
                action = "restore the folder, or fix cwd in the runtime config"
            elif outcome.stage == "log":
                action = f"make {log.parent} writable (or pass --evidence-dir), then run tierlock verify again"
            elif kind != "toolchain":
                action = "check the machine (file descriptors, memory), then run tierlock verify again"
            elif step.list == "setup":
                action = f"install {step.command} or put it on PATH, then run tierlock verify again"
            else:
                action = f"install {step.command} or put it on PATH (the setup list is the place to install it)"
            self._block(step, kind, reason, action, log)
            if kind == "scope":
                return "scope"
            if kind != "toolchain":
                return "not-started"
            return "not-found" if outcome.spawn_error.errno == errno.ENOENT else "not-executable"
        if outcome.interrupted:
            return "interrupted"
        if outcome.timed_out:
            limit = (step.timeout_ms or 0) / 1000
            self._block(
                step,
                "timeout",
                f"{step.name} ran longer than its timeoutMs ({limit:g} s); its process group was stopped",
                f"make it faster or raise timeoutMs of {step.name!r} in the runtime config",
                log,
            )
            return "timed-out"
        if outcome.ok:
            return "passed"
        if step.list == "setup":
            how = f"exit {outcome.exit_code}" if outcome.exit_code is not None else f"signal {outcome.signal}"
            self._block(
                step,
                "setup",
                f"setup command {step.name} failed ({how}); verification did not run",
                f"fix the setup (see the log {log}), then run tierlock verify again",
                log,
            )
        return "failed"

    def _block(self, step: plan.Step, kind: str, reason: str, action: str, log: Path) -> None:
        if self.blocker is None:
            self.blocker = Blocker(
                kind,
                self._shown(reason),
                self._shown(step.command),
                tuple(self._shown(a) for a in step.args),
                step.cwd,
                self._shown(action),
                str(log),
                key=step.key,
                list=step.list,
            )


def _previous_setup(evidence_dir: Path) -> tuple[str | None, dict[str, str] | None]:
    """(run id, lockfile digests) of the newest run whose setup ran and passed."""
    for path, document in receipt.receipts(evidence_dir):
        setup = document.get("setup") or {}
        if setup.get("ran") and setup.get("ok"):
            return path.parent.name, setup.get("lockfiles")
    return None, None


def _tree_after(p: Prepared, document: dict[str, Any]) -> list[str]:
    """Check the tree again at the end; record what changed in *document*; return why it is not evidence."""
    assert p.checkout is not None
    reasons: list[str] = []
    end_commit, now_changed = gitbind.status(p.checkout.top)
    changed = now_changed
    if p.dirty:  # already dirty: what changed is a different set of paths, or their contents
        now_state = _snapshot(p.checkout.top, now_changed)
        changed = sorted(k for k in set(now_state) | set(p.dirty_state) if now_state.get(k) != p.dirty_state.get(k))
    moved = end_commit != p.checkout.commit
    document["clean"]["atEnd"] = not now_changed
    document["clean"]["changedDuringRun"] = bool(changed) or moved
    document["clean"]["changedFiles"] = changed[:MAX_LISTED]
    if moved:
        reasons.append(f"HEAD moved during the run (now {end_commit or 'no commit'})")
    if changed:
        reasons.append(f"the working tree changed during the run: {', '.join(changed[:MAX_LISTED])}")
    if p.dirty:
        reasons.append("the working tree was dirty (--allow-dirty)")
    return reasons


def execute(prepared: Prepared, view: View) -> Result:
    """Run the prepared commands; write and return the receipt."""
    from tierlock._version import __version__

    p = prepared
    ex = Execution(p, view)
    top = p.checkout.top if p.checkout is not None else None
    bound = p.checkout is not None and p.checkout.commit is not None
    started_at, started = _now(), time.monotonic()
    document: dict[str, Any] = {
        "receiptVersion": RECEIPT_VERSION,
        "runId": ex.run_id,
        "pid": os.getpid(),
        "tierlockVersion": __version__,
        "result": "running",
        "ok": False,
        "startedAt": started_at,
        "endedAt": None,
        "durationSeconds": None,
        "bound": bound,
        "checkout": str(top) if top else None,
        "commit": p.checkout.commit if p.checkout else None,
        "tree": p.checkout.tree if p.checkout else None,
        "clean": {
            "atStart": (not p.dirty) if bound else None,
            "atEnd": None,
            "dirtyFiles": p.dirty[:MAX_LISTED],
            "changedDuringRun": None,
            "changedFiles": [],
        },
        "allowDirty": p.options.allow_dirty,
        "config": {
            "path": (gitbind.relative(top, p.config_path) if top else None) or str(p.config_path.resolve()),
            "digest": p.config_digest,
            "from": p.config_from,
        },
        "only": p.options.only or None,
        "setup": None,
        "commands": ex.records,
        "blocker": None,
        "evidence": {"usable": False, "reasons": ["the run has not finished"]},
    }
    path = receipt.write(ex.folder, document, durable=False)  # replaced, durably, when the run ends
    lockfiles = lockfile_digests(p.config_dir, p.root)
    setup_info: dict[str, Any] = {**p.setup_source, "ran": False, "ok": None, "fromRun": None, "lockfiles": lockfiles}
    with ex.interrupts.active():  # until the receipt is written: a signal is recorded, never lost midway
        if p.options.no_setup and p.setup:
            setup_info["fromRun"], setup_info["lockfiles"] = _previous_setup(p.evidence_dir)
        elif p.options.no_setup:
            pass  # nothing to set up: the lockfiles as they are now
        else:
            setup_info["ran"] = True
            setup_info["ok"] = True
            for step in p.setup:
                if ex.interrupts.signum is not None or ex.blocker is not None:
                    break
                if ex.run_step(step)["status"] != "passed":
                    setup_info["ok"] = False
        document["setup"] = setup_info
        for step in p.checks:
            if ex.interrupts.signum is not None or (ex.blocker is not None and ex.blocker.kind == "setup"):
                break
            if not setup_info["ok"] and setup_info["ran"]:
                break
            record = ex.run_step(step)
            if p.options.fail_fast and record["status"] != "passed":
                break
        interrupted = ex.interrupts.signum is not None
        if interrupted:
            result, code = "interrupted", EXIT_INTERRUPTED
        elif ex.blocker is not None:
            result, code = "blocked", 3
        elif any(r["status"] != "passed" for r in ex.records):
            result, code = "failed", 1
        else:
            result, code = "passed", 0
        reasons = _tree_after(p, document) if top is not None and bound else []
        if top is None or not bound:
            reasons.append(
                "not bound to a commit: " + ("no git checkout" if top is None else "the repository has no commit")
            )
        if p.options.only:
            reasons.append(f"only some checks ran (--only {' '.join(p.options.only)})")
        if result != "passed":
            reasons.append(f"the run {result}")
        document.update(
            {
                "result": result,
                "ok": result == "passed",
                "endedAt": _now(),
                "durationSeconds": round(time.monotonic() - started, 3),
                "blocker": ex.blocker.to_dict() if ex.blocker else None,
                "evidence": {"usable": not reasons, "reasons": reasons},
            }
        )
        receipt.write(ex.folder, document)
        receipt.prune(p.evidence_dir, p.options.keep)
    return Result(document, path, code)
