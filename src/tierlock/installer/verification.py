"""Probing the target before and after the backend: the plan, the verification probe, the target's own health.

Nothing is called present here that the probe has not just found whole, and
nothing is verified in an environment whose interpreter or ``pyvenv.cfg``
went away while the backend ran (the install then fails with exit 3 and
writes no receipt).
"""

from __future__ import annotations

import os
from collections.abc import Collection, Mapping, Sequence
from typing import TYPE_CHECKING

from tierlock.errors import BackendError, Problem

if TYPE_CHECKING:
    from packaging.utils import NormalizedName

    from tierlock.environment import Target
    from tierlock.installer import receipts
    from tierlock.installer.plan import Plan, Step
    from tierlock.lockfiles.locks import LockEntry
    from tierlock.probing import DistributionProbe
    from tierlock.tiers import Project


def probe_and_plan(
    entries: Sequence[LockEntry],
    target: Target,
    roots: Mapping[NormalizedName, Sequence[str]],
    *,
    deep: bool = False,
) -> tuple[Plan, dict[NormalizedName, DistributionProbe]]:
    """The plan, and the probes it was made from (one scan of the site folders, each RECORD read once).

    *deep* also compares every file with its RECORD hash (``install-tier --deep``).
    """
    from tierlock.installer import inventory
    from tierlock.installer.plan import make_plan

    probes = inventory.probe_all(entries, target, roots, deep=deep)
    return make_plan(entries, inventory.verdicts(probes)), probes


def plan_for(entries: Sequence[LockEntry], target: Target, roots: Mapping[NormalizedName, Sequence[str]]) -> Plan:
    plan, _ = probe_and_plan(entries, target, roots)
    return plan


def target_problems(target: Target) -> list[str]:
    """What is wrong with the target environment itself (empty when its interpreter and marker are there)."""
    problems: list[str] = []
    if not os.path.isdir(target.prefix):
        return [f"the environment folder {target.prefix} is gone"]
    if not os.access(target.python, os.X_OK):
        problems.append(f"its interpreter {target.python} is gone")
    if target.is_venv and not os.path.isfile(os.path.join(target.prefix, "pyvenv.cfg")):
        problems.append(f"its marker {os.path.join(target.prefix, 'pyvenv.cfg')} is gone")
    return problems


def require_intact(target: Target, names: Sequence[str], *, again: str) -> None:
    """BackendError (exit 3, no receipt) when the target lost its folder, interpreter or ``pyvenv.cfg``.

    The remedy recreates the environment in place with the interpreter it was made from (its installed
    packages stay; tierlock needs no pip inside it), then reruns *again*.
    """
    problems = target_problems(target)
    if not problems:
        return
    import shlex

    major, minor, _ = target.version
    base = os.path.join(target.base_prefix, "bin", f"python{major}.{minor}")
    raise BackendError(
        f"the target environment {target.prefix} broke while {', '.join(names)} was being installed; "
        "nothing was verified and no receipt was written",
        problems=[Problem(p) for p in problems],
        remedy=f"{shlex.join([base, '-m', 'venv', '--without-pip', str(target.prefix)])} && {again}",
    )


def verify(
    entries: Sequence[LockEntry],
    target: Target,
    roots: Mapping[NormalizedName, Sequence[str]],
    names: Sequence[str],
    *,
    again: str,
    deep: bool = False,
    before: Mapping[NormalizedName, DistributionProbe] | None = None,
    changed_names: Collection[str] = (),
) -> dict[NormalizedName, DistributionProbe]:
    """Probe the packages the backend changed again; anything not present fails the install (exit 3, no receipt).

    *before* are the probes the plan was made from, under the same environment
    lock: the backend installs only the *changed_names* (``--no-deps``, exact
    lines), so the others keep those probes and are not probed twice. Without
    *before*, every entry is probed. *again* is the command that reruns this
    install. Returns the probes (the receipt is written from what they read).
    """
    require_intact(target, names, again=again)
    changed = {str(n) for n in changed_names}
    again_probed = [e for e in entries if str(e.name) in changed] if before is not None else list(entries)
    after, probes = probe_and_plan(again_probed, target, roots, deep=deep)
    if after.is_noop:
        require_intact(target, names, again=again)
        if before is not None:  # what the backend was not asked to touch keeps the probe made under the same lock
            probes = {**{k: v for k, v in before.items() if str(k) not in changed}, **probes}
        return probes
    wrong = [f"{s.entry.pin}: {s.action} needed - {s.reason}" for s in after.changes]
    _refuse_foreign_builds(after.changes, changed, names, wrong)
    raise BackendError(
        f"after installing, {len(wrong)} of {len(entries)} package(s) of {', '.join(names)} are still not present; "
        "no receipt was written (if a rerun does not fix it, -v shows the backend's output)",
        problems=[Problem(w) for w in wrong],
        remedy=again,
    )


