"""What a tier requires in one target environment: its roots and lock entries whose markers hold there.

Every verdict (``tierlock probe``, ``admit``, ``status``, the pytest plugin)
asks :func:`required` which roots to probe and which lock entries make up the
closure; the markers are evaluated by :func:`tierlock.lockfiles.markers.applies`
(the same evaluation the installer uses for lock entries) against the target
interpreter's marker environment, never tierlock's own.

A root is not required when every requirement naming it (in the tier or the
tiers it is layered on) carries a marker that does not hold, or when the
lockfile pins it only under markers that do not hold. A tier all of whose
requirements are marked away requires nothing: it is present with 0 packages.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from tierlock.frozen import Frozen

if TYPE_CHECKING:
    from packaging.markers import Marker
    from packaging.utils import NormalizedName

    from tierlock.lockfiles.locks import Lock, LockEntry
    from tierlock.tiers import Project, Tier


class Required(Frozen):
    """A tier's needs in one environment."""

    _fields = ("roots", "entries", "marked_away")

    roots: tuple[NormalizedName, ...]
    """The probe roots whose requirements apply, in declaration order."""
    entries: tuple[LockEntry, ...]
    """The lockfile entries whose markers hold (empty without a lockfile)."""
    marked_away: tuple[str, ...]
    """One note per root that is not required here, naming the marker."""

    def __init__(
        self, roots: tuple[NormalizedName, ...], entries: tuple[LockEntry, ...], marked_away: tuple[str, ...]
    ) -> None:
        self._init(roots, entries, marked_away)


def scope(project: Project, tier: Tier) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The extras and dependency groups the tier and the tiers below it bring in (for ``extra`` markers)."""
    extras: list[str] = []
    groups: list[str] = []
    for t in project.chain(tier.name):
        kind, _, name = t.source.partition(":")
        if kind == "extra":
            extras.append(name)
        elif kind == "group":
            groups.append(name)
        groups.extend(t.include_groups)
    return tuple(dict.fromkeys(extras)), tuple(dict.fromkeys(groups))


def required(project: Project, tier: Tier, environment: Mapping[str, str], lock: Lock | None) -> Required:
    """The roots and lock entries of *tier* that *environment* (``Target.marker_env``) requires."""
    from packaging.utils import canonicalize_name

    extras, groups = scope(project, tier)
    lines: dict[str, list[str]] = {}
    holds: dict[str, bool] = {}
    for req in project.closure_requirements(tier.name):
        name = canonicalize_name(req.name)
        ok = req.marker is None or _applies(req.marker, environment, extras, groups)
        holds[name] = holds.get(name, False) or ok
        if req.marker is not None:
            lines.setdefault(name, []).append(str(req.marker))
    entries = tuple(lock.applicable(environment)) if lock is not None else ()
    pinned = {e.name for e in entries}
    roots: list[NormalizedName] = []
    away: list[str] = []
    where = _where(environment)
    for name in tier.probe:
        if not holds.get(name, True):
            markers = " / ".join(f"`{m}`" for m in dict.fromkeys(lines.get(name, [])))
            away.append(f"{name} is not required here: its marker {markers} does not hold ({where})")
            continue
        if lock is not None and name not in pinned and any(e.name == name for e in lock.entries):
            markers = " / ".join(f"`{e.marker}`" for e in lock.entries if e.name == name)
            away.append(f"{name} is not required here: {lock.path.name} pins it only under {markers} ({where})")
            continue
        roots.append(name)
    return Required(tuple(roots), entries, tuple(away))


def _applies(marker: Marker, environment: Mapping[str, str], extras: tuple[str, ...], groups: tuple[str, ...]) -> bool:
    """:func:`tierlock.lockfiles.markers.applies` (its module loaded by the first requirement with a marker)."""
    from tierlock.lockfiles.markers import applies

    return applies(marker, environment, extras=extras, groups=groups)


def _where(environment: Mapping[str, str]) -> str:
    """The marker values people check first, for the note."""
    keys = ("python_version", "sys_platform", "platform_machine", "implementation_name")
    return ", ".join(f"{k} {environment[k]}" for k in keys if k in environment)
