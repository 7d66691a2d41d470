"""Arming tiers: fail closed, plan, execute, verify, write the receipt.

The one orchestrating function, :func:`install`. Its parts live beside it:
:mod:`~tierlock.installer.preflight` (the target, the tiers, the project
environment), :mod:`~tierlock.installer.lockload` (drift check, locks, entries),
:mod:`~tierlock.installer.verification` (the probe before and after the
backend), :mod:`~tierlock.installer.receipts` and
:mod:`~tierlock.installer.leftovers`. Everything it prints goes through the
UI; everything it starts goes through :mod:`tierlock.subproc`; the only files
it writes live in the target environment (packages,
``tierlock/receipts/*.json``, ``tierlock/install.lock``).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from tierlock.errors import Interrupted, UsageError
from tierlock.installer import fastpath, lockload, receipts, verification
from tierlock.installer.plan import Plan
from tierlock.installer.preflight import armed_tiers, created, forced_names, refuse_incomplete, refuse_target

if TYPE_CHECKING:
    from packaging.utils import NormalizedName

    from tierlock import environment
    from tierlock.environment import Target
    from tierlock.lockfiles.model import Lock, LockEntry
    from tierlock.output import UI
    from tierlock.probing import DistributionProbe
    from tierlock.tiers import Project, Tier

Result = Literal["installed", "repaired", "unchanged", "planned"]


@dataclass(frozen=True)
class Request:
    tiers: tuple[str, ...]
    python: str | None = None
    system: bool = False
    backend: str | None = None
    """``auto``, ``uv`` or ``pip``; None: the project's ``[tool.tierlock].backend``."""
    dry_run: bool = False
    deep: bool = False
    """Also compare every installed file with its RECORD hash, and repair what differs."""
    reinstall: bool = False
    """Reinstall every package of the tiers, whole or not."""
    reinstall_packages: tuple[str, ...] = ()
    armed: bool = False
    """Also every tier that has a receipt in the target (``--armed``)."""
    index: tuple[str, ...] = ()
    """Index option lines (``--index-url URL``, ``--no-index``) put before the pins the backend reads."""
    replace_armed: bool = False
    """Replace packages another armed tier pins (its receipt is then marked stale)."""

    def command(self, tiers: Sequence[str]) -> str:
        """The ``install-tier`` command line that repeats this request for *tiers* (printed in remedies)."""
        import shlex

        parts = ["install-tier", *tiers]
        if self.python is not None:
            parts += ["--python", self.python]
        if self.system:
            parts.append("--system")
        if self.backend is not None:
            parts += ["--backend", self.backend]
        if self.deep:
            parts.append("--deep")
        return shlex.join(parts)


@dataclass
class Outcome:
    tiers: list[str]
    result: Result
    prefix: str
    packages: int
    files_checked: int = 0
    plan: Plan | None = None
    backend: str | None = None
    backend_version: str | None = None
    duration: float = 0.0
    waited: bool = False
    receipts: list[str] = field(default_factory=list)
    noop: fastpath.NoOp | None = None
    """What the receipts vouched for, when they proved a no-op (no plan was made)."""
    cleared: list[str] = field(default_factory=list)
    """pip leftovers (``~name`` folders) of the repaired packages that were deleted."""

    def to_json(self) -> dict[str, Any]:
        if self.plan is None and self.noop is not None:
            document = fastpath.to_json(self.noop, self.duration)
            document["waited_for_lock"] = self.waited
            return document
        counts = self.plan.counts() if self.plan else {}
        return {
            "ok": True,
            "tier": " ".join(self.tiers),
            "tiers": self.tiers,
            "result": self.result,
            "target": self.prefix,
            "package_count": self.packages,
            "counts": counts,
            "packages": self.plan.to_dict() if self.plan else {},
            "files_checked": self.files_checked,
            "backend": self.backend,
            "backend_version": self.backend_version,
            "waited_for_lock": self.waited,
            "receipts": self.receipts,
            "leftovers_cleared": self.cleared,
            "duration_s": round(self.duration, 4),
        }


def executable_of(target: Target) -> str:
    return receipts.executable_of(target)


def environment_of(target: Target) -> str:
    """The environment's one name (receipts and the fast path compare it): see installer/location.py."""
    from tierlock.installer.location import environment_key

    return environment_key(target.prefix)


