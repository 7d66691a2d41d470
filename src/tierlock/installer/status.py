"""``tierlock status``: per tier, present, partial (and why), absent, or installed from an older lock.

A tier whose receipt is in the target but whose packages are gone (a plain
``pip install -r`` or ``uv pip sync`` of another lock pruned them) is
reported as such, with the command that re-arms it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from tierlock.installer import receipts, verification

if TYPE_CHECKING:
    from tierlock.environment import Target
    from tierlock.tiers import Project


@dataclass
class TierStatus:
    tier: str
    state: Literal["present", "partial", "absent", "no-lockfile"]
    packages: int
    satisfied: int
    problems: list[str]
    receipt: receipts.Receipt | None
    stale: bool
    """The receipt names another lockfile digest: installed from an older lock."""
    remedy: str | None
    pruned: bool = False
    """A receipt says the tier was armed, but its packages are gone or changed (removed outside tierlock)."""

    def to_json(self) -> dict[str, Any]:
        return {
            "tier": self.tier,
            "state": self.state,
            "packages": self.packages,
            "satisfied": self.satisfied,
            "problems": self.problems,
            "receipt": str(self.receipt.path) if self.receipt else None,
            "installed_at": self.receipt.installed_at if self.receipt else None,
            "older_lock": self.stale,
            "pruned": self.pruned,
            "remedy": self.remedy,
        }


def status(project: Project, names: Sequence[str], python: str | None) -> tuple[Target, list[TierStatus]]:
    """Per tier: present, partial (what is wrong), absent, or installed from an older lock."""
    from tierlock import environment, lockfiles

    target = environment.resolve(python)
    out: list[TierStatus] = []
    for tier in project.select(list(names)):
        receipt = receipts.load(receipts.receipt_path(target.prefix, tier.name))
        if not tier.lockfile.is_file():
            relock = f"tierlock lock {tier.name} && {rearm_command(tier.name, python)}"
            out.append(TierStatus(tier.name, "no-lockfile", 0, 0, [], receipt, False, relock))
            continue
        lock = lockfiles.load(tier.lockfile)
        entries = lock.applicable(target.marker_env)
        plan = verification.plan_for(entries, target, {k: tuple(v) for k, v in tier.import_roots.items()})
        satisfied = len(plan.of("satisfied"))
        stale = receipt is not None and receipt.lockfiles.get(tier.name) != receipts.file_digest(tier.lockfile)
        # Absent, as the probe judges a tier: none of its roots is installed (what it is layered on may be).
        roots = [s for s in plan.steps if s.name in tier.probe] or list(plan.steps)
        state: Literal["present", "partial", "absent"]
        if plan.is_noop:
            state = "present"
        elif all(s.action == "install" for s in roots):
            state = "absent"
        else:
            state = "partial"
        problems = [f"{s.entry.pin}: {s.reason}" for s in plan.changes if state == "partial"]
        pruned = receipt is not None and state != "present"
        if pruned and state == "absent":
            problems.append(
                f"armed on {receipt.installed_at if receipt else '?'} (its receipt is there), but its packages were "
                "removed outside tierlock (a plain pip install -r or uv pip sync of another lock prunes them)"
            )
        remedy = None if state == "present" and not stale else rearm_command(tier.name, python)
        out.append(TierStatus(tier.name, state, len(plan.steps), satisfied, problems, receipt, stale, remedy, pruned))
    return target, out


def rearm_command(tier: str, python: str | None) -> str:
    """``install-tier TIER`` for the environment status looked at (``--python`` when it was given one)."""
    import shlex

    return shlex.join(["install-tier", tier, *(["--python", python] if python is not None else [])])
