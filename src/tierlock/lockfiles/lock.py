"""``tierlock lock``: which tiers to lock and in what order, siblings side by side, every failure collected.

A tier layered on another is compiled from its closure roots with the lower
tier's pins as constraints, so shared packages carry identical pins; its
lockfile holds the full closure. The lower tier is locked first when its
lockfile is missing or stale. Locking one tier (compile, verify, record its
artifacts, write) is :func:`tierlock.lockfiles.locktier.lock_tier`.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from tierlock.errors import BackendError, Problem
from tierlock.lockfiles.locks import LockfileError
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
    from tierlock.tiers.reach import project_local, unlockable

    local = project_local(project)
    results: dict[str, Locked] = {}
    failures: dict[str, NotLocked] = {}
    pending = list(order)
    while pending:
        # A wave: every tier whose lower tiers in this plan are settled; siblings compile side by side.
        planned = {t.name for t, _ in pending}
        wave = [(t, r) for t, r in pending if not planned.intersection(_below(project, t))]
        pending = [item for item in pending if item not in wave]
        runnable = []
        for tier, reason in wave:
            failed_below = next((failures[b] for b in _below(project, tier) if b in failures), None)
            reach = unlockable(project, tier, local) if failed_below is None else None
            if reach is not None:  # an index would not have it, or worse, a published namesake: no backend call
                failures[tier.name] = NotLocked(tier.name, f"cannot be locked: {reach.reason}", None, reach.remedy)
                continue
            if failed_below is None:
                runnable.append((tier, reason))
                continue
            failures[tier.name] = NotLocked(
                tier.name,
                f"not locked: the {failed_below.tier} lock it is layered on failed",
                None,
                f"fix {failed_below.tier} as its remedy says, then run: tierlock lock {tier.name} "
                f"(which locks {failed_below.tier} first)",
            )
        for tier, outcome in _lock_wave(project, runnable, backend, options, progress):
            if isinstance(outcome, Locked):
                results[tier.name] = outcome
            else:
                failures[tier.name] = _failure(project, tier, outcome)
    done = [results[t.name] for t, _ in order if t.name in results]
    if failures:
        raise LockFailed(done, [failures[t.name] for t, _ in order if t.name in failures])
    return done


#: Sibling tiers locked at once (each is one backend process, mostly waiting on its index).
PARALLEL = 4


def _lock_wave(
    project: Project,
    wave: Sequence[tuple[Tier, str]],
    backend: Backend,
    options: LockOptions,
    progress: Callable[[str], None] | None,
) -> list[tuple[Tier, Locked | BackendError | LockfileError]]:
    """Lock the tiers of *wave* (none layered on another), side by side; each outcome in order."""

    def one(item: tuple[Tier, str]) -> Locked | BackendError | LockfileError:
        tier, reason = item
        if progress is not None:
            progress(f"locking {tier.name} with {backend.name} ({project.relpath(tier.lockfile)})")
        try:
            return lock_tier(project, tier, backend, options, reason=reason)
        except (BackendError, LockfileError) as exc:
            return exc

    if len(wave) <= 1:
        return [(item[0], one(item)) for item in wave]
    # Plain threads (concurrent.futures would import logging, ~20 ms, for nothing).
    outcomes: list[Locked | BackendError | LockfileError | None] = [None] * len(wave)
    errors: list[BaseException] = []

    def work(indexes: Sequence[int]) -> None:
        try:
            for i in indexes:
                outcomes[i] = one(wave[i])
        except BaseException as exc:  # handed to the waiting thread
            errors.append(exc)

    lanes = min(PARALLEL, len(wave))
    threads = [
        threading.Thread(target=work, args=(range(lane, len(wave), lanes),), name="tierlock-lock", daemon=True)
        for lane in range(lanes)
    ]
    for thread in threads:
        thread.start()
    from tierlock import subproc

    subproc.join_workers(threads)  # an interrupt ends their backends with their process groups first
    if errors:
        raise errors[0]
    return [(tier, outcome) for (tier, _), outcome in zip(wave, outcomes, strict=True) if outcome is not None]


def _failure(project: Project, tier: Tier, exc: BackendError | LockfileError) -> NotLocked:
    """What failed for *tier* and its one remedy."""
    remedy = exc.remedy or f"tierlock lock {tier.name}"
    return NotLocked(tier.name, exc.message, exc.detail, remedy)
