"""What the offline drift check reports: one :class:`Finding` per problem, and the :class:`Report` of a check.

Kept apart from :mod:`tierlock.lockfiles.check` so that the readers of a project's own lock
(:mod:`tierlock.lockfiles.committed`) build findings without importing the check that calls them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal, get_args

from tierlock import located
from tierlock.frozen import Frozen

FindingKind = Literal[
    "missing",
    "input-drift",
    "base-moved",
    "hand-edit",
    "integrity",
    "outside-project",
    "header",
    "layer-consistency",
    "sibling-conflict",
    "no-artifacts",
    "no-wheel",
    "outside-environments",
]
KINDS: tuple[FindingKind, ...] = get_args(FindingKind)
"""Every kind, in the order reports count them."""


class Finding(Frozen):
    """One problem: which tier, what kind, where, what exactly, and the command that fixes it."""

    _fields = ("tier", "kind", "file", "line", "detail", "remedy", "other_tier", "packages", "gap")

    tier: str
    kind: FindingKind
    file: str
    line: int | None
    detail: str
    remedy: str
    other_tier: str | None
    """sibling-conflict: the other tier of the pair."""
    packages: tuple[dict[str, object], ...]
    """sibling-conflict: every package the two locks pin differently (name, both versions, both places)."""
    gap: Mapping[str, Any] | None
    """no-wheel: the package, platform, Python versions, what exists, and every remedy."""

    def __init__(  # noqa: PLR0917 (the signature it had as a dataclass)
        self,
        tier: str,
        kind: FindingKind,
        file: str,
        line: int | None,
        detail: str,
        remedy: str,
        other_tier: str | None = None,
        packages: tuple[dict[str, object], ...] = (),
        gap: Mapping[str, Any] | None = None,
    ) -> None:
        self._init(tier, kind, file, line, detail, remedy, other_tier, packages, gap)

    def render(self) -> str:
        return located.render(self)

    def to_dict(self) -> dict[str, Any]:
        out = located.fields(self)
        if self.other_tier is not None:
            out["other_tier"] = self.other_tier
            out["packages"] = list(self.packages)
        if self.gap is not None:
            out["gap"] = dict(self.gap)
        return out


class Report(Frozen):
    _fields = ("findings", "tiers", "lockfiles", "packages", "entries", "requested", "platforms", "coverage")

    findings: tuple[Finding, ...]
    tiers: tuple[str, ...]
    """The tiers checked (the denominator)."""
    lockfiles: int
    """How many lockfiles were read."""
    packages: int
    """How many distinct packages the lockfiles read pin (each counted once)."""
    entries: int
    """How many lock entries were checked (a package forked under markers has several)."""
    requested: tuple[str, ...]
    """The tiers named on the command line (empty: every tier)."""
    platforms: tuple[str, ...]
    """The declared platforms every no-build tier was proven on."""
    coverage: tuple[Any, ...]
    """Each checked tier's wheel coverage (:class:`tierlock.lockfiles.coverage.TierCoverage`)."""

    def __init__(  # noqa: PLR0917 (the signature it had as a dataclass)
        self,
        findings: tuple[Finding, ...],
        tiers: tuple[str, ...],
        lockfiles: int,
        packages: int,
        entries: int = 0,
        requested: tuple[str, ...] = (),
        platforms: tuple[str, ...] = (),
        coverage: tuple[Any, ...] = (),
    ) -> None:
        self._init(findings, tiers, lockfiles, packages, entries, requested, platforms, coverage)

    @property
    def ok(self) -> bool:
        return not self.findings

    def to_dict(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "tiers_checked": len(self.tiers),
            "tiers": list(self.tiers),
            "lockfiles_read": self.lockfiles,
            "packages_checked": self.packages,
            "entries_checked": self.entries,
            "scope": scope(self.tiers, self.requested),
            "problems": len(self.findings),
            "by_kind": {k: n for k in KINDS if (n := sum(1 for f in self.findings if f.kind == k))},
            "findings": [f.to_dict() for f in self.findings],
            "platforms": list(self.platforms),
            "coverage": [c.to_dict() for c in self.coverage],
        }


def scope(tiers: Sequence[str], requested: Sequence[str] = ()) -> str:
    """What a check covered, counted one way everywhere: ``crypto and the base it is layered on``."""
    if not requested:
        return "every tier"
    named = [t for t in tiers if t in requested]
    below = [t for t in tiers if t not in requested]
    if not below:
        return _words(named)
    who = "it is" if len(named) == 1 else "they are"
    if len(below) == 1:
        return f"{_words(named)} and the {below[0]} {who} layered on"
    return f"{_words(named)} and the tiers {who} layered on ({_words(below)})"


def _words(names: Sequence[str]) -> str:
    if len(names) <= 2:
        return " and ".join(names)
    return ", ".join(names[:-1]) + f" and {names[-1]}"