# -- the target ----------------------------------------------------------------


# -- the orchestration ---------------------------------------------------------


def install(
    project: Project,
    request: Request,
    ui: UI,
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
    from tierlock.lockfiles.itself import reaches_project

    started = time.perf_counter()
    names: list[str] = list(dict.fromkeys(str(project.tier(n).name) for n in request.tiers))
    # --python, else the active venv, else the project's own environment (never tierlock's by accident).
    location = locate(request.python, project)
    refuse_incomplete(project, request, location, names)
    if pending is None:
        pending = environment.start(location.python)  # the target starts while the drift check runs
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
    tiers = [project.tier(n) for n in names]
    with _phase(ui, f"checking the lockfiles of {', '.join(names)}"):
        read = lockload.fail_closed(project, tiers)
    if target is None:
        target = created(project, request, ui, location, names=names, pending=pending)
    refuse_target(target, system=request.system, again=lambda python: replace(request, python=python).command(names))
    locks = lockload.load_locks(project, tiers, target, read)
    entries = [e for e in lockload.entries_for(locks, target, request) if e.name != project.name]  # never pinned
    itself = any(reaches_project(lock, project.name) for lock in locks.values())
    roots = lockload.import_roots(tiers)
    forced = forced_names(request, entries)

    if request.dry_run:
        plan, _ = verification.probe_and_plan(entries, target, roots, deep=request.deep)
        plan = plan.forced(forced)
        return Outcome(names, "planned", str(target.prefix), len(entries), plan=plan, duration=_since(started))
    try:
        job = _Job(tiers, target, locks, entries, roots, forced, itself)
        return _install_locked(project, request, ui, job, started=started, progress=progress)
    except KeyboardInterrupt:
        raise Interrupted(
            f"interrupted: {', '.join(names)} was not verified and no receipt was written "
            "(a backend that was running had a grace period to stop); the same command again "
            "repairs what is half-installed",
            remedy=request.command(names),
        ) from None


@dataclass(frozen=True)
class _Job:
    """What the part under the lock works from (all read before the lock is taken)."""

    tiers: Sequence[Tier]
    target: Target
    locks: Mapping[NormalizedName, Lock]
    entries: Sequence[LockEntry]
    roots: Mapping[NormalizedName, Sequence[str]]
    forced: frozenset[str]
    pins_project: bool = False
    """The locks pin the project itself: a package of the tiers may require it (verified after the backend)."""


def _install_locked(
    project: Project,
    request: Request,
    ui: UI,
    job: _Job,
    *,
    started: float,
    progress: Callable[[str], None] | None,
) -> Outcome:
    """The part under the environment lock: re-plan, run the backend, verify, write the receipts."""
    from tierlock.installer.locking import environment_lock

    tiers, target, locks, entries, roots, forced = job.tiers, job.target, job.locks, job.entries, job.roots, job.forced

    names = [str(t.name) for t in tiers]
    with environment_lock(target.prefix, on_wait=ui.note) as waited:
        receipts.clean_temporary(target.prefix)
        if waited and not (request.deep or forced):
            noop, _ = fastpath.check(names, target.prefix, environment_of(target), project.pyproject)
            if noop is not None:
                outcome = _unchanged(noop, started)
                outcome.waited = True
                return outcome
        (progress or ui.note)(f"planning {len(entries)} package(s) for {', '.join(names)} in {target.prefix}")
        with _phase(ui, f"probing {len(entries)} package(s) in {target.prefix}"):
            plan, probes = verification.probe_and_plan(entries, target, roots, deep=request.deep)
        plan = plan.forced(forced)
        backend_name = backend_version = None
        cleared: list[str] = []
        if not plan.is_noop:
            probes, backend_name, backend_version, cleared = _change(
                project, request, ui, job, plan=plan, probes=probes
            )
        dists = verification.inventory_dists(entries, probes, target)
        if job.pins_project:
            dists += verification.require_project(project, target, probes, names, again=request.command(names))
        verification.require_intact(target, names, again=request.command(names))
        written = receipts.record(
            project,
            tiers=tiers,
            locks=locks,
            target=target,
            dists=dists,
            backend=backend_name,
            backend_version=backend_version,
        )
        return Outcome(
            names,
            _result(plan),
            str(target.prefix),
            len(entries),
            sum(len(d.files) for d in dists),
            plan=plan,
            backend=backend_name,
            backend_version=backend_version,
            waited=waited,
            receipts=written,
            duration=_since(started),
            cleared=cleared,
        )


def _change(
    project: Project,
    request: Request,
    ui: UI,
    job: _Job,
    *,
    plan: Plan,
    probes: dict[NormalizedName, DistributionProbe],
) -> tuple[dict[NormalizedName, DistributionProbe], str, str | None, list[str]]:
    """Refuse what must not happen, run the backend on the plan's changes, verify them with the probe.

    Returns the probes the receipt is written from, the backend and its version, and the pip leftovers deleted.
    """
    from tierlock.installer import leftovers
    from tierlock.installer import target as where

    target, names = job.target, [str(t.name) for t in job.tiers]
    command = request.command(names)
    where.refuse_self_harm(plan, target, command=command)
    replaced_armed = where.armed_conflicts_for(project, plan, target, job.tiers)
    if not request.replace_armed:
        where.refuse_armed_conflicts(replaced_armed, names, command=command)
    where.refuse_unwritable(target)
    for other, rows in replaced_armed.items():  # before the backend changes anything, even if it fails
        where.mark_stale(target.prefix, other, by=names, packages=[name for name, _old, _new in rows])
        ui.note(f"{other}: marked stale - arming {', '.join(names)} replaces {', '.join(r[0] for r in rows)}")
    cleared = leftovers.clear(target.site_paths, {s.name for s in plan.changes}, {str(k): v for k, v in probes.items()})
    for path in cleared:
        ui.detail(f"  deleted {path}: left by an interrupted pip uninstall or upgrade")
    backend_name, backend_version = _execute(project, request, ui, target, plan)
    with _phase(ui, f"verifying {len(job.entries)} package(s) with the probe"):
        probes = verification.verify(
            job.entries,
            target,
            job.roots,
            names,
            again=command,
            deep=request.deep,
            before=probes,
            changed_names={s.name for s in plan.changes},
        )
    return probes, backend_name, backend_version, cleared


def _execute(project: Project, request: Request, ui: UI, target: Target, plan: Plan) -> tuple[str, str | None]:
    """Run the backend on the plan's changes; (backend name, its version)."""
    from tierlock.installer import backends
    from tierlock.installer.plan import requirement_lines

    backend = backends.choose(request.backend or project.backend, target)
    counts = plan.counts()
    doing = (
        f"{backend.name}: installing {counts['install']}, replacing {counts['replace']}, "
        f"repairing {counts['repair']} of {len(plan.steps)} package(s)"
    )
    for step in plan.changes:  # on a terminal, every package that changes; elsewhere with -v
        (ui.line if ui.fancy else ui.detail)(f"  {step.action} {step.entry.pin}: {step.reason}")
    version = _background(backend.version)  # asked while the backend installs
    with ui.status(doing):
        backends.execute(
            backend,
            target,
            [*request.index, *requirement_lines(plan.changes)],
            reinstall=[s.name for s in plan.of("repair")],
            log=ui.detail,
        )
    return backend.name, version()


def _result(plan: Plan) -> Result:
    if plan.of("install") or plan.of("replace"):
        return "installed"
    return "repaired" if plan.of("repair") else "unchanged"


@contextmanager
def _phase(ui: UI, text: str) -> Iterator[None]:
    """A spinner naming the phase on a terminal; nothing elsewhere (plain output keeps its few lines)."""
    if ui.fancy and not ui.quiet:
        with ui.status(text):
            yield
    else:
        yield


def _background(work: Callable[[], str]) -> Callable[[], str | None]:
    """Run *work* in a thread now; the returned function waits for its result (None when it failed)."""
    import threading

    box: list[str] = []

    def run() -> None:
        with suppress(Exception):  # the version is recorded, never essential
            box.append(work())

    thread = threading.Thread(target=run, name="tierlock-backend-version", daemon=True)
    thread.start()

    def result() -> str | None:
        thread.join()
        return box[0] if box else None

    return result


def _unchanged(noop: fastpath.NoOp, started: float) -> Outcome:
    return Outcome(
        noop.tiers, "unchanged", str(noop.prefix), noop.packages, noop.files, duration=_since(started), noop=noop
    )


def _since(started: float) -> float:
    return time.perf_counter() - started
