"""The install plan: a pure function from what the locks want and what is installed.

Per locked package the plan says one of:

* ``satisfied`` - the locked version is installed and the probe finds it whole;
* ``install`` - nothing of that name is installed;
* ``replace`` - another version is installed;
* ``repair`` - the locked version is installed but the probe finds it partial
  (missing or resized files, a missing compiled artifact, an empty import root).

No filesystem, no subprocess: the edges (``run.py``) gather :class:`Installed`
facts with the probe and hand them in.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Literal

from tierlock.frozen import Frozen, replace
from tierlock.lockfiles.locks import LockEntry

if TYPE_CHECKING:
    from packaging.utils import NormalizedName
    from packaging.version import Version

Action = Literal["satisfied", "install", "replace", "repair"]
ACTIONS: tuple[Action, ...] = ("install", "replace", "repair", "satisfied")
State = Literal["present", "present-editable", "partial", "absent"]


class Installed(Frozen):
    """What the probe found for one distribution in the target (a :class:`~tierlock.frozen.Frozen` value: the
    classes an arming loads beside its backend build no dataclass, whose making costs its CPU there)."""

    _fields = ("name", "version", "state", "reasons")

    name: NormalizedName
    version: Version | None
    """None when the metadata is unreadable (a husk without METADATA)."""
    state: State
    reasons: tuple[str, ...]

    def __init__(
        self, name: NormalizedName, version: Version | None, state: State, reasons: tuple[str, ...] = ()
    ) -> None:
        self._init(name, version, state, reasons)


class Step(Frozen):
    """The decision for one locked package."""

    _fields = ("entry", "action", "reason", "installed")

    entry: LockEntry
    action: Action
    reason: str
    installed: Installed | None

    def __init__(self, entry: LockEntry, action: Action, reason: str, installed: Installed | None = None) -> None:
        self._init(entry, action, reason, installed)

    @property
    def name(self) -> NormalizedName:
        return self.entry.name

    def to_dict(self) -> dict[str, object]:
        return {
            "name": self.entry.name,
            "version": str(self.entry.version),
            "installed_version": str(self.installed.version) if self.installed and self.installed.version else None,
            "reason": self.reason,
        }


class Plan(Frozen):
    """Every locked package of the requested tiers with its action, sorted by name."""

    _fields = ("steps",)

    steps: tuple[Step, ...]

    def __init__(self, steps: tuple[Step, ...]) -> None:
        self._init(steps)

    def of(self, action: Action) -> list[Step]:
        return [s for s in self.steps if s.action == action]

    @property
    def changes(self) -> list[Step]:
        """The steps that need the backend (everything but ``satisfied``)."""
        return [s for s in self.steps if s.action != "satisfied"]

    @property
    def is_noop(self) -> bool:
        return not self.changes

    def counts(self) -> dict[Action, int]:
        return {a: len(self.of(a)) for a in ACTIONS}

    def to_dict(self) -> dict[str, list[dict[str, object]]]:
        return {a: [s.to_dict() for s in self.of(a)] for a in ACTIONS}

    def forced(self, names: Collection[str]) -> Plan:
        """This plan with every ``satisfied`` step of *names* turned into a ``repair`` (a forced reinstall)."""
        if not names:
            return self
        return Plan(
            tuple(
                replace(s, action="repair", reason="reinstall requested")
                if s.action == "satisfied" and s.name in names
                else s
                for s in self.steps
            )
        )


class ConflictingPins(ValueError):
    """Two locks pin one package to different versions."""

    def __init__(self, name: str, first: LockEntry, second: LockEntry, where: tuple[str, str]) -> None:
        super().__init__(f"{name} is pinned to {first.version} by {where[0]} and to {second.version} by {where[1]}")
        self.name = name
        self.where = where


def merge_entries(locks: Sequence[tuple[str, Iterable[LockEntry]]]) -> list[LockEntry]:
    """The union of the entries of several locks (already filtered by marker).

    A package pinned identically by several locks appears once; pinned
    differently, :class:`ConflictingPins` is raised - the tiers cannot be armed
    together.
    """
    merged: dict[NormalizedName, tuple[str, LockEntry]] = {}
    for label, entries in locks:
        for entry in entries:
            seen = merged.get(entry.name)
            if seen is None:
                merged[entry.name] = (label, entry)
            elif seen[1].version != entry.version:
                raise ConflictingPins(entry.name, seen[1], entry, (seen[0], label))
    return [merged[name][1] for name in sorted(merged)]


def make_plan(entries: Iterable[LockEntry], installed: Mapping[NormalizedName, Installed]) -> Plan:
    """Decide, per locked entry, what the backend has to do."""
    steps: list[Step] = []
    for entry in sorted(entries, key=lambda e: e.name):
        found = installed.get(entry.name)
        steps.append(_decide(entry, found))
    return Plan(tuple(steps))


def _decide(entry: LockEntry, found: Installed | None) -> Step:
    if found is None or found.state == "absent":
        return Step(entry, "install", "not installed", found)
    if found.version is None:
        why = "; ".join(found.reasons) or "its metadata has no version"
        return Step(entry, "repair", why, found)
    if found.version != entry.version:
        return Step(entry, "replace", f"{found.version} installed, {entry.version} locked", found)
    if found.state == "partial":
        return Step(entry, "repair", "; ".join(found.reasons) or "the probe finds it partial", found)
    if found.state == "present-editable":
        return Step(entry, "satisfied", "editable install of the locked version (kept)", found)
    return Step(entry, "satisfied", "present", found)


def requirement_lines(steps: Iterable[Step]) -> list[str]:
    """Exact ``name==version --hash=...`` lines for the backend's requirements file.

    A direct reference of the lock (``name @ URL``) stays one: the file at that
    URL, hash-checked, not whatever an index has under that version.
    """
    lines: list[str] = []
    for step in steps:
        entry = step.entry
        # Every entry carries its hashes: a pylock file without a usable hash is refused before any plan.
        pin = f"{entry.name} @ {entry.url}" if entry.url else f"{entry.name}=={entry.version}"
        parts = [pin] + [f"--hash={h}" for h in dict.fromkeys(entry.hashes)]
        lines.append(" \\\n    ".join(parts))
    return lines
