"""``tierlock lock``: which tiers to lock and in what order, siblings side by side, every failure collected.

A tier layered on another is compiled from its closure roots with the lower
tier's pins as constraints, so shared packages carry identical pins; its
lockfile holds the full closure. The lower tier is locked first when its
lockfile is missing or stale. Locking one tier (compile, verify, record its
artifacts, write) is :func:`tierlock.lockfiles.locktier.lock_tier`.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from tierlock.errors import BackendError, Problem
from tierlock.lockfiles.locks import Lock, LockfileError
from tierlock.lockfiles.locktier import Locked, LockOptions, lock_tier, lower_name, regenerate_command
from tierlock.lockfiles.pindiff import pin_changes
from tierlock.lockfiles.resolvers import Backend
from tierlock.tiers import Project, Tier

__all__ = [
    "LockFailed",
    "LockOptions",
    "Locked",
    "NotLocked",
    "lock_project",
    "lock_tier",
    "lower_name",
    "pin_changes",
    "plan",
    "regenerate_command",
]


@dataclass(frozen=True)
class NotLocked:
    """A tier whose lock failed (or could not start because a tier below it failed); its lockfile is untouched."""

    tier: str
    message: str
    detail: str | None
    remedy: str

    def to_dict(self) -> dict[str, object]:
        return {"tier": self.tier, "message": self.message, "detail": self.detail, "remedy": self.remedy}


class LockFailed(BackendError):
    """Some tiers could not be locked; every other tier was locked (exit 3).

    ``locked`` holds what succeeded, ``failures`` one entry (with its one remedy) per tier not locked.
    """

    def __init__(self, locked: Sequence[Locked], failures: Sequence[NotLocked]) -> None:
        names = ", ".join(f.tier for f in failures)
        super().__init__(
            f"{len(failures)} tier(s) not locked: {names}; {len(locked)} tier(s) locked",
            problems=[Problem(f"{f.message}; to fix: {f.remedy}", f.tier) for f in failures],
            detail="\n".join(f"{f.tier}: {f.detail}" for f in failures if f.detail) or None,
        )
        self.locked = tuple(locked)
        self.failures = tuple(failures)


def plan(project: Project, names: Sequence[str] | None) -> list[tuple[Tier, str]]:
    """The tiers to lock, lower tiers first: the requested ones, plus any missing or stale tier below them."""
    requested = project.select(list(names) if names else None)
    wanted = {t.name for t in requested}
    order: list[tuple[Tier, str]] = []
    seen: set[str] = set()
    for tier in requested:
        for member in project.chain(tier.name):
            if member.name in seen:
                continue
            if member.name in wanted:
                seen.add(member.name)
                order.append((member, "requested"))
                continue
            from tierlock.lockfiles.check import findings, read_locks

            stale = findings(project, [member], read_locks(project, [member])).findings
            if stale or any(r in {m.name for m, _ in order} for r in _below(project, member)):
                seen.add(member.name)
                order.append((member, f"{stale[0].kind} below {tier.name}" if stale else f"below {tier.name}"))
    return order


def _below(project: Project, tier: Tier) -> list[str]:
    return [t.name for t in project.chain(tier.name)[:-1]]


def lock_project(
    project: Project,
    names: Sequence[str] | None,
    backend: Backend,
    options: LockOptions,
    *,
    progress: Callable[[str], None] | None = None,
) -> list[Locked]:
    """Lock the named tiers (all when none) and whatever below them needs it."""
    if project.format == "pylock" and not backend.universal:
        from tierlock.errors import UsageError

        raise UsageError(
            "pip-tools cannot write the pylock format",
            remedy='lock with uv (tierlock lock --backend uv) or set format = "requirements" in [tool.tierlock]',
        )
    order = plan(project, names)
    runs = _Runs(project, backend, options, progress, [_Run(tier, reason) for tier, reason in order])
    runs.run_all()
    done = [r.outcome for r in runs.runs.values() if isinstance(r.outcome, Locked)]
    failures = [r.outcome for r in runs.runs.values() if isinstance(r.outcome, NotLocked)]
    if failures:
        raise LockFailed(done, failures)
    return done


#: Backend processes run at once (each mostly waits on its index, or on uv's cache).
PARALLEL = 4


@dataclass
class _Run:
    """One tier of the plan: settled (``done``) once it is locked or known not to be."""

    tier: Tier
    reason: str
    done: threading.Event = field(default_factory=threading.Event)
    outcome: Locked | NotLocked | None = None
    announced: bool = False


class _Redo(Exception):
    """A compile made against the old lockfile of the tier below, which has changed since: compile again."""


@dataclass
class _Runs:
    """Every tier of the plan, each in its own thread (at most :data:`PARALLEL` backends at once).

    A tier layered on another tier of the plan does not wait for it to be
    locked: it is compiled at once against the lockfile below as it stands
    (what a lock that changes nothing there would write), then waits. When the
    tier below is settled and its lockfile is byte for byte the one compiled
    against, the result is written; when it changed, or failed, the compile is
    redone against the new lockfile, or the tier is not locked. Either way the
    lockfile written is the one locking the tiers one after another writes.
    """

    project: Project
    backend: Backend
    options: LockOptions
    progress: Callable[[str], None] | None
    order: list[_Run]
    runs: dict[str, _Run] = field(init=False)
    slots: threading.Semaphore = field(init=False)

    def __post_init__(self) -> None:
        self.runs = {r.tier.name: r for r in self.order}
        self.slots = threading.Semaphore(PARALLEL)

    def run_all(self) -> None:
        """Settle every run; an interrupt ends their backends with their process groups first."""
        from tierlock.tiers.reach import project_local

        local = project_local(self.project)
        if len(self.order) == 1:
            self.settle(self.order[0], local)
            return
        errors: list[BaseException] = []

        def work(run: _Run) -> None:
            try:
                self.settle(run, local)
            except BaseException as exc:  # handed to the waiting thread
                errors.append(exc)

        # Plain threads (concurrent.futures would import logging, ~20 ms, for nothing).
        threads = [threading.Thread(target=work, args=(r,), name="tierlock-lock", daemon=True) for r in self.order]
        from tierlock import interrupts, subproc

        try:
            with interrupts.sheltered():  # signals go to this thread, waiting below
                for thread in threads:
                    thread.start()
            # (an interrupt held while they started lands as the block ends: the ones started are ended below)
            # Waiting on each run's event, not on its thread: an interrupt landing in Thread.join() can mark
            # the thread as ended while it still runs (CPython 3.11), and it would then outlive the command.
            for run in self.order:
                run.done.wait()
        except BaseException:
            subproc.end_workers(threads)  # their backends end, the threads clean up, then the interrupt
            raise
        for thread in threads:
            thread.join()
        if errors:
            raise errors[0]

    def settle(self, run: _Run, local: Mapping[str, str]) -> None:
        try:
            run.outcome = self.outcome(run, local)
        finally:
            run.done.set()  # whatever happened, the tiers above stop waiting

    def outcome(self, run: _Run, local: Mapping[str, str]) -> Locked | NotLocked:
        from tierlock.tiers.reach import unlockable

        tier = run.tier
        reach = unlockable(self.project, tier, local)
        if reach is None and tier.layered_on in self.runs and self.runs[tier.layered_on].tier.lockfile.is_file():
            early = self.ahead(run)
            if early is not None:
                return early
        failed = self.failed_below(run)
        if failed is not None:
            return failed
        if reach is not None:  # an index would not have it, or worse, a published namesake: no backend call
            return NotLocked(tier.name, f"cannot be locked: {reach.reason}", None, reach.remedy)
        try:
            return self.lock(run)
        except (BackendError, LockfileError) as exc:
            return _failure(self.project, tier, exc)

    def ahead(self, run: _Run) -> Locked | None:
        """*run* compiled against the lockfile below as it stands; None when that must be redone (or failed)."""

        def settled(used: Lock | None) -> None:
            if self.failed_below(run) is not None or not _same_file(self.runs[run.tier.layered_on or ""].tier, used):
                raise _Redo

        try:
            return self.lock(run, settled)
        except (_Redo, BackendError, LockfileError):  # judged once the tier below is settled, by compiling again
            return None

    def lock(self, run: _Run, settled: Callable[[Lock | None], None] | None = None) -> Locked:
        if self.progress is not None and not run.announced:
            run.announced = True
            self.progress(
                f"locking {run.tier.name} with {self.backend.name} ({self.project.relpath(run.tier.lockfile)})"
            )
        return lock_tier(
            self.project, run.tier, self.backend, self.options, reason=run.reason, slots=self.slots, settled=settled
        )

    def failed_below(self, run: _Run) -> NotLocked | None:
        """Wait for the planned tiers below *run*; the failure of the lowest that failed, as *run*'s own."""
        below = [self.runs[name] for name in _below(self.project, run.tier) if name in self.runs]
        for other in below:
            other.done.wait()
        failed = next((o for o in below if not isinstance(o.outcome, Locked)), None)
        if failed is None:
            return None
        name, tier = failed.tier.name, run.tier.name
        return NotLocked(
            tier,
            f"not locked: the {name} lock it is layered on failed",
            None,
            f"fix {name} as its remedy says, then run: tierlock lock {tier} (which locks {name} first)",
        )


def _same_file(tier: Tier, used: Lock | None) -> bool:
    """Whether *tier*'s lockfile is still byte for byte the one *used* was read from."""
    from tierlock.lockfiles.digest import digest_file

    try:
        return used is not None and digest_file(tier.lockfile) == used.file_digest
    except OSError:
        return False


def _failure(project: Project, tier: Tier, exc: BackendError | LockfileError) -> NotLocked:
    """What failed for *tier* and its one remedy."""
    remedy = exc.remedy or f"tierlock lock {tier.name}"
    return NotLocked(tier.name, exc.message, exc.detail, remedy)
