"""One command of a run, start to record: where it runs, in which environment, how it ended, and why.

:class:`Execution` holds a run's folder, its records and its blockers. :meth:`Execution.run_step`
runs one step (:mod:`tierlock.evidence.process`) with the target environment activated
(:mod:`tierlock.evidence.activation`) and the run's mark in its environment
(:data:`~tierlock.evidence.RUN_MARK`), reads the shown tail of its log
(:mod:`tierlock.evidence.tails`) and turns a failure on the machine into a blocker
(:mod:`tierlock.evidence.causes`).
"""

from __future__ import annotations

import errno
import os
from pathlib import Path

from tierlock import secretargs
from tierlock.evidence import RUN_MARK, activation, causes, process, steps, store, tails
from tierlock.evidence.blockers import Blocker
from tierlock.evidence.prepare import Prepared
from tierlock.evidence.runreceipt import CommandRecord
from tierlock.evidence.view import View
from tierlock.validators.credentials import redact

SCOPE_ACTION = "restore the folder, or fix cwd in the runtime config"


class Execution:
    """One run: its folder, its records, and the blockers that stop it (the first one is reported)."""

    def __init__(self, prepared: Prepared, view: View) -> None:
        self.p = prepared
        self.view = view
        self.run_id, self.folder = store.new_run(prepared.evidence_dir)
        self.records: list[CommandRecord] = []
        self.blockers: list[Blocker] = []
        self.interrupts = process.Interrupts()
        self.position = 0
        self.activated_any = False
        self.base_env = {**os.environ, RUN_MARK: self.run_id}

    @property
    def blocker(self) -> Blocker | None:
        return self.blockers[0] if self.blockers else None

    @property
    def interrupted(self) -> bool:
        return self.interrupts.signum is not None

    def mask(self, text: str) -> str:
        """*text* with the config's env values named and every credential-shaped part redacted."""

        for name, value in self.p.masked:
            text = text.replace(value, f"[env {name}]")
        return redact(text)

    def shown(self, text: str) -> str:
        """A command or argument as recorded: redacted when the config holds a credential-shaped one."""
        if not self.p.redact_args:
            return text

        return redact(text)

    def shown_args(self, step: steps.Step) -> list[str]:
        """A step's arguments as recorded: each :meth:`shown`, and one that holds a credential by its option
        (``--password hunter2``) redacted too."""
        if not self.p.redact_args:
            return list(step.args)
        return [self.shown(a) for a in secretargs.redacted(step.argv)[1:]]

    def _record(self, step: steps.Step) -> CommandRecord:
        return CommandRecord(
            list=step.list,
            key=step.key,
            label=step.label,
            command=self.shown(step.command),
            args=self.shown_args(step),
            cwd=step.cwd,
            env_names=sorted(step.env),
            command_source=step.source,
            config_file=step.config_file,
            timeout_ms=step.timeout_ms,
        )

    def _scope_problem(self, step: steps.Step) -> str | None:
        if not steps.inside(step.cwd_path, self.p.root):
            return f"cwd {step.cwd!r} resolves to {step.cwd_path}, outside the checkout {self.p.root}"
        if not step.cwd_path.is_dir():
            return f"cwd {step.cwd!r} ({step.cwd_path}) is not an existing folder in the checkout"
        return None

    def run_step(self, step: steps.Step) -> CommandRecord:
        """Run *step*, record it (in :attr:`records`) and return its record."""
        self.position += 1
        log = self.folder / step.log_name(self.position)
        record = self._record(step)
        self.view.started(step)
        problem = self._scope_problem(step)
        if problem is not None:
            store.write_private(log, problem + "\n")
            outcome = process.Outcome(None, None, False, False, 0.0)
            status = "scope"
            self._block(step, "scope", problem, SCOPE_ACTION, log)
        else:
            env, record.env_activated = activation.activated(self.base_env, self.p.target)
            self.activated_any = self.activated_any or record.env_activated
            env.update(step.env)
            outcome = process.run(
                step.argv,
                cwd=step.cwd_path,
                env=env,
                log=log,
                timeout=step.timeout_ms / 1000 if step.timeout_ms else None,
                interrupts=self.interrupts,
                grace=self.p.options.grace,
                tick=lambda elapsed: self.view.tick(step, elapsed),
            )
            status = self._status(step, outcome, log)
        self._close(step, record, outcome, status, log)
        self.records.append(record)
        self.view.finished(step, record.to_dict())
        return record

    def _close(self, step: steps.Step, record: CommandRecord, outcome: process.Outcome, status: str, log: Path) -> None:
        """Fill in how the command ended, its log and shown tail; a failure on the machine becomes a blocker."""
        try:
            size, sha, lines = tails.digest(log)
        except OSError:  # the log could not be written (a blocker says so)
            size, sha, lines = 0, None, 0
        tail = tails.read(log, self.mask, size=size, lines=lines) if status != "passed" and sha else tails.EMPTY
        record.status = status
        record.exit_code, record.signal = outcome.exit_code, outcome.signal
        record.timed_out, record.interrupted = outcome.timed_out, outcome.interrupted
        record.duration = outcome.duration
        record.log = {"path": str(log), "size": size, "sha256": sha}
        record.tail = list(tail.lines)
        record.tail_cut = tail.cut() if status != "passed" else None
        if status == "failed":
            self._failed(step, outcome, tail.lines, log)

    def _failed(self, step: steps.Step, outcome: process.Outcome, lines: tuple[str, ...], log: Path) -> None:
        """Blocks a failure the tail shows to be the machine's (or any failed setup command)."""

        how = f"exit {outcome.exit_code}" if outcome.exit_code is not None else f"signal {outcome.signal}"
        cause = causes.blocker_cause(lines, outcome.exit_code)
        if cause is not None:
            reason = f"{step.name} failed ({how}) {causes.ON[cause.kind]}: {cause.line}"
            self._block(step, cause.kind, reason, causes.required_action(cause, step.command), log)
        elif step.list == "setup":
            reason = f"setup command {step.name} failed ({how}); verification did not run"
            self._block(
                step, "setup", reason, f"fix the setup (see the log {log}), then run again: tierlock verify", log
            )
        elif step.list == "repair":
            shown = " ".join(self.shown_args(step))
            reason = f"the repair ({step.name} {shown}) failed ({how}); verification was not run again"
            self._block(step, "setup", reason, f"see the log {log}, then run again: tierlock verify", log)

    def _status(self, step: steps.Step, outcome: process.Outcome, log: Path) -> str:
        if outcome.spawn_error is not None:
            return self._not_started(step, outcome, outcome.spawn_error, log)
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
        return "passed" if outcome.ok else "failed"

    def _not_started(self, step: steps.Step, outcome: process.Outcome, error: OSError, log: Path) -> str:
        kind, reason = process.describe_spawn_error(error, step.command, outcome.stage)
        try:
            with log.open("a", encoding="utf-8") as handle:
                handle.write(reason + "\n")
        except OSError:
            pass
        if kind == "scope":
            action = SCOPE_ACTION
        elif outcome.stage == "log":
            action = f"make {log.parent} writable (or pass --evidence-dir), then run again: tierlock verify"
        elif kind != "toolchain":
            action = "check the machine (file descriptors, memory), then run again: tierlock verify"
        elif step.list == "setup":
            action = f"install {step.command} or put it on PATH, then run again: tierlock verify"
        else:
            action = f"install {step.command} or put it on PATH (the setup list is the place to install it)"
        self._block(step, kind, reason, action, log)
        if kind == "scope":
            return "scope"
        if kind != "toolchain":
            return "not-started"
        return "not-found" if error.errno == errno.ENOENT else "not-executable"

    def _block(self, step: steps.Step, kind: str, reason: str, action: str, log: Path) -> None:
        self.blockers.append(
            Blocker(
                kind,
                self.shown(self.mask(reason)),
                self.shown(step.command),
                tuple(self.shown_args(step)),
                step.cwd,
                self.shown(self.mask(action)),
                str(log),
                key=step.key,
                list=step.list,
            )
        )
