"""``tierlock remove``: uninstall what only one tier needs, decided under the environment lock.

What to remove is decided while holding the environment's install lock, so a
concurrent ``install-tier`` cannot change the picture in between, and it is
decided from lockfiles, not receipts, so deleting a receipt never changes it:

* the tier's packages are those of its lockfile that apply to the target (its
  receipt's list only when the lockfile is gone);
* kept is everything that base, or another armed tier, locks - a tier is
  armed when it has a receipt, or when every one of its probe roots is
  installed and not every one of them is a package some tier's receipt
  records (a tier whose receipt was deleted is still armed; an aggregate such
  as ``all = ["proj[a,b]"]`` whose roots are there only because ``a`` and
  ``b`` were armed is not, nor is a tier with only some roots installed);
* kept is everything another distribution that stays requires (its
  ``Requires-Dist`` whose markers hold in the target), and what that needs in
  turn, whether or not it belongs to a tier; a requirement with extras
  (``ibis-framework[duckdb]``) keeps what those extras of it require too
  (conservatively: every extra any staying package asks for);
* when an armed tier is layered on the tier, nothing is removed (that tier's
  lock holds the whole closure): the command is refused (exit 2) with the
  command that removes both, top first.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from tierlock.errors import UsageError
from tierlock.installer import receipts

if TYPE_CHECKING:
    from tierlock.environment import Target
    from tierlock.installer.progress import Progress
    from tierlock.installer.run import Request
    from tierlock.probing.site import SiteIndex
    from tierlock.tiers import Project, Tier

#: Never uninstalled by ``tierlock remove``: the tools doing the work.
PROTECTED = frozenset({"tierlock", "pip", "uv"})


@dataclass
class Removal:
    tier: str
    prefix: str
    remove: list[str]
    keep: dict[str, str]
    """Package -> why it stays (the tier or distribution that needs it)."""
    dry_run: bool
    layered: list[str] = field(default_factory=list)
    """Armed tiers layered on this one: when any, nothing was removed."""
    had_receipt: bool = False
    receipt_deleted: bool = False
    backend: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "ok": True,
            "tier": self.tier,
            "target": self.prefix,
            "removed" if not self.dry_run else "would_remove": self.remove,
            "kept": sorted(self.keep),
            "kept_because": dict(sorted(self.keep.items())),
            "layered_tiers_armed": self.layered,
            "receipt_deleted": self.receipt_deleted,
            "dry_run": self.dry_run,
            "backend": self.backend,
        }


def remove(project: Project, tier_name: str, request: Request, ui: Progress) -> Removal:
    """Uninstall the packages of a tier's closure that nothing staying in the environment needs."""
    from tierlock.installer.location import resolve_existing
    from tierlock.installer.preflight import refuse_target

    tier = project.tier(tier_name)
    target = resolve_existing(request.python, project, [tier.name])
    refuse_target(target, system=request.system)
    if request.dry_run:
        return decide(project, tier, target, dry_run=True)
    from tierlock.installer.locking import environment_lock
    from tierlock.installer.target import refuse_unwritable

    refuse_unwritable(target, doing="remove from", done="nothing was removed")
    with environment_lock(target.prefix, on_wait=ui.note):
        receipts.clean_temporary(target.prefix)
        removal = decide(project, tier, target, dry_run=False)
        if removal.layered:
            refuse_layered(removal, request)
        # The receipt goes first: an interrupted uninstall leaves a tier without a receipt (absent or partial,
        # re-armed by install-tier), never one whose receipt claims packages tierlock itself removed.
        removal.receipt_deleted = receipts.remove(target.prefix, tier.name)
        if removal.remove:
            from tierlock.installer import backends

            backend = backends.choose(request.backend or project.backend, target)
            removal.backend = backend.name
            with ui.status(f"{backend.name}: uninstalling {len(removal.remove)} package(s) of {tier.name}"):
                backends.uninstall(backend, target, removal.remove, log=ui.detail)
    return removal


def refuse_layered(removal: Removal, request: Request) -> None:
    """Refuse (exit 2) removing a tier armed tiers are layered on, with the command that removes them all."""
    import shlex

    where = (["--python", request.python] if request.python else []) + (["--system"] if request.system else [])
    steps = [shlex.join(["tierlock", "remove", t, *where]) for t in [*removal.layered, removal.tier]]
    raise UsageError(
        f"{removal.tier}: nothing removed - armed tier(s) {', '.join(removal.layered)} are layered on it and need "
        f"all of its {len(removal.keep)} package(s); the receipt stays",
        tier=removal.tier,
        remedy=" && ".join(steps),
    )


