"""Arming tiers: fail closed, plan, execute, verify, write the receipt.

The one orchestrating function, :func:`install`. Its parts live beside it:
:mod:`~tierlock.installer.preflight` (the target, the tiers, the project
environment), :mod:`~tierlock.installer.lockload` (drift check, locks, entries),
:mod:`~tierlock.installer.verification` (the probe before and after the
backend), :mod:`~tierlock.installer.receipts` and
:mod:`~tierlock.installer.leftovers`. Everything it says goes through a
:class:`~tierlock.installer.progress.Progress` (the CLI passes its UI);
everything it starts goes through :mod:`tierlock.subproc`; the only files it
writes live in the target environment (packages,
``tierlock/receipts/*.json``, ``tierlock/install.lock``).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tierlock.errors import BackendError, Interrupted, UsageError
from tierlock.frozen import replace
from tierlock.installer import (
    applying,
    builds,
    failures,
    fastpath,
    lockload,
    projecttree,
    receipts,
    treestep,
    verification,
)
from tierlock.installer.applying import phase
from tierlock.installer.job import Job
from tierlock.installer.plan import Plan
from tierlock.installer.preflight import (
    armed_tiers,
    created,
    explained,
    forced_names,
    outside_python,
    refuse_incomplete,
    refuse_target,
)
from tierlock.installer.request import Outcome, Request, Result

__all__ = ["Outcome", "Request", "Result", "install"]

if TYPE_CHECKING:
    from packaging.utils import NormalizedName

    from tierlock import environment
    from tierlock.environment import Target
    from tierlock.installer.location import Location
    from tierlock.installer.progress import Progress
    from tierlock.installer.receiptrecord import Prepared
    from tierlock.installer.receipts import InstalledDist
    from tierlock.lockfiles.locks import LockEntry
    from tierlock.probing import DistributionProbe
    from tierlock.tiers import Project


def executable_of(target: Target) -> str:
    return receipts.executable_of(target)


def environment_of(target: Target) -> str:
    """The environment's one name (receipts and the fast path compare it): see installer/location.py."""
    from tierlock.installer.location import environment_key

    return environment_key(target.prefix)


# -- the orchestration ---------------------------------------------------------


def install(
    project: Project,
    request: Request,
    ui: Progress,
    *,
    progress: Callable[[str], None] | None = None,
    pending: environment.Pending | None = None,
) -> Outcome:
    """Arm *request.tiers* in the target environment; see docs/reference/install.md.

    The caller has tried the receipts' no-op fast path (:mod:`tierlock.installer.fastpath`)
    already; *pending* is the target's inspection when the caller started it
    (:func:`tierlock.environment.start`), so it overlaps loading the project.
    """
    from tierlock import environment
    from tierlock.installer.location import locate

    started = time.perf_counter()
    names: list[str] = list(dict.fromkeys(str(project.tier(n).name) for n in request.tiers))
    # --python, else the active venv, else the project's own environment (never tierlock's by accident).
    location = locate(request.python, project)
    refuse_incomplete(project, request, location, names)
    if pending is None:
        pending = environment.start(location.python)  # the target starts while the drift check runs
    target, names = _named_tiers(project, request, ui, location, names=names, pending=pending)
    tiers = [project.tier(n) for n in names]
    with phase(ui, f"checking the lockfiles of {', '.join(names)}"):
        read = lockload.fail_closed(project, tiers)
    rules = builds.policy(project, tiers, read)
    if target is None:
        target = created(project, request, ui, location, names=names, pending=pending)
    refuse_target(target, system=request.system, again=lambda python: replace(request, python=python).command(names))
    outside = outside_python(
        target, project, again=lambda prefix: replace(request, python=request.python and prefix).command(names)
    )
    with explained(outside):
        return _armed(project, request, ui, read, rules, target, names, started=started, progress=progress)


