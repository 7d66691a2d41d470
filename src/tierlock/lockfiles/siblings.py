"""Sibling conflicts: two tiers that can be armed together but whose locks pin a package differently (pure).

Two tiers can be armed together unless one is layered on the other (then the
layer-consistency check covers them) or ``[tool.tierlock].conflicts`` declares
them, or tiers below them, mutually exclusive. For every other pair, each
package both locks pin must carry the same version wherever their markers can
hold at once; otherwise arming one would replace what the other pinned.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations

from tierlock.lockfiles.fileread import ReadResult
from tierlock.lockfiles.locks import Lock, LockEntry
from tierlock.lockfiles.markers import overlap
from tierlock.tiers import Project, Tier


@dataclass(frozen=True)
class Disagreement:
    """One package two sibling locks pin differently."""

    name: str
    first: LockEntry
    second: LockEntry

    def to_dict(self, project: Project, first: Lock, second: Lock) -> dict[str, object]:
        return {
            "package": self.name,
            "versions": [str(self.first.version), str(self.second.version)],
            "places": [_place(project, first, self.first), _place(project, second, self.second)],
        }


@dataclass(frozen=True)
class SiblingConflict:
    first: Tier
    second: Tier
    first_lock: Lock
    second_lock: Lock
    packages: tuple[Disagreement, ...]

    def detail(self, project: Project) -> str:
        parts = [
            f"{d.name} {d.first.version} ({_place(project, self.first_lock, d.first)}) vs "
            f"{d.second.version} ({_place(project, self.second_lock, d.second)})"
            for d in self.packages
        ]
        return (
            f"{self.first.name} and {self.second.name} can be armed together but their locks disagree on "
            f"{len(self.packages)} package(s): " + "; ".join(parts)
        )

    def remedy(self, project: Project) -> str:
        names = ", ".join(d.name for d in self.packages)
        exclusive = f'conflicts = [["{self.first.name}", "{self.second.name}"]] in [tool.tierlock]'
        upper, lower = _layering(project, self.first, self.second)
        if upper is not None and lower is not None:
            return (
                f'layer one on the other: set layered-on = "{lower.name}" in [tool.tierlock.tiers.{upper.name}], '
                f"then run: tierlock lock {upper.name} (or align the requirements of {names} in both tiers; "
                f"tiers never armed together are declared with {exclusive})"
            )
        return (
            f"align the requirements of {names} in both tiers, then run: tierlock lock {self.first.name} "
            f"{self.second.name} (tiers never armed together are declared with {exclusive})"
        )


def can_arm_together(project: Project, first: Tier, second: Tier) -> bool:
    """Neither is layered on the other and no declared conflict separates them."""
    if first.name == second.name:
        return False
    if first.name in {t.name for t in project.chain(second.name)}:
        return False
    if second.name in {t.name for t in project.chain(first.name)}:
        return False
    return not project.exclusive(first.name, second.name)


def conflicts(project: Project, tiers: Sequence[Tier], locks: Mapping[str, ReadResult | None]) -> list[SiblingConflict]:
    """Every pair of *tiers* that can be armed together and whose locks disagree, in project order."""
    out: list[SiblingConflict] = []
    for first, second in combinations(tiers, 2):
        a, b = locks.get(first.name), locks.get(second.name)
        if a is None or b is None or not can_arm_together(project, first, second):
            continue
        found = disagreements(a.lock.entries, b.lock.entries)
        if found:
            out.append(SiblingConflict(first, second, a.lock, b.lock, tuple(found)))
    return out


def disagreements(first: Sequence[LockEntry], second: Sequence[LockEntry]) -> list[Disagreement]:
    """Packages pinned to different versions where the two entries' markers can hold at once."""
    by_name: dict[str, list[LockEntry]] = {}
    for entry in second:
        by_name.setdefault(entry.name, []).append(entry)
    out: list[Disagreement] = []
    reported: set[str] = set()
    for entry in first:
        if entry.name in reported:
            continue
        for other in by_name.get(entry.name, ()):
            if other.version != entry.version and overlap(entry.marker, other.marker):
                out.append(Disagreement(entry.name, entry, other))
                reported.add(entry.name)
                break
    return sorted(out, key=lambda d: d.name)


def _layering(project: Project, first: Tier, second: Tier) -> tuple[Tier | None, Tier | None]:
    """(upper, lower): layering *upper* on *lower* keeps everything *upper* was layered on."""
    if second.layered_on in {t.name for t in project.chain(first.name)}:
        return second, first
    if first.layered_on in {t.name for t in project.chain(second.name)}:
        return first, second
    return None, None


def _place(project: Project, lock: Lock, entry: LockEntry) -> str:
    where = project.relpath(lock.path)
    return f"{where}:{entry.line}" if entry.line else where