def decide(project: Project, tier: Tier, target: Target, *, dry_run: bool) -> Removal:
    """What removing *tier* from *target* uninstalls and keeps (reads files only; changes nothing)."""
    from tierlock.probing.site import SiteIndex

    index = SiteIndex.of(target)
    found = receipts.load_all(target.prefix)
    own = found.get(tier.name)
    closure = _locked_names(project, tier, target)
    if closure is None:
        if own is None:
            raise UsageError(
                f"tier {tier.name!r} has neither a receipt in {target.prefix} nor a lockfile; nothing to remove",
                tier=tier.name,
                remedy=lockfiles_remedy(project, tier),
            )
        closure = own.package_names
    removal = Removal(tier.name, str(target.prefix), [], {}, dry_run, had_receipt=own is not None)
    keep = removal.keep
    recorded = {n for r in found.values() for n in r.package_names}
    armed = [  # a tier declared exclusive with this one is never armed beside it, whatever its roots suggest
        t
        for t in project.tiers.values()
        if t.name != tier.name and not project.exclusive(tier.name, t.name) and _armed(t, found, index, recorded)
    ]
    removal.layered = [str(t.name) for t in armed if tier.name in {c.name for c in project.chain(t.name)}]
    if removal.layered:
        removal.keep = dict.fromkeys(sorted(closure), f"needed by tier {removal.layered[0]}, layered on {tier.name}")
        return removal
    for other in [t for t in project.tiers.values() if t.is_base and t.name != tier.name] + armed:
        names = _locked_names(project, other, target)
        if names is None:
            receipt = found.get(other.name)
            names = receipt.package_names if receipt is not None else set()
        for name in sorted(names & closure):
            keep.setdefault(name, f"needed by tier {other.name}")
    for name in sorted(closure & PROTECTED):
        keep.setdefault(name, "a tool tierlock never removes")
    from tierlock.installer.selfguard import protected_names

    for name in sorted(closure & protected_names(target)):  # never what a tierlock installed there needs
        keep.setdefault(name, "tierlock is installed in this environment and needs it")
    if project.name is not None and project.name in closure:
        keep.setdefault(str(project.name), "the project itself (its own install is never removed)")
    candidates = {n for n in closure if n not in keep and index.find(n)}
    for name, needer in needed_by_staying(index, candidates, target.marker_env).items():
        through = " (through an extra; every extra a staying package asks for is kept)" if "[" in needer else ""
        keep.setdefault(name, f"needed by {needer}, which stays installed{through}")
    removal.remove = sorted(candidates - set(keep))
    for name in closure - set(keep) - candidates:
        keep.setdefault(name, "not installed")
    removal.keep = {n: why for n, why in keep.items() if why != "not installed"}
    return removal


def lockfiles_remedy(project: Project, tier: Tier) -> str:
    from tierlock.lockfiles.sources import remedy

    return remedy(project, tier)


def _locked_names(project: Project, tier: Tier, target: Target) -> set[str] | None:
    """The names *tier*'s lockfile installs into *target*; None without a lockfile."""
    if not tier.lockfile.is_file():
        return None
    from tierlock import lockfiles

    return {str(e.name) for e in lockfiles.load_tier(project, tier).applicable(target.marker_env)}


def _armed(tier: Tier, found: Mapping[str, receipts.Receipt], index: SiteIndex, recorded: set[str]) -> bool:
    """Whether *tier* is armed: it has a receipt, or every one of its probe roots is installed and not all of
    them are packages a receipt records (those are there because the tiers of the receipts were armed)."""
    if tier.name in found:
        return True
    roots = [str(root) for root in tier.probe]
    return bool(roots) and all(index.find(root) for root in roots) and not set(roots) <= recorded


def needed_by_staying(index: SiteIndex, candidates: Iterable[str], marker_env: Mapping[str, str]) -> dict[str, str]:
    """Which of *candidates* a distribution that stays requires (directly or through another kept one).

    Returns candidate -> who needs it: the staying distribution's name, or ``name[extra]`` when it is needed
    through an extra a staying package asks for. Requirements are each distribution's ``Requires-Dist`` whose
    marker holds in the target; under an ``extra`` marker they count when some staying distribution requires
    the package with that extra (which extras were asked for at install time is recorded nowhere, so every
    extra any staying requirement names is kept, conservatively).
    """
    from tierlock.probing.site import normalize

    pending = set(candidates)
    kept: dict[str, str] = {}
    extras: dict[str, set[str]] = {}
    staying = [(name, name) for name in index.dists if name not in pending]
    while staying:
        next_round: list[tuple[str, str]] = []
        for dist, _why in staying:
            for info in index.find(dist)[:1]:
                for name, asked in requirements_of(info.path, marker_env, extras.get(dist, set())):
                    name = normalize(name)
                    new = set(asked) - extras.get(name, set())
                    if new:
                        extras.setdefault(name, set()).update(new)
                        if name not in pending and name not in kept:  # staying already: its extras count now
                            next_round.append((name, name))
                    if name in pending:
                        pending.discard(name)
                        kept[name] = dist if not extras.get(dist) else f"{dist}[{','.join(sorted(extras[dist]))}]"
                        next_round.append((name, dist))
        staying = next_round
    return kept


def requires_dist(dist_info: str, marker_env: Mapping[str, str]) -> list[str]:
    """The names in a distribution's ``Requires-Dist`` headers whose markers hold in *marker_env* (no extra)."""
    return [name for name, _extras in requirements_of(dist_info, marker_env, set())]


def requirements_of(
    dist_info: str, marker_env: Mapping[str, str], extras: set[str]
) -> list[tuple[str, frozenset[str]]]:
    """(name, the extras asked of it) for each ``Requires-Dist`` whose marker holds in *marker_env*, with no
    extra or with one of *extras* (the extras of this distribution that a staying package asks for)."""
    from packaging.markers import InvalidMarker, UndefinedComparison, UndefinedEnvironmentName
    from packaging.requirements import InvalidRequirement, Requirement

    from tierlock.probing.metadata import requires_dist as requires_dist_texts

    out: list[tuple[str, frozenset[str]]] = []
    for text in requires_dist_texts(os.path.join(dist_info, "METADATA")):
        try:
            requirement = Requirement(text)
        except InvalidRequirement:
            continue
        if requirement.marker is not None:
            try:
                if not any(requirement.marker.evaluate({**marker_env, "extra": e}) for e in ["", *sorted(extras)]):
                    continue
            except (InvalidMarker, UndefinedComparison, UndefinedEnvironmentName):
                pass  # cannot tell: keep what it might need
        out.append((requirement.name, frozenset(requirement.extras)))
    return out
