"""The backend step of an arming: refuse what must not happen, run the backend on the plan's changes, verify them.

:func:`apply` carries out a plan with changes for :func:`tierlock.installer.run.install`: the refusals that come
before anything changes (tierlock's own packages, another armed tier's pins, a target it cannot write), pip's
leftovers cleared, the backend run (:mod:`tierlock.installer.backendrun`) while the verification's reading is made
beside it (:mod:`tierlock.installer.ahead`), then the probe of what it changed. What uv wrote from a damaged copy in
its cache is written once more without it (:func:`_verified`).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from tierlock.errors import BackendError, TierlockError
from tierlock.installer import failures, lockload, verification
from tierlock.installer.backends import UvBackend
from tierlock.installer.plan import Plan

if TYPE_CHECKING:
    from packaging.utils import NormalizedName

    from tierlock.environment import Target
    from tierlock.installer.backendrun import Ran
    from tierlock.installer.backends import Backend
    from tierlock.installer.job import Job
    from tierlock.installer.progress import Progress
    from tierlock.installer.receiptrecord import Prepared
    from tierlock.installer.request import Request
    from tierlock.probing import DistributionProbe
    from tierlock.tiers import Project


def apply(
    project: Project,
    request: Request,
    ui: Progress,
    job: Job,
    *,
    plan: Plan,
    probes: Mapping[NormalizedName, DistributionProbe],
) -> tuple[dict[NormalizedName, DistributionProbe], list[str], Ran, Prepared | None]:
    """Carry out a plan with changes: refuse what must not happen, run the backend, verify with the probe.

    Returns the probes after it, the pip leftovers deleted, the backend that ran, and the receipts' parts made
    while it ran (None: not made then).
    """
    from tierlock.installer import ahead, leftovers, selfguard
    from tierlock.installer.target import armed_conflicts_for, mark_stale, refuse_armed_conflicts, refuse_unwritable

    tiers, target, entries = job.tiers, job.target, job.entries
    names = [str(t.name) for t in tiers]
    command = request.command(names)
    selfguard.refuse(plan, target, project=project, tiers=names, command=command)
    replaced_armed = armed_conflicts_for(project, plan, target, tiers)
    if not request.replace_armed:
        refuse_armed_conflicts(replaced_armed, names, command=command)
    refuse_unwritable(target)
    for other, rows in replaced_armed.items():  # before the backend changes anything, even if it fails
        mark_stale(target.prefix, other, by=names, packages=[name for name, _old, _new in rows])
        ui.note(f"{other}: marked stale - arming {', '.join(names)} replaces {', '.join(r[0] for r in rows)}")
    cleared = leftovers.clear(target.site_paths, {s.name for s in plan.changes}, {str(k): v for k, v in probes.items()})
    for path in cleared:
        ui.detail(f"  deleted {path}: left by an interrupted pip uninstall or upgrade")
    for path in leftovers.specials({s.name for s in plan.changes}, {str(k): v for k, v in probes.items()}):
        ui.detail(
            f"  deleted {path}: no file an installer writes (a FIFO, a socket or a device), which it would wait on"
        )

    from tierlock.installer import receiptrecord

    def prepare() -> Prepared:
        return receiptrecord.prepare(project, tiers=tiers, locks=job.locks, target=target)

    try:  # the verification's reading and the receipts' parts, beside the backend
        with ahead.Ahead(target, [s.name for s in plan.changes], also=prepare) as reading:
            ran = execute(project, request, ui, job, plan)
    except TierlockError as exc:  # status reports it, with its remedy, until the tier installs
        failures.write(target.prefix, names, exc.to_dict())
        raise
    with phase(ui, f"verifying {len(entries)} package(s) with the probe"):
        after = _verified(project, request, ui, job, plan=plan, probes=probes)
    made = reading.made
    return after, cleared, ran, made if isinstance(made, receiptrecord.Prepared) else None


def _verified(
    project: Project,
    request: Request,
    ui: Progress,
    job: Job,
    *,
    plan: Plan,
    probes: Mapping[NormalizedName, DistributionProbe],
) -> dict[NormalizedName, DistributionProbe]:
    """:func:`tierlock.installer.verification.verify` of the packages the backend changed; when uv left some it
    was asked to repair still damaged, or some it installed or replaced with a file of another size than RECORD's
    that is linked elsewhere (uv's cache), they are installed once more without uv's cache.

    uv installs the files of a wheel as hard links to the copy it unpacked into its cache: a file of an environment
    written in place (cut short by a full disk, ``truncate``, ``cp -p`` over it) is written in the cache too, and
    a reinstall from it links the damaged bytes again - the same command, printed as the fix, forever; an install
    into another environment (a fresh one, a CI job sharing the cache) links them too. A file missing, or an
    import root the wheel does not ship, is no copy of the cache's: that install fails as it is."""
    names = [str(t.name) for t in job.tiers]

    def verify() -> dict[NormalizedName, DistributionProbe]:
        return verification.verify(
            job.entries,
            job.target,
            job.roots,
            names,
            again=request.command(names),
            deep=request.deep,
            before=probes,
            changed_names={s.name for s in plan.changes},
        )

    try:
        return verify()
    except BackendError:
        written = {str(s.name) for s in plan.changes}
        repaired = {str(s.name) for s in plan.of("repair")}  # (there, at its version, and damaged before it ran)
        entries = [e for e in job.entries if str(e.name) in written]
        after, found = verification.probe_and_plan(entries, job.target, job.roots, deep=request.deep)
        steps = [s for s in after.of("repair") if str(s.name) in repaired or _linked_and_resized(found.get(s.name))]
        uv = backend_for(project, request, job.target)
        if not steps or not isinstance(uv, UvBackend):
            raise
    damaged = Plan(tuple(steps))
    ui.note(
        f"uv: {', '.join(str(s.name) for s in damaged.steps)} damaged as uv wrote it (uv links installed files from"
        " its cache, which a change made in place through such a link damages too): installing again without uv's"
        " cache"
    )
    execute(project, request, ui, job, damaged, backend=_UvWithoutCache(uv.executable, uv.name))
    return verify()


def _linked_and_resized(probe: DistributionProbe | None) -> bool:
    """Whether a file of the distribution *probe* found has another size than RECORD says and another link
    (uv's cache's copy, written in place through a link of another environment)."""
    import os

    for row in probe.records if probe is not None else ():
        try:
            info = os.stat(row[0])
        except OSError:
            continue  # missing: no copy of the cache's
        if info.st_nlink > 1 and row[2] is not None and info.st_size != row[2]:
            return True
    return False


def backend_for(project: Project, request: Request, target: Target) -> Backend:
    from tierlock.installer import backends

    return backends.choose(request.backend or project.backend, target)


def execute(
    project: Project, request: Request, ui: Progress, job: Job, plan: Plan, *, backend: Backend | None = None
) -> Ran:
    """Run the backend on the plan's changes (never building what a no-build tier holds); *backend*: this one rather
    than the one the request chooses."""
    from tierlock.installer import backendrun

    backend = backend or backend_for(project, request, job.target)
    names = [str(t.name) for t in job.tiers]
    index = request.index or lockload.index_lines([s.entry for s in plan.changes])
    step = backendrun.Step(job.target, names, job.rules, request.command(names), index)
    return backendrun.run(project, ui, backend, plan, step)


class _UvWithoutCache(UvBackend):
    """uv run with ``--no-cache``: the wheels' files unpacked again, none linked from the copy in its cache."""

    def install_argv(
        self, target: Target, requirements: Path, *, reinstall: Sequence[str], no_build: Sequence[str] = ()
    ) -> list[str]:
        return [*super().install_argv(target, requirements, reinstall=reinstall, no_build=no_build), "--no-cache"]


@contextmanager
def phase(ui: Progress, text: str) -> Iterator[None]:
    """A spinner naming the phase on a terminal; nothing elsewhere (plain output keeps its few lines)."""
    if ui.fancy and not ui.quiet:
        with ui.status(text):
            yield
    else:
        yield
