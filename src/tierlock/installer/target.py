"""What install-tier refuses to do in a target, and the small helpers of the install, status and remove commands.

* :func:`refuse_unwritable`: site-packages the backend could not write into.
* :func:`armed_conflicts`: packages another armed tier pins that a plan would replace.
* :func:`refuse_sibling_conflicts`: tiers asked together whose locks disagree.

Where the target is and under which name: :mod:`tierlock.installer.location`;
creating the project environment: :mod:`tierlock.installer.creation`.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence
    from pathlib import Path

    from tierlock.environment import Target
    from tierlock.installer.plan import Plan
    from tierlock.installer.receipts import Receipt
    from tierlock.lockfiles.locks import LockEntry
    from tierlock.tiers import Project, Tier


# -- a site-packages the backend can write into ------------------------------------


def refuse_unwritable(target: Target, *, doing: str = "install into", done: str = "nothing was installed") -> None:
    """Refuse (exit 2) a target whose site-packages cannot be written, before any backend runs."""
    import tempfile

    from tierlock.errors import UsageError

    for folder in dict.fromkeys((target.purelib, target.platlib)):
        reason = ""
        if not folder.is_dir():
            reason = "does not exist"
        else:
            try:
                with tempfile.TemporaryFile(dir=folder, prefix=".tierlock-write-test-"):
                    pass
            except OSError as exc:
                reason = f"is not writable ({exc.strerror or exc})"
        if reason:
            raise UsageError(
                f"cannot {doing} {target.prefix}: its site-packages {folder} {reason}; {done}",
                remedy=f"make {folder} writable (or pass --python PATH to an environment you own), "
                "then run the same command",
            )


# -- other armed tiers -------------------------------------------------------------


def armed_conflicts(
    plan: Plan, armed: Mapping[str, Receipt], arming: Sequence[str]
) -> dict[str, list[tuple[str, str, str]]]:
    """Per other armed tier: (package, the version its receipt pins, the version the plan installs).

    Only steps that put another version in place count (install, replace): a repair or a satisfied package
    keeps the version that is installed, so it replaces nothing another tier holds."""
    out: dict[str, list[tuple[str, str, str]]] = {}
    changing = [s for s in plan.steps if s.action in ("install", "replace") and s.entry.version is not None]
    planned = {str(s.name): str(s.entry.version) for s in changing}
    for tier, receipt in armed.items():
        if tier in arming:
            continue
        for package in receipt.packages:
            name, version = str(package.get("name")), str(package.get("version"))
            new = planned.get(name)
            if new is not None and new != version:
                out.setdefault(tier, []).append((name, version, new))
    return out


def refuse_armed_conflicts(
    conflicts: Mapping[str, Sequence[tuple[str, str, str]]], arming: Sequence[str], *, command: str
) -> None:
    from tierlock.errors import Problem, UsageError

    if not conflicts:
        return
    problems = [
        Problem(f"{name}: {tier} pins {old}, {' '.join(arming)} would install {new}", where=tier)
        for tier, rows in conflicts.items()
        for name, old, new in rows
    ]
    tiers = ", ".join(conflicts)
    packages = ", ".join(sorted({name for rows in conflicts.values() for name, _o, _n in rows}))
    raise UsageError(
        f"arming {', '.join(arming)} would replace {packages} pinned by the armed tier(s) {tiers}, "
        f"which would then no longer be present; nothing was installed",
        tier=next(iter(conflicts)),
        problems=problems,
        remedy=f"{command} --replace-armed (replaces them on purpose; {tiers} is then marked stale), "
        "or lock the tiers consistently (layer one on the other, or align the requirement)",
    )


def refuse_sibling_conflicts(
    chosen: Sequence[tuple[str, Sequence[LockEntry]]], *, command: Callable[[str, str], str]
) -> None:
    """Refuse (exit 2) tiers asked together whose locks pin a package differently, naming the first such pair
    and every package that pair disagrees on; *command* (tier -> the command that arms it alone) is the remedy."""
    from tierlock.errors import Problem, UsageError

    rows = disagreeing(chosen)
    if not rows:
        return
    a, b = rows[0][1], rows[0][3]
    rows = [r for r in rows if (r[1], r[3]) == (a, b)]
    raise UsageError(
        f"tiers {a} and {b} cannot be armed together: their locks pin {len(rows)} package(s) differently "
        f"({', '.join(r[0] for r in rows)}); nothing was installed. To arm both, lock them consistently (layer "
        f"one on the other, or align the requirements); tiers never armed together belong in [tool.tierlock] "
        "conflicts",
        tier=b,
        package=rows[0][0],
        problems=[Problem(f"{n}: {t1} pins {v1}, {t2} pins {v2}") for n, t1, v1, t2, v2 in rows],
        remedy=command(a, b),
    )


def disagreeing(chosen: Sequence[tuple[str, Sequence[LockEntry]]]) -> list[tuple[str, str, str, str, str]]:
    """(package, first tier, its version, later tier, its version) for each pin a later tier gives differently."""
    first: dict[str, tuple[str, str]] = {}
    rows: list[tuple[str, str, str, str, str]] = []
    for tier, entries in chosen:
        for entry in entries:
            seen = first.setdefault(str(entry.name), (tier, str(entry.version)))
            if seen[1] != str(entry.version):
                rows.append((str(entry.name), seen[0], seen[1], tier, str(entry.version)))
    return rows


def mark_stale(prefix: Path, tier: str, *, by: Sequence[str], packages: Sequence[str]) -> None:
    """Record in *tier*'s receipt that arming *by* replaced *packages* it pinned (status shows it)."""
    from tierlock.installer import receipts

    receipt = receipts.load(receipts.receipt_path(prefix, tier))
    if receipt is None:
        return
    document = dict(receipt.data)
    document["stale"] = {"replaced_by": list(by), "packages": sorted(packages)}
    receipts.write(prefix, document)


