"""The backend step of an install: run uv or pip on the plan's changes, never building what a no-build tier holds.

Before the backend starts, a no-build tier's package without a wheel for the
target stops the install (:func:`tierlock.installer.builds.refuse`) and each
package a tier that may build will build is announced; while it runs, its
lines are read as they come (a build's start and end are said); a failure is
explained (:func:`tierlock.installer.builds.explain`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import suppress
from typing import TYPE_CHECKING, NamedTuple

from tierlock import interrupts
from tierlock.frozen import Frozen

if TYPE_CHECKING:
    from tierlock.environment import Target
    from tierlock.installer.backends import Backend
    from tierlock.installer.builds import Policy
    from tierlock.installer.plan import Plan
    from tierlock.installer.progress import Progress
    from tierlock.tiers import Project


class Step(Frozen):
    """What the backend step works from."""

    _fields = ("target", "tiers", "rules", "command", "index")

    target: Target
    tiers: Sequence[str]
    rules: Policy
    command: str
    """The ``install-tier`` command that repeats this install (remedies end with it)."""
    index: Sequence[str]
    """Index option lines put before the pins the backend reads."""

    def __init__(
        self, target: Target, tiers: Sequence[str], rules: Policy, command: str, index: Sequence[str] = ()
    ) -> None:
        self._init(target, tiers, rules, command, index)


class Ran(NamedTuple):
    """The backend that ran: its name, its version (None when it could not be told) and its wall time."""

    name: str
    version: str | None
    seconds: float
    """From its start (an early start: that start) to its end being read (``backend_s`` of ``--json``)."""


def run(project: Project, ui: Progress, backend: Backend, plan: Plan, step: Step) -> Ran:
    """Run *backend* on *plan*'s changes."""
    from tierlock.installer import backends, builds
    from tierlock.installer.plan import requirement_lines

    planned = builds.planned(step.rules, plan.changes, step.target)
    builds.refuse(project, planned, step.target, command=step.command)  # before anything runs, as check explains it
    counts = plan.counts()
    doing = (
        f"{backend.name}: installing {counts['install']}, replacing {counts['replace']}, "
        f"repairing {counts['repair']} of {len(plan.steps)} package(s)"
    )
    for change in plan.changes:  # on a terminal, every package that changes; elsewhere with -v
        (ui.line if ui.fancy else ui.detail)(f"  {change.action} {change.entry.pin}: {change.reason}")
    say = ui.line if ui.fancy else ui.note  # a build is said even without -v (beside the spinner on a terminal)
    watcher = builds.Watcher(say, builds.announce(say, planned))
    no_build = step.rules.flags(plan.changes)
    backends.end_recording()  # (before the version's thread: nothing it does is part of a kept plan)
    _strays(ui, step.target, plan)
    version = background(backend.version)  # asked while the backend installs
    with ui.status(doing):
        try:
            result = backends.execute(
                backend,
                step.target,
                [*step.index, *requirement_lines(plan.changes)],
                reinstall=[s.name for s in plan.of("repair")],
                no_build=no_build,
                log=ui.detail,
                on_line=watcher,
                fresh=all(s.action == "install" for s in plan.steps),
            )
        except backends.InstallFailed as exc:
            raise builds.explain(
                exc, tiers=step.tiers, rules=step.rules, command=step.command, no_build=no_build, backend=backend.name
            ) from None
    return Ran(backend.name, version(), result.seconds)


def _strays(ui: Progress, target: Target, plan: Plan) -> None:
    """Remove the metadata folders of another version beside a package the backend writes again
    (:mod:`tierlock.installer.strays`): pip's reinstall leaves them."""
    changed = [(str(c.entry.name), str(c.entry.version)) for c in plan.changes if c.action in ("repair", "replace")]
    if not changed:
        return
    from tierlock.installer.strays import removed

    for path in removed(target.site_paths, changed):
        ui.detail(f"removed {path}: another version's metadata beside a package this install writes again")


#: How long the install waits, once the backend has ended, for the backend's version asked beside it (seconds).
VERSION_WAIT = 10.0


def background(work: Callable[[], str]) -> Callable[[], str | None]:
    """Run *work* in a thread now; the returned function waits for its result (None when it failed, or when it has
    not come after :data:`VERSION_WAIT` seconds: the version is recorded, never essential, and a thread stuck on
    anything - a backend that does not answer ``--version``, an import lock an interrupt left taken - must not
    hold the install that already finished)."""
    import threading

    box: list[str] = []

    def target() -> None:
        with suppress(Exception):  # the version is recorded, never essential
            box.append(work())

    thread = threading.Thread(target=target, name="tierlock-backend-version", daemon=True)
    with interrupts.sheltered():  # signals go to the main thread, which waits for the backend
        thread.start()

    def result() -> str | None:
        thread.join(VERSION_WAIT)
        return box[0] if box else None

    return result
