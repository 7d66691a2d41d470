"""``tierlock status``: per tier, the probe's verdict (present, partial and why, absent), with what the receipt says.

The state, the packages and the problems are the probe's own
(:class:`~tierlock.probing.Prober`: the same verdict as ``probe``, ``admit``,
the install verification and the pytest plugin, over every file of the
tier's locked closure; with *deep*, their hashes too). The receipt adds when
the tier was armed, whether its lock changed since (an older lock), whether
another tier replaced its packages (stale), and whether its packages were
removed outside tierlock (a plain ``pip install -r`` or ``uv pip sync`` of
another lock prunes them). Every tier that is not present comes with the one
command that re-arms it.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import TYPE_CHECKING, Any, Literal

from tierlock.frozen import Fields
from tierlock.installer import failures, receipts

if TYPE_CHECKING:
    from pathlib import Path

    from tierlock.environment import Target
    from tierlock.probing import DistributionProbe, TierProbe
    from tierlock.tiers import Project, Tier


class TierStatus(Fields):
    """One tier's row of the report (a :class:`~tierlock.frozen.Fields` value that behaves as the dataclass it was -
    built by position or keyword, equal by its fields, shown with every field, unhashable, changed in place by
    :func:`with_failure` - without building a dataclass at import: that cost every full ``status`` about a
    millisecond)."""

    _fields = (
        "tier",
        "state",
        "packages",
        "satisfied",
        "problems",
        "receipt",
        "stale",
        "remedy",
        "pruned",
        "files_checked",
        "last_failure",
    )

    def __init__(  # noqa: PLR0917 (the signature it had as a dataclass)
        self,
        tier: str,
        state: Literal["present", "partial", "absent", "no-lockfile"],
        packages: int,
        satisfied: int,
        problems: list[str],
        receipt: receipts.Receipt | None,
        stale: bool,
        remedy: str | None,
        pruned: bool = False,
        files_checked: int = 0,
        last_failure: dict[str, Any] | None = None,
    ) -> None:
        self.tier = tier
        self.state = state
        self.packages = packages
        """The distributions the probe looked at (the tier's closure in this environment, the project when needed)."""
        self.satisfied = satisfied
        """Those of them that are present."""
        self.problems = problems
        self.receipt = receipt
        self.stale = stale
        """The receipt names another lockfile digest: installed from an older lock."""
        self.remedy = remedy
        self.pruned = pruned
        """A receipt says the tier was armed, but its packages are gone or changed (removed outside tierlock)."""
        self.files_checked = files_checked
        self.last_failure = last_failure
        """The last ``install-tier`` of the tier that failed, since it last installed (see installer/failures.py)."""

    def to_json(self) -> dict[str, Any]:
        from tierlock.remedies import argv_of

        return {
            "tier": self.tier,
            "state": self.state,
            "packages": self.packages,
            "satisfied": self.satisfied,
            "files_checked": self.files_checked,
            "problems": self.problems,
            "receipt": str(self.receipt.path) if self.receipt else None,
            "installed_at": self.receipt.installed_at if self.receipt else None,
            "older_lock": self.stale,
            "pruned": self.pruned,
            "remedy": self.remedy,
            "remedy_argv": argv_of(self.remedy),
            "last_failure": self.last_failure,
            "without_project": self.without_project,
        }

    @property
    def without_project(self) -> bool:
        """The receipt says the tier was armed without the project itself (``--no-install-project``)."""
        return self.receipt is not None and bool(self.receipt.data.get("without_project"))


def status(
    project: Project, names: Sequence[str], python: str | None, *, deep: bool = False
) -> tuple[Target, list[TierStatus]]:
    """Per tier: the probe's verdict (*deep*: with RECORD hashes) and what its receipt adds."""
    from tierlock.installer.location import resolve_existing
    from tierlock.probing import Prober

    selected = project.select(list(names))
    target = resolve_existing(python, project, [t.name for t in selected])
    prober = Prober(project, target, python=python)
    probed = {t.name: prober.probe(t, deep=deep) for t in selected if t.lockfile.is_file()}
    # Re-arming a tier must not make stale another this report (or ci-require) wants: that remedy loops.
    wanted = {*(str(t.name) for t in selected), *(str(t) for t in project.ci_require)}
    present = [name for name, r in probed.items() if r.present]
    out: list[TierStatus] = []
    for tier in selected:
        receipt = receipts.load(receipts.receipt_path(target.prefix, tier.name))
        result = probed.get(tier.name)
        if result is None:
            relock = f"{relock_command(project, tier)} && {rearm_command(tier.name, python)}"
            out.append(TierStatus(tier.name, "no-lockfile", 0, 0, [], receipt, False, relock))
            continue
        row = _one(project, tier, result, receipt, python, prefix=target.prefix, wanted=(wanted, present))
        out.append(with_failure(row, failures.read(target.prefix, tier.name)))
    return target, out


#: Failures whose remedy changes what made them fail (a build that lacked something, a refused build).
EXPLAINED = ("build-failed", "no-build")


def with_failure(row: TierStatus, failed: dict[str, Any] | None) -> TierStatus:
    """*row* with the tier's last failed install as its first problem, and that failure's remedy as its own.

    A tier that is present again keeps no failure (a later install succeeded some other way), unless the install
    failed at the project's tree: its packages were in by then, the project's were not (and no receipt was written).
    """
    tree = failed is not None and failed.get("step") == failures.PROJECT_STEP
    if failed is None or (row.state == "present" and not tree):
        return row
    error = failed["error"]
    text = f"the last install-tier of {row.tier} failed ({failed.get('failed_at', '?')}): {error.get('message', '')}"
    row.problems.insert(0, text)
    row.last_failure = failed
    # its remedy changes what failed (a build that lacked something, a refused build, the project left out)
    if (tree or error.get("kind") in EXPLAINED) and error.get("remedy"):
        row.remedy = str(error["remedy"])
    return row


def _one(
    project: Project,
    tier: Tier,
    result: TierProbe,
    receipt: receipts.Receipt | None,
    python: str | None,
    *,
    prefix: Path,
    wanted: tuple[Collection[str], Collection[str]] = ((), ()),
) -> TierStatus:
    older = receipt is not None and receipt.lockfiles.get(tier.name) != receipts.file_digest(tier.lockfile)
    problems = [f"{label(d)}: {reason}" for d in result.broken for reason in d.reasons]
    # Marked stale by another tier's --replace-armed, and its packages are really replaced (an interrupted
    # --replace-armed marks the tier before its backend runs: a tier that is still whole is not stale).
    marked = None if result.present else _stale_reason(receipt)
    if marked is not None:
        problems.insert(0, marked)
    # Pruned: a receipt says the tier was armed and whole packages are gone (another tool's sync removed them);
    # a deleted file, an emptied one or a hand change of version is said by the probe's own reasons.
    recorded = receipt.package_names if receipt is not None else set()  # (a root the lock never had was never armed)
    gone = [str(d.name) for d in result.broken if d.state == "absent" and str(d.name) in recorded]
    pruned = receipt is not None and bool(gone)
    if pruned and receipt is not None:
        problems.append(pruned_reason(project, tier.name, receipt.installed_at, gone))
    remedy = None
    if not result.present:
        from tierlock.installer import rearm  # (a tier that is not present: the command that re-arms it)

        answer = rearm.rearming(project, prefix, result, *wanted)
        remedy = answer.remedy
        why = rearm.said(answer)
        if why is not None:
            problems.insert(0, why)
    elif older:
        remedy = rearm_command(tier.name, python)
    checked = result.checked
    satisfied = sum(1 for d in checked if d.present)
    return TierStatus(
        tier.name, result.state, len(checked), satisfied, problems, receipt, older, remedy, pruned, result.files_checked
    )


def _stale_reason(receipt: receipts.Receipt | None) -> str | None:
    from tierlock.installer.target import stale_reason  # (a tier that is not present: was it replaced?)

    return stale_reason(receipt)


def label(dist: DistributionProbe) -> str:
    """``name version`` of a probed distribution (its name alone when no version was read)."""
    return f"{dist.name} {dist.version_text}" if dist.version_text else dist.name


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
    from tierlock.remedies import shell_join

    return shell_join(["install-tier", tier, *(["--python", python] if python is not None else [])])


def lines(target: Target, rows: Sequence[TierStatus], *, verbose: bool = False) -> list[str]:
    """The readable report: a line per tier saying its state in words, then what is wrong and the fix.

    A tier's problems are cut at :data:`tierlock.volume.PACKAGES` unless *verbose*."""
    from tierlock import volume

    version = ".".join(str(v) for v in target.version)
    out = [f"tiers in {target.prefix} ({target.python}, Python {version})"]
    for row in rows:
        out.append(f"{row.tier}: {_summary(row)}")
        shown = volume.capped(row.problems, verbose=verbose, what="problem", hint=volume.CLI_HINT)
        out.extend(f"  {problem}" for problem in shown)
        if row.remedy:
            out.append(f"  to fix: {row.remedy}")
    return out


def _summary(row: TierStatus) -> str:
    if row.state == "no-lockfile":
        return "no lockfile yet: versions cannot be compared"
    packages = f"{row.packages} package{'' if row.packages == 1 else 's'}"
    files = f"{row.files_checked} file{'' if row.files_checked == 1 else 's'} checked"
    broken = row.packages - row.satisfied
    if row.state == "present":
        words = f"present — {packages}, {files}"
    elif row.state == "partial":
        words = f"partial — {broken} of {packages} broken, {files}"
    else:
        words = f"absent — {broken} of {packages} not installed, {files}"
    if row.receipt is not None:
        words += f"; armed {row.receipt.installed_at}"
    if row.stale:
        words += " from an older lock"
    if row.without_project:
        words += "; without the project itself (--no-install-project)"
    return words