def _armed(  # noqa: PLR0917
    project: Project,
    request: Request,
    ui: Progress,
    read: Any,
    rules: Any,
    target: Target,
    names: list[str],
    *,
    started: float,
    progress: Callable[[str], None] | None,
) -> Outcome:
    """The install once the target is settled: its locks, its plan, the backend (see :func:`install`)."""
    from tierlock.lockfiles.projectpin import reaches_project

    tiers = [project.tier(n) for n in names]
    locks = lockload.load_locks(project, tiers, target, read, again=request.command(names))
    entries = [e for e in lockload.entries_for(locks, target, request) if e.name != project.name]  # never pinned
    pins_project = any(reaches_project(lock, project.name) for lock in locks.values())
    roots = lockload.import_roots(tiers)
    forced = forced_names(request, entries)
    local = projecttree.wanted(
        locks.values(), project.name, install_project=request.install_project, environment=target.marker_env
    )
    job = Job(tiers, target, locks, entries, roots, forced, rules, tuple(local), pins_project)
    if request.dry_run:
        plan, _ = verification.probe_and_plan(entries, target, roots, deep=request.deep)
        steps = projecttree.plan_in(local, target)
        plan = plan.forced(forced)
        return Outcome(
            names, "planned", str(target.prefix), len(entries), plan=plan, duration=_since(started), local=steps
        )
    try:
        return _install_locked(project, request, ui, job, started=started, progress=progress)
    except KeyboardInterrupt:
        raise Interrupted(
            f"interrupted: {', '.join(names)} was not verified and no receipt was written "
            "(a backend that was running had a grace period to stop); the same command again "
            "repairs what is half-installed",
            remedy=request.command(names),
        ) from None


def _named_tiers(
    project: Project, request: Request, ui: Progress, location: Location, *, names: list[str], pending: Any
) -> tuple[Target | None, list[str]]:
    """The tiers to arm (with ``--armed``, the target's armed tiers first) and the target when it had to be read
    for them; a usage error when there is none."""
    from tierlock import environment

    target: Target | None = None
    if (request.armed or not names) and not location.missing:
        target = environment.resolve(location.python, pending=pending)
        names = list(dict.fromkeys([*armed_tiers(project, target, ui), *names]))
    if not names:
        where_ = target.prefix if target is not None else project.relpath(Path(location.folder or "."))
        raise UsageError(
            f"name at least one tier: none is armed in {where_} (it holds no receipt); "
            f"declared tiers: {', '.join(project.tiers)}",
            remedy=Request((), request.python, request.system).command(["base"]),
        )
    return target, names


def _install_locked(
    project: Project,
    request: Request,
    ui: Progress,
    job: Job,
    *,
    started: float,
    progress: Callable[[str], None] | None,
) -> Outcome:
    """The part under the environment lock: re-plan, run the backend, verify, write the receipts."""
    from tierlock.installer.locking import environment_lock

    tiers, target, entries, roots, forced = job.tiers, job.target, job.entries, job.roots, job.forced

    names = [str(t.name) for t in tiers]
    with environment_lock(target.prefix, on_wait=ui.note) as waited:
        receipts.clean_temporary(target.prefix)
        if waited and not (request.deep or forced):
            noop, _ = fastpath.check(
                names, target.prefix, environment_of(target), project.pyproject, install_project=request.install_project
            )
            if noop is not None:
                outcome = _unchanged(noop, started)
                outcome.waited = True
                return outcome
        (progress or ui.note)(f"planning {len(entries)} package(s) for {', '.join(names)} in {target.prefix}")
        with phase(ui, f"probing {len(entries)} package(s) in {target.prefix}"):
            plan, probes = _probe_and_plan(entries, target, roots, deep=request.deep)
        plan = plan.forced(forced)
        backend_name = backend_version = backend_seconds = None
        cleared: list[str] = []
        prepared: Prepared | None = None
        if not plan.is_noop:
            probes, cleared, ran, prepared = applying.apply(project, request, ui, job, plan=plan, probes=probes)
            backend_name, backend_version, backend_seconds = ran
        verification.require_libraries(probes, names, again=request.command(names))
        dists = verification.inventory_dists(entries, probes, target)
        local, backend_name, backend_version = _arm_tree(project, request, ui, job, (backend_name, backend_version))
        dists += projecttree.dists(local, target)
        if job.pins_project:
            dists += _required_project(project, target, probes, names, dists, again=request.command(names))
        verification.require_intact(target, names, again=request.command(names))
        failures.clear(target.prefix, names)
        written = _record(project, request, job, dists, (backend_name, backend_version), prepared=prepared)
        return Outcome(
            names,
            "installed" if _result(plan) == "unchanged" and projecttree.missing(local) else _result(plan),
            str(target.prefix),
            len(entries),
            sum(len(d.files) for d in dists),
            plan=plan,
            backend=backend_name,
            backend_version=backend_version,
            backend_seconds=backend_seconds,
            waited=waited,
            receipts=written,
            duration=_since(started),
            cleared=cleared,
            local=local,
        )


