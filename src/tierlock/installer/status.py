"""``tierlock status``: per tier, present, partial (and why), absent, or installed from an older lock.

A tier whose receipt is in the target but whose packages are gone (a plain
``pip install -r`` or ``uv pip sync`` of another lock pruned them) is
reported as such, with the command that re-arms it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from tierlock.installer import failures, receipts, verification

if TYPE_CHECKING:
    from tierlock.environment import Target
    from tierlock.tiers import Project, Tier


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
    last_failure: dict[str, Any] | None = None
    """The last ``install-tier`` of the tier that failed, since it last installed (see installer/failures.py)."""

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
            "last_failure": self.last_failure,
        }


def status(project: Project, names: Sequence[str], python: str | None) -> tuple[Target, list[TierStatus]]:
    """Per tier: present, partial (what is wrong), absent, or installed from an older lock."""
    from tierlock import lockfiles
    from tierlock.installer.target import project_itself_left_out, resolve_existing, stale_reason
    from tierlock.probing import Prober
    from tierlock.probing.libraries import only_libraries, system_remedy

    selected = project.select(list(names))
    target = resolve_existing(python, project, [t.name for t in selected])
    prober = Prober(project, target, python=python)
    out: list[TierStatus] = []
    for tier in selected:
        receipt = receipts.load(receipts.receipt_path(target.prefix, tier.name))
        if not tier.lockfile.is_file():
            relock = f"{relock_command(project, tier)} && {rearm_command(tier.name, python)}"
            out.append(TierStatus(tier.name, "no-lockfile", 0, 0, [], receipt, False, relock))
            continue
        lock = lockfiles.load_tier(project, tier)
        entries = project_itself_left_out(lock.applicable(target.marker_env), project)
        plan = verification.plan_for(entries, target, {k: tuple(v) for k, v in tier.import_roots.items()})
        satisfied = len(plan.of("satisfied"))
        stale = receipt is not None and receipt.lockfiles.get(tier.name) != receipts.file_digest(tier.lockfile)
        # The state is the probe's one verdict (the same as probe, admit and the pytest plugin).
        probed = prober.probe(tier)
        state: Literal["present", "partial", "absent"] = probed.state
        problems = [f"{s.entry.pin}: {s.reason}" for s in plan.changes if state != "absent"]
        lacking = [f"{d.name}: {r}" for d in probed.checked if only_libraries(d) for r in d.reasons]
        problems += lacking
        marked = stale_reason(receipt)
        if marked is not None:  # another tier replaced its packages on purpose (--replace-armed)
            problems.insert(0, marked)
        pruned = receipt is not None and state != "present" and not (lacking and plan.is_noop)
        gone = [str(s.name) for s in plan.of("install")]
        if pruned and receipt is not None and (state == "absent" or gone):
            problems.append(pruned_reason(project, tier.name, receipt.installed_at, gone))
        remedy = None if plan.is_noop and state == "present" and not stale else rearm_command(tier.name, python)
        if plan.is_noop and not stale and system_remedy(probed.checked):  # a system library: no reinstall helps
            remedy = probed.install_command
        row = TierStatus(tier.name, state, len(plan.steps), satisfied, problems, receipt, stale, remedy, pruned)
        out.append(with_failure(row, failures.read(target.prefix, tier.name)))
    return target, out


#: Failures whose remedy changes what made them fail (a build that lacked something, a refused build).
EXPLAINED = ("build-failed", "no-build")


def with_failure(row: TierStatus, failed: dict[str, Any] | None) -> TierStatus:
    """*row* with the tier's last failed install as its first problem, and that failure's remedy as its own.

    A tier that is present again keeps no failure (a later install succeeded some other way).
    """
    if failed is None or row.state == "present":
        return row
    error = failed["error"]
    text = f"the last install-tier of {row.tier} failed ({failed.get('failed_at', '?')}): {error.get('message', '')}"
    row.problems.insert(0, text)
    row.last_failure = failed
    if error.get("kind") in EXPLAINED and error.get("remedy"):  # its remedy changes what failed
        row.remedy = str(error["remedy"])
    return row


def pruned_reason(project: Project, tier: str, installed_at: str, gone: Sequence[str]) -> str:
    """Why a tier with a receipt lost packages: who prunes them, and (on a uv project) how to keep them."""
    which = f" ({', '.join(gone)})" if gone else ""
    said = f"armed on {installed_at} (its receipt is there), but packages{which} were removed outside tierlock"
    if project.lock is not None and project.lock.name == "uv.lock":
        return (
            f"{said}: a plain `uv sync` makes the environment exactly uv.lock's default selection (the project's "
            f"dependencies and default groups) and removes the rest; `uv sync --inexact` keeps {tier}, "
            f"and `uv run` keeps it too"
        )
    return f"{said} (a plain pip install -r or uv pip sync of another lock prunes them)"


def relock_command(project: Project, tier: Tier) -> str:
    from tierlock.lockfiles.sources import remedy

    return remedy(project, tier)


def rearm_command(tier: str, python: str | None) -> str:
    """``install-tier TIER`` for the environment status looked at (``--python`` when it was given one)."""
    import shlex

    return shlex.join(["install-tier", tier, *(["--python", python] if python is not None else [])])