def stale_reason(receipt: Receipt | None) -> str | None:
    """Why a receipt no longer holds (another tier replaced its packages on purpose), or None."""
    if receipt is None:
        return None
    stale = receipt.data.get("stale")
    if not isinstance(stale, dict):
        return None
    by = ", ".join(str(t) for t in stale.get("replaced_by", ()))
    packages = ", ".join(str(p) for p in stale.get("packages", ()))
    return f"stale: arming {by} replaced {packages}"


# -- helpers of the install, status and remove commands ------------------------------


def install_command(names: Sequence[str], python: str | None, *, system: bool, backend: str | None) -> str:
    """The install-tier command for *names* with the same target options, as a person would type it again."""
    import shlex

    argv = ["install-tier", *names]
    if python is not None:
        argv += ["--python", python]
    if system:
        argv.append("--system")
    if backend is not None:
        argv += ["--backend", backend]
    return shlex.join(argv)


def armed_conflicts_for(
    project: Project, plan: Plan, target: Target, tiers: Sequence[Tier]
) -> dict[str, list[tuple[str, str, str]]]:
    """Packages the plan replaces that another armed tier's receipt pins (unless its current lock pins the new one)."""
    from packaging.utils import canonicalize_name

    from tierlock import lockfiles
    from tierlock.installer import receipts

    arming = {str(t.name) for t in project.with_layers(t.name for t in tiers)}
    found = armed_conflicts(plan, receipts.load_all(target.prefix), sorted(arming))
    out: dict[str, list[tuple[str, str, str]]] = {}
    for other, rows in found.items():
        locked: dict[str, str] = {}
        tier = project.tiers.get(canonicalize_name(other))
        if tier is not None and tier.lockfile.is_file():
            try:
                locked = {str(e.name): str(e.version) for e in lockfiles.load_tier(project, tier).entries}
            except Exception:  # an unreadable lock: its receipt's pins are what counts
                locked = {}
        kept = [(n, old, new) for n, old, new in rows if locked.get(n) != new]
        if kept:
            out[other] = kept
    return out