def _probe_and_plan(
    entries: Sequence[LockEntry],
    target: Target,
    roots: Mapping[NormalizedName, Sequence[str]],
    *,
    deep: bool,
) -> tuple[Plan, dict[NormalizedName, DistributionProbe]]:
    """:func:`verification.probe_and_plan`; while a backend started early from a kept plan installs into the
    target, what that plan proved of it before it started: none of the packages there (every one installed)."""
    import sys

    early = sys.modules.get("tierlock.earlyarm")
    if early is not None and not deep and early.fresh(str(target.prefix)):
        from tierlock.installer.plan import make_plan

        return make_plan(entries, {}), {}
    return verification.probe_and_plan(entries, target, roots, deep=deep)


def _record(
    project: Project,
    request: Request,
    job: Job,
    dists: Sequence[InstalledDist],
    ran: tuple[str | None, str | None],
    *,
    prepared: Prepared | None = None,
) -> list[str]:
    """The receipts (:func:`receiptrecord.record`, from *prepared* when their parts were made while the backend ran);
    one the system will not write is exit 3 with this command again."""
    from tierlock.installer import receiptrecord

    try:
        return receiptrecord.record(
            project,
            tiers=job.tiers,
            locks=job.locks,
            target=job.target,
            dists=dists,
            backend=ran[0],
            backend_version=ran[1],
            prepared=prepared,
        )
    except BackendError as exc:  # the system refused the receipt (disk full, a file-size limit)
        exc.remedy = exc.remedy or request.command([str(t.name) for t in job.tiers])
        raise


def _arm_tree(
    project: Project, request: Request, ui: Progress, job: Job, ran: tuple[str | None, str | None]
) -> tuple[list[projecttree.LocalStep], str | None, str | None]:
    """:func:`tierlock.installer.treestep.arm` with the backend this request chooses."""
    return treestep.arm(
        project, request, ui, job, ran, backend=lambda: applying.backend_for(project, request, job.target)
    )


def _required_project(
    project: Project,
    target: Target,
    probes: Mapping[NormalizedName, DistributionProbe],
    names: Sequence[str],
    dists: Sequence[InstalledDist],
    *,
    again: str,
) -> list[InstalledDist]:
    """The project itself as a package of the tiers requires it (:func:`verification.require_project`: exit 1
    when it is missing or too old), recorded once: not again when it was armed from the project's tree."""
    found = verification.require_project(project, target, probes, names, again=again)
    armed = {str(d.name) for d in dists}
    return [d for d in found if str(d.name) not in armed]


def _result(plan: Plan) -> Result:
    if plan.of("install") or plan.of("replace"):
        return "installed"
    return "repaired" if plan.of("repair") else "unchanged"


def _unchanged(noop: fastpath.NoOp, started: float) -> Outcome:
    return Outcome(
        noop.tiers, "unchanged", str(noop.prefix), noop.packages, noop.files, duration=_since(started), noop=noop
    )


def _since(started: float) -> float:
    return time.perf_counter() - started
