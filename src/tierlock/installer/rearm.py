"""The remedy that re-arms a tier, with what install-tier needs to accept it (pure over receipts and the probe).

``install-tier X`` refuses to replace a package another armed tier's receipt
pins (:func:`tierlock.installer.target.refuse_armed_conflicts`). A remedy that
re-arms X in such an environment (a tier made stale by ``--replace-armed``, an
interrupted ``install-tier X --replace-armed``, a sibling armed first) would be
refused as printed, so it carries ``--replace-armed`` exactly when install-tier
would refuse without it: a package of X's lock, installed at another version
(or not at all), that another armed tier's receipt pins at a version its own
current lock does not pin too. A package already at X's version replaces
nothing (a husk repair of it is never refused).

Fast path: JSON receipts and the lock the probe read already; no subprocess.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, NamedTuple

from tierlock.installer import receipts

if TYPE_CHECKING:
    from pathlib import Path

    from tierlock.probing import TierProbe
    from tierlock.tiers import Project

FLAG = "--replace-armed"


def blocking(
    locked: Mapping[str, str],
    installed: Mapping[str, str | None],
    armed: Mapping[str, receipts.Receipt],
    *,
    skip: Sequence[str],
    others_locked: Mapping[str, Mapping[str, str]] | None = None,
) -> dict[str, list[str]]:
    """Per other armed tier: the packages arming a tier whose lock pins *locked* (name -> version) replaces.

    *installed*: name -> the version in the environment (None or missing: not installed). *skip*: the tier
    and the tiers it is layered on. *others_locked*: per other tier, what its current lock pins (a receipt
    pin its lock moved to the new version too is not a conflict, as install-tier decides).
    """
    out: dict[str, list[str]] = {}
    for tier, receipt in armed.items():
        if tier in skip:
            continue
        current: Mapping[str, str] | None = None  # (its lock read only for a package that would be replaced)
        for package in receipt.packages:
            name, version = str(package.get("name")), str(package.get("version"))
            new = locked.get(name)
            if new is None or new == version or installed.get(name) == new:
                continue
            if current is None:
                current = (others_locked or {}).get(tier, {})
            if current.get(name) != new:
                out.setdefault(tier, []).append(name)
    return out


class _Pins(Mapping[str, Mapping[str, str]]):
    """Per other armed tier (*tiers*), what its current lock pins: worked out when first asked for (most receipts
    pin nothing the tier re-armed would replace, and their tiers' locks are then not looked into)."""

    def __init__(self, project: Project, tiers: Sequence[str]) -> None:
        self.project = project
        self.tiers = tiers
        self.found: dict[str, dict[str, str]] = {}

    def __getitem__(self, tier: str) -> Mapping[str, str]:
        if tier not in self.tiers:
            raise KeyError(tier)
        pins = self.found.get(tier)
        if pins is None:
            pins = self.found[tier] = _locked(self.project, tier)
        return pins

    def __iter__(self) -> Iterator[str]:
        return iter(self.tiers)

    def __len__(self) -> int:
        return len(self.tiers)


def with_flag(command: str) -> str:
    """*command* (one printed command, or a chain) with ``--replace-armed`` on its last part."""
    return command if command.rsplit(" && ", maxsplit=1)[-1].split()[-1:] == [FLAG] else f"{command} {FLAG}"


def blockers(project: Project, prefix: Path, probed: TierProbe) -> dict[str, list[str]]:
    """Per armed tier whose receipt pins what re-arming *probed* replaces: those packages (:func:`blocking`);
    empty for a tier that is present or whose remedy arms nothing."""
    command = probed.install_command
    if probed.present or not command.split(" && ")[-1].startswith("install-tier "):
        return {}
    armed = receipts.load_all(prefix)
    if not armed:
        return {}
    locked = {str(d.name): d.locked_text for d in probed.checked if d.locked_text}
    installed = {str(d.name): d.version_text for d in probed.checked}
    skip = [str(t.name) for t in project.chain(probed.tier)]
    others = _Pins(project, [name for name in armed if name not in skip])
    return blocking({k: v for k, v in locked.items() if v}, installed, armed, skip=skip, others_locked=others)


def remedy(project: Project, prefix: Path, probed: TierProbe) -> str:
    """The probe's install command for *probed*, with ``--replace-armed`` when install-tier needs it."""
    command = probed.install_command
    return with_flag(command) if blockers(project, prefix, probed) else command


class Rearming(NamedTuple):
    """What re-arming a tier that is not present does to the others a command answers for (:func:`rearming`)."""

    tier: str
    command: str
    """The install command install-tier accepts here (with ``--replace-armed`` when it needs it)."""
    loops: tuple[str, ...]
    """Armed tiers the command also wants that re-arming makes stale, not declared in conflict with the tier:
    re-arming either only swaps which of the two is missing (their locks must agree: ``tierlock check``)."""
    apart: tuple[str, ...]
    """Armed tiers the command also wants, present here and declared in conflict with the tier, that re-arming
    it replaces: this environment is theirs on purpose (``install-tier TIER --replace-armed`` swaps them)."""
    packages: tuple[str, ...] = ()
    """The packages re-arming the tier replaces under those tiers."""

    @property
    def remedy(self) -> str | None:
        """The one command that converges: ``tierlock check`` naming the pair when re-arming loops, nothing when
        the tier is kept apart on purpose, else the install command."""
        if self.loops:
            return check_command(self.tier, self.loops)
        return None if self.apart else self.command


def rearming(
    project: Project, prefix: Path, probed: TierProbe, wanted: Collection[str], present: Collection[str] = ()
) -> Rearming:
    """Re-arming *probed* (not present) beside the tiers a command answers for (*wanted*: the tiers it reports,
    and the project's ``ci-require``) of which *present* are present: see :class:`Rearming`."""
    found = blockers(project, prefix, probed)
    command = relocked(project, probed, with_flag(probed.install_command) if found else probed.install_command)
    tier = str(probed.tier)
    loops = tuple(sorted(t for t in found if t in wanted and t != tier and not project.exclusive(tier, t)))
    apart = tuple(sorted(t for t in found if t in wanted and t in present and project.exclusive(tier, t)))
    packages = tuple(sorted({p for t in (*loops, *apart) for p in found[t]}))
    return Rearming(tier, command, loops, apart, packages)


def said(answer: Rearming) -> str | None:
    """The line that says why *answer*'s remedy is not the install (None when it is)."""
    names = ", ".join(answer.packages)
    if answer.loops:
        others = ", ".join(answer.loops)
        return (
            f"re-arming {answer.tier} replaces {names} that {others} pin(s) at another version, and {others} is "
            f"wanted here too: re-arming either only makes the other stale; tierlock check names the edit that "
            f"lets the locks agree"
        )
    if answer.apart:
        others = ", ".join(answer.apart)
        return (
            f"declared in conflict with {others} (present here): one environment holds one of them; "
            f"to swap them, run: {answer.command}"
        )
    return None


def relocked(project: Project, probed: TierProbe, command: str) -> str:
    """*command* (an install of *probed*) after what install-tier's offline drift check would refuse it for first:
    a lock out of date with pyproject.toml (a requirement added, a bound moved, the base changed) is locked again,
    as the refusal's own remedy says (``tierlock lock brain && install-tier brain``)."""
    if not command.rsplit(" && ", maxsplit=1)[-1].startswith("install-tier "):
        return command
    from tierlock.lockfiles.check import findings, one_remedy, read_locks
    from tierlock.remedies import argv_of

    chain = project.with_layers([probed.tier])
    if any(not t.lockfile.is_file() for t in chain) and project.lock is None:
        return command  # (no lockfile: the probe's own command locks it first)
    report = findings(project, chain, read_locks(project, chain))
    first = one_remedy((f.remedy for f in report.findings), [probed.tier])
    if report.ok or not first or command.startswith(f"{first} && "):
        return command
    if argv_of(first) is None or first.startswith("tierlock check "):
        return first  # (an edit in words, or the check that lists several: the install is for after them)
    return f"{first} && {command}"


def check_command(tier: str, others: Sequence[str]) -> str:
    """``tierlock check TIER OTHER...``: its ``sibling-conflict`` finding names the edit that lets the locks agree."""
    from tierlock.remedies import shell_join

    return shell_join(["tierlock", "check", tier, *others])


def _locked(project: Project, tier: str) -> dict[str, str]:
    """What *tier*'s current lock pins (empty when it is not declared or has no readable lock)."""
    from packaging.utils import canonicalize_name

    spec = project.tiers.get(canonicalize_name(tier))
    if spec is None or not spec.lockfile.is_file():
        return {}
    from tierlock import lockfiles

    try:
        return {str(e.name): str(e.version) for e in lockfiles.load_tier(project, spec).entries}
    except Exception:  # an unreadable lock: its receipt's pins are what counts
        return {}
