"""``tierlock export``: the exact requirements of tiers and everything they are layered on, from their lockfiles.

For tools that read dependency authority (a Docker build, pip-audit, licence
checkers): each tier's lockfile already holds its whole closure; several tiers
are merged, and two tiers that pin one package differently (where their
markers can both hold) are refused rather than merged into a file no
installer could satisfy.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from packaging.markers import Marker

from tierlock.errors import CheckFailed
from tierlock.frozen import replace
from tierlock.lockfiles.locks import LockEntry
from tierlock.lockfiles.requirements import entry_line, overlapping_duplicates
from tierlock.lockfiles.sources import load_tier, remedy, with_file_hashes
from tierlock.tiers import Project


@dataclass(frozen=True)
class Exported:
    entry: LockEntry
    tiers: tuple[str, ...]
    """The tiers whose lockfiles hold this exact entry."""


@dataclass(frozen=True)
class Export:
    tiers: tuple[str, ...]
    """Every tier exported (the named ones and what they are layered on), base first."""
    lockfiles: tuple[str, ...]
    entries: tuple[Exported, ...]


def collect(project: Project, names: Sequence[str]) -> Export:
    """The merged entries of the named tiers (every tier when none) and of the tiers below them."""

    tiers = project.with_layers(list(names) or list(project.tiers))
    merged: dict[tuple[str, str, str | None], tuple[LockEntry, list[str]]] = {}
    lockfiles: list[str] = []
    for tier in tiers:
        if not tier.lockfile.is_file():
            raise CheckFailed(
                f"tier {tier.name} has no lockfile yet ({project.relpath(tier.lockfile)})",
                tier=tier.name,
                file=str(tier.lockfile),
                remedy=remedy(project, tier),
            )
        if project.relpath(tier.lockfile) not in lockfiles:
            lockfiles.append(project.relpath(tier.lockfile))
        for entry in with_file_hashes(load_tier(project, tier).entries):
            key = (entry.name, str(entry.version), entry.url)
            if key in merged:
                known, owners = merged[key]
                merged[key] = (_union(known, entry), owners)
            else:
                merged[key] = (entry, [])
            if tier.name not in merged[key][1]:
                merged[key][1].append(tier.name)
    clashes = overlapping_duplicates([entry for entry, _ in merged.values()])
    if clashes:
        a, b = clashes[0]
        ta = merged[(a.name, str(a.version), a.url)][1]
        tb = merged[(b.name, str(b.version), b.url)][1]
        raise CheckFailed(
            f"tiers pin {a.name} differently: {entry_line(a)} ({', '.join(ta)}) and {entry_line(b)} "
            f"({', '.join(tb)}); one requirements file cannot hold both",
            package=a.name,
            remedy=f"tierlock export {ta[-1]}",
        )
    entries = sorted(
        (Exported(entry, tuple(owners)) for entry, owners in merged.values()),
        key=lambda e: (e.entry.name, str(e.entry.marker or "")),
    )
    return Export(tuple(t.name for t in tiers), tuple(lockfiles), tuple(entries))


def _union(a: LockEntry, b: LockEntry) -> LockEntry:
    """One entry for one pin read from two lockfiles: markers joined with ``or``, hashes merged."""

    if a.marker is None or b.marker is None:
        marker = None
    elif str(a.marker) == str(b.marker):
        marker = a.marker
    else:
        marker = Marker(f"({a.marker}) or ({b.marker})")
    return replace(a, marker=marker, hashes=tuple(dict.fromkeys((*a.hashes, *b.hashes))))


def requirements_text(export: Export, *, hashes: bool) -> str:
    """A requirements file: ``name==version ; marker`` lines (with ``--hash`` options when *hashes*)."""

    lines = [f"# tierlock export: tiers {', '.join(export.tiers)} from {', '.join(export.lockfiles)}"]
    for item in export.entries:
        line = entry_line(item.entry)
        if hashes and item.entry.hashes:
            parts = [line, *(f"    --hash={h}" for h in item.entry.hashes)]
            line = " \\\n".join(parts)
        lines.append(line)
    return "\n".join(lines) + "\n"


def to_json(export: Export) -> dict[str, object]:
    return {
        "ok": True,
        "tiers": list(export.tiers),
        "lockfiles": list(export.lockfiles),
        "packages": [
            {
                "name": item.entry.name,
                "version": str(item.entry.version),
                "marker": str(item.entry.marker) if item.entry.marker is not None else None,
                "url": item.entry.url,
                "hashes": list(item.entry.hashes),
                "tiers": list(item.tiers),
            }
            for item in export.entries
        ],
    }
