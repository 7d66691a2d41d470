"""Sibling conflicts: two tiers that can be armed together but whose locks pin a package differently (pure).

Two tiers can be armed together unless one is layered on the other (then the
layer-consistency check covers them) or ``[tool.tierlock].conflicts`` declares
them, or tiers below them, mutually exclusive. For every other pair, each
package both locks pin must carry the same version wherever their markers can
hold at once; otherwise arming one would replace what the other pinned.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import combinations

from tierlock.frozen import Frozen
from tierlock.lockfiles.fileread import ReadResult
from tierlock.lockfiles.locks import Lock, LockEntry
from tierlock.tiers import Project, Tier


class Disagreement(Frozen):
    """One package two sibling locks pin differently."""

    _fields = ("name", "first", "second")

    name: str
    first: LockEntry
    second: LockEntry

    def __init__(
        self,
        name: str,
        first: LockEntry,
        second: LockEntry,
    ) -> None:
        self._init(name, first, second)

    def to_dict(self, project: Project, first: Lock, second: Lock) -> dict[str, object]:
        return {
            "package": self.name,
            "versions": [str(self.first.version), str(self.second.version)],
            "places": [_place(project, first, self.first), _place(project, second, self.second)],
        }


class SiblingConflict(Frozen):
    _fields = ("first", "second", "first_lock", "second_lock", "packages")

    first: Tier
    second: Tier
    first_lock: Lock
    second_lock: Lock
    packages: tuple[Disagreement, ...]

    def __init__(
        self,
        first: Tier,
        second: Tier,
        first_lock: Lock,
        second_lock: Lock,
        packages: tuple[Disagreement, ...],
    ) -> None:
        self._init(first, second, first_lock, second_lock, packages)

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

    def remedy(self, project: Project, layering: tuple[Tier, Tier] | None = None) -> str:
        """What resolves the pair: *layering* (upper, lower) when one was found that locks
        (:func:`remedies`), else aligning the requirements or declaring the tiers in conflict."""
        names = ", ".join(d.name for d in self.packages)
        exclusive = f'conflicts = [["{self.first.name}", "{self.second.name}"]] in [tool.tierlock]'
        if project.lock is not None:  # the committed lock is read as it is: a layering needs no lock, edits do
            from tierlock.lockfiles.sources import remedy as relock

            layer = (
                f'layer one on the other: set layered-on = "{layering[1].name}" in '
                f"[tool.tierlock.tiers.{layering[0].name}], then run: tierlock check (or "
                if layering is not None
                else ""
            )
            return (
                f"{layer}declare them with {exclusive} when they are never armed together, then run: tierlock check; "
                f"or align the requirements of {names} in both tiers, then run: {relock(project)}"
                + (")" if layer else "")
            )
        if layering is not None:
            upper, lower = layering
            return (
                f'layer one on the other: set layered-on = "{lower.name}" in [tool.tierlock.tiers.{upper.name}], '
                f"then run: tierlock lock {upper.name} (or align the requirements of {names} in both tiers; "
                f"tiers never armed together are declared with {exclusive})"
            )
        return (
            f"the tiers cannot be layered one on the other (each one's requirements exclude the other's pins, or "
            f"another layering is suggested for them): declare them with {exclusive} when they are never armed "
            f"together, or align the requirements of {names} in both tiers, then run: tierlock lock "
            f"{self.first.name} {self.second.name}"
        )


def remedies(project: Project, found: Sequence[SiblingConflict], locks: Mapping[str, ReadResult | None]) -> list[str]:
    """One remedy per conflict, with at most one ``layered-on`` suggested per tier across all of them.

    A layering (upper on lower) is suggested only where it keeps what upper was layered on and the lock would
    succeed as far as the project says: every requirement of upper's closure accepts lower's pins. A pair
    that the layering suggested for an earlier pair resolves (the lower tier pins what the other side pins)
    gets that same suggestion; a pair with no such layering is offered ``conflicts`` instead.
    """
    chosen: dict[str, Tier] = {}
    out: list[str] = []
    for conflict in found:
        layering = _settled(conflict, chosen, locks) or _layering(project, conflict, chosen, locks)
        if layering is not None:
            chosen.setdefault(str(layering[0].name), layering[1])
        out.append(conflict.remedy(project, layering))
    return out


def _settled(
    conflict: SiblingConflict, chosen: Mapping[str, Tier], locks: Mapping[str, ReadResult | None]
) -> tuple[Tier, Tier] | None:
    """The layering chosen already for one side of *conflict*, when it resolves this pair too."""
    for side, other in ((conflict.first, conflict.second_lock), (conflict.second, conflict.first_lock)):
        lower = chosen.get(str(side.name))
        read = locks.get(lower.name) if lower is not None else None
        if lower is None or read is None:
            continue
        pins = {str(e.name): e.version for e in read.lock.entries}
        wanted = {str(e.name): e.version for e in other.entries}
        if all(pins.get(d.name) == wanted.get(d.name) for d in conflict.packages):
            return side, lower
    return None


def _layering(
    project: Project, conflict: SiblingConflict, chosen: Mapping[str, Tier], locks: Mapping[str, ReadResult | None]
) -> tuple[Tier, Tier] | None:
    for upper, lower in _directions(project, conflict.first, conflict.second):
        taken = chosen.get(str(upper.name))
        read = locks.get(lower.name)
        if (taken is None or taken.name == lower.name) and read is not None and accepts(project, upper, read.lock):
            return upper, lower
    return None


def accepts(project: Project, upper: Tier, lower: Lock) -> bool:
    """Whether every requirement of *upper*'s closure accepts the version *lower* pins of its package."""
    from packaging.utils import canonicalize_name

    pins = {str(e.name): e.version for e in lower.entries}
    for requirement in project.closure_requirements(upper.name):
        version = pins.get(canonicalize_name(requirement.name))
        if version is not None and not requirement.specifier.contains(version, prereleases=True):
            return False
    return True


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
            if other.version == entry.version:
                continue
            from tierlock.lockfiles.markers import overlap  # (loaded when two pins differ: most tiers agree)

            if overlap(entry.marker, other.marker):
                out.append(Disagreement(entry.name, entry, other))
                reported.add(entry.name)
                break
    return sorted(out, key=lambda d: d.name)


def _directions(project: Project, first: Tier, second: Tier) -> list[tuple[Tier, Tier]]:
    """(upper, lower) pairs where layering *upper* on *lower* keeps everything *upper* was layered on."""
    out: list[tuple[Tier, Tier]] = []
    if second.layered_on in {t.name for t in project.chain(first.name)}:
        out.append((second, first))
    if first.layered_on in {t.name for t in project.chain(second.name)}:
        out.append((first, second))
    return out


def _place(project: Project, lock: Lock, entry: LockEntry) -> str:
    where = project.relpath(lock.path)
    return f"{where}:{entry.line}" if entry.line else where