def _refuse_foreign_builds(
    steps: Sequence[Step], changed: Collection[str], names: Sequence[str], wrong: list[str]
) -> None:
    """BackendError without the same command as its remedy when all that is still wrong is extension modules
    built for another Python in packages the backend has just installed from their locked files: those files
    are what the lock gives this target, so running the same install again installs the same build."""
    from tierlock.probing.compiled import ANOTHER_PYTHON

    def foreign(step: Step) -> bool:
        reasons = step.installed.reasons if step.installed is not None else ()
        return str(step.entry.name) in changed and bool(reasons) and all(ANOTHER_PYTHON in r for r in reasons)

    if not steps or not all(foreign(s) for s in steps):
        return
    pins = ", ".join(str(s.entry.pin) for s in steps)
    raise BackendError(
        f"after installing, {pins} of {', '.join(names)} still hold(s) an extension module built for another "
        "Python than the target's: the file the lock pins is built that way (its tags say nothing of it), so "
        "installing it again installs the same build; no receipt was written",
        problems=[Problem(w) for w in wrong],
        remedy=f"lock {', '.join(names)} with a build of {pins} for the target's Python (a wheel tagged for it), "
        "or arm the tier in an environment of the Python this build is for",
    )


def require_libraries(probes: Mapping[NormalizedName, DistributionProbe], names: Sequence[str], *, again: str) -> None:
    """CheckFailed (exit 1, no receipt) when an installed package needs a shared library the system lacks.

    Its files are whole, so no reinstall helps: the remedy provides the library (the system package when
    it can be told, :mod:`tierlock.probing.provider`), then runs *again*, which then writes the receipt.
    """
    lacking = [d for d in probes.values() if d.missing_libraries]
    if not lacking:
        return
    from tierlock.errors import CheckFailed
    from tierlock.probing import provider
    from tierlock.probing.libraries import Missing

    libraries = list(dict.fromkeys(lib for d in lacking for _artifact, lib, _via in d.missing_libraries))
    command = provider.command(libraries)
    raise CheckFailed(
        f"{', '.join(names)}: installed, but {', '.join(d.name for d in lacking)} needs {', '.join(libraries)}, "
        "which the dynamic loader cannot find on this system; no receipt was written",
        package=lacking[0].name,
        problems=[Problem(f"{d.name}: {Missing(*m).describe()}") for d in lacking for m in d.missing_libraries],
        remedy=f"{command} && {again}" if command else f"{provider.remedy(libraries)}; then run: {again}",
    )


def inventory_dists(
    entries: Sequence[LockEntry], probes: Mapping[NormalizedName, DistributionProbe], target: Target
) -> list[receipts.InstalledDist]:
    from tierlock.installer import inventory

    return inventory.dists_of(entries, probes, target.prefix)


def require_project(
    project: Project,
    target: Target,
    probes: Mapping[NormalizedName, DistributionProbe],
    names: Sequence[str],
    *,
    again: str,
) -> list[receipts.InstalledDist]:
    """The project itself, when an installed package of the tiers requires it (:mod:`tierlock.probing.project`):
    what the receipt records of it when it is installed as required (its files, so the no-op path sees it go),
    else CheckFailed (exit 1, no receipt) with the command that installs it and then this install again."""
    from tierlock.errors import CheckFailed
    from tierlock.installer import inventory
    from tierlock.probing import SiteIndex
    from tierlock.probing.project import install_command, needs_of, project_probe

    name = project.name
    needs = needs_of(name, list(probes.values()), target.marker_env) if name is not None else []
    if name is None or not needs:
        return []
    index = SiteIndex.of(target)
    found = project_probe(name, project.root, index, needs)
    if not found.present:
        fix = install_command(target.python, project.root, project.backend, target.site_paths, target.version)
        raise CheckFailed(
            f"{', '.join(names)} needs the project itself: {'; '.join(found.reasons)}; its packages are "
            "installed and verified, no receipt was written (tierlock never installs the project from an index)",
            package=name,
            remedy=f"{fix} && {again}",
        )
    return inventory.project_dist(found, target.prefix)
