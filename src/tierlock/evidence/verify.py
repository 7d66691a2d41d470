"""``tierlock verify``: run the setup, then the verification (repaired once), and write the receipt.

:func:`tierlock.evidence.prepare.prepare` does everything that can refuse the run (exit 2)
before any command starts; :func:`execute` runs the stages and returns the :class:`Result`:

1. setup (twice with ``--twice``: :mod:`tierlock.evidence.idempotency`);
2. verification; a check that failed on a missing tier gets one ``install-tier`` of that tier
   and the verification runs again (:mod:`tierlock.evidence.repair`): only that second run counts;
3. processes that escaped their group are ended (:mod:`tierlock.evidence.escapees`);
4. the tree is checked again, and the verdict and its reasons are recorded.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tierlock._version import __version__
from tierlock.evidence import escapees, gitbind, idempotency, repair, steps, store
from tierlock.evidence.answer import listed
from tierlock.evidence.config import lockfile_digests
from tierlock.evidence.execution import Execution
from tierlock.evidence.prepare import Options, Prepared, prepare, snapshot_paths
from tierlock.evidence.runreceipt import Clean, CommandRecord, Receipt
from tierlock.evidence.view import View

__all__ = ["Options", "Prepared", "Result", "execute", "prepare"]

#: At most this long (seconds) between SIGTERM and SIGKILL to processes that escaped their group.
ESCAPEE_GRACE = 2.0


@dataclass(eq=False, repr=False)  # no comparison or repr: cheaper to define at start-up
class Result:
    receipt: Receipt
    receipt_path: Path

    @property
    def exit_code(self) -> int:
        return self.receipt.exit_code

    @property
    def document(self) -> dict[str, Any]:
        return self.receipt.to_dict()

    def summary(self) -> dict[str, Any]:
        """The ``--json`` line."""
        return self.receipt.summary(str(self.receipt_path))


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def _start(p: Prepared, ex: Execution) -> Receipt:
    top = p.top
    return Receipt(
        run_id=ex.run_id,
        pid=os.getpid(),
        tierlock_version=__version__,
        started_at=_now(),
        bound=p.bound,
        checkout=str(top) if top else None,
        commit=p.checkout.commit if p.checkout else None,
        tree=p.checkout.tree if p.checkout else None,
        clean=Clean(at_start=(not p.dirty) if p.bound else None, dirty_files=p.dirty, not_checked=p.not_checked),
        allow_dirty=p.options.allow_dirty,
        config={"path": p.config_file, "digest": p.config_digest, "from": p.config_from},
        only=p.options.only or None,
        environment=p.target.to_dict(False),
        commands=ex.records,
    )


def execute(prepared: Prepared, view: View) -> Result:
    """Run the prepared commands; write and return the receipt."""
    p = prepared
    ex = Execution(p, view)
    receipt = _start(p, ex)
    started = time.monotonic()
    path = store.write(ex.folder, receipt.to_dict(), durable=False)  # replaced, durably, when the run ends
    with ex.interrupts.active():  # until the receipt is written: a signal is recorded, never lost midway
        receipt.setup = _setup_stage(p, ex)
        if _may_verify(ex, receipt.setup):
            receipt.repair = _verification_stage(p, ex)
        receipt.escaped = escapees.end(ex.run_id, min(p.options.grace, ESCAPEE_GRACE), ex.mask)
        _conclude(p, ex, receipt)
        receipt.duration = round(time.monotonic() - started, 3)
        store.write(ex.folder, receipt.to_dict())
        store.prune(p.evidence_dir, p.options.keep)
    return Result(receipt, path)


def run_setup(p: Prepared, ex: Execution) -> tuple[bool, int]:
    """Run the setup commands in order, stopping at the first that does not pass; (passed, commands run)."""
    count = 0
    for step in p.setup:
        if ex.interrupted or ex.blocker is not None:
            return False, count
        count += 1
        if ex.run_step(step).status != "passed":
            return False, count
    return not ex.interrupted and ex.blocker is None, count


def _setup_stage(p: Prepared, ex: Execution) -> dict[str, Any]:
    lockfiles = lockfile_digests(p.config_dir, p.root)
    info: dict[str, Any] = {**p.setup_source, "ran": False, "ok": None, "fromRun": None, "lockfiles": lockfiles}
    info.update(commandsRun=0, twice=None)
    if p.options.no_setup:
        if p.setup:
            info["fromRun"], info["lockfiles"] = _previous_setup(p.evidence_dir)
        return info
    info["ran"] = True
    if p.options.twice:
        twice = idempotency.run_twice(p, ex, run_setup)
        info.update(ok=twice.ok, commandsRun=twice.commands_run, twice=twice.to_dict())
    else:
        info["ok"], info["commandsRun"] = run_setup(p, ex)
    return info


def _may_verify(ex: Execution, setup: dict[str, Any]) -> bool:
    """Verification runs unless the run was interrupted or a setup command did not pass."""
    return not ex.interrupted and not (setup["ran"] and not setup["ok"])


def _run_checks(p: Prepared, ex: Execution) -> None:
    for step in p.checks:
        if ex.interrupted:
            return
        record = ex.run_step(step)
        if p.options.fail_fast and record.status != "passed":
            return


def _verification_stage(p: Prepared, ex: Execution) -> dict[str, Any]:
    """Run the checks; repair once what a tier cures and run them again. The repair record."""
    first_at, blockers_at = len(ex.records), len(ex.blockers)
    _run_checks(p, ex)
    record: dict[str, Any] = {"attempted": False, "because": [], "tiers": [], "installs": [], "reVerified": False}
    record["firstRun"] = []
    if not p.options.repair or ex.interrupted or all(r.status == "passed" for r in ex.records[first_at:]):
        return record

    needs = repair.needs(ex.records[first_at:], p.project_root)
    record["because"] = [n.to_dict() for n in needs]
    tiers = list(dict.fromkeys(n.tier for n in needs if n.tier is not None))
    if not tiers:
        return record
    first = ex.records[first_at:]
    del ex.records[first_at:]
    del ex.blockers[blockers_at:]
    env_path = os.pathsep.join([str(p.target.bin), os.environ.get("PATH", "")])
    install = ex.run_step(steps.repair(repair.installer(env_path), tiers, p.project_root))
    record.update(attempted=True, tiers=tiers, installs=[_install(install)], firstRun=[_brief(r) for r in first])
    if install.status == "passed" and not ex.interrupted:
        _run_checks(p, ex)
        record["reVerified"] = True
    else:
        ex.records.extend(first)  # no second run: the first one is what there is
    return record


def _install(record: CommandRecord) -> dict[str, Any]:
    return {k: record.to_dict()[k] for k in ("command", "args", "status", "exitCode", "durationSeconds", "log")}


def _brief(record: CommandRecord) -> dict[str, Any]:
    return {"key": record.key, "status": record.status, "exitCode": record.exit_code, "log": record.log["path"]}


def _result(ex: Execution, receipt: Receipt) -> str:
    if ex.interrupted:
        return "interrupted"
    if ex.blocker is not None:
        return "blocked"
    twice = (receipt.setup or {}).get("twice")
    if any(r.status != "passed" for r in ex.records) or (twice is not None and not twice["idempotent"]):
        return "failed"
    return "passed"


def _conclude(p: Prepared, ex: Execution, receipt: Receipt) -> None:
    """The result, the blocker, the environment record and every reason the receipt is not evidence."""
    receipt.result = _result(ex, receipt)
    receipt.blocker = ex.blocker
    receipt.environment = p.target.to_dict(ex.activated_any)
    reasons = _tree_after(p, receipt.clean) if p.bound else []
    if not p.bound:
        reasons.append(
            "not bound to a commit: " + ("no git checkout" if p.top is None else "the repository has no commit")
        )
    if p.options.only:
        reasons.append(f"only some checks ran (--only {' '.join(p.options.only)})")
    twice = (receipt.setup or {}).get("twice")
    if twice is not None and not twice["idempotent"] and len(twice["runs"]) == 2:
        reasons.append(idempotency.not_idempotent(twice))
    if receipt.result != "passed":
        reasons.append(f"the run {receipt.result}")
    receipt.reasons = reasons
    receipt.ended_at = _now()


def _previous_setup(evidence_dir: Path) -> tuple[str | None, dict[str, str] | None]:
    """(run id, lockfile digests) of the newest run whose setup ran and passed."""
    for path, document in store.receipts(evidence_dir):
        setup = document.get("setup") or {}
        if setup.get("ran") and setup.get("ok"):
            return path.parent.name, setup.get("lockfiles")
    return None, None


def _tree_after(p: Prepared, clean: Clean) -> list[str]:
    """Check the tree again at the end; record what changed in *clean*; return why it is not evidence."""
    assert p.checkout is not None
    reasons: list[str] = []
    end_commit, now_changed = gitbind.status(p.checkout.top, p.not_checked)
    changed = now_changed
    if p.dirty:  # already dirty: what changed is a different set of paths, or their contents
        now_state = snapshot_paths(p.checkout.top, now_changed)
        changed = sorted(k for k in set(now_state) | set(p.dirty_state) if now_state.get(k) != p.dirty_state.get(k))
    moved = end_commit != p.checkout.commit
    clean.at_end = not now_changed
    clean.changed_during_run = bool(changed) or moved
    clean.changed_files = changed
    if moved:
        reasons.append(f"HEAD moved during the run (now {end_commit or 'no commit'})")
    if changed:
        reasons.append(f"the working tree changed during the run: {listed(changed)}")
    if p.dirty:
        reasons.append("the working tree was dirty (--allow-dirty)")
    return reasons
