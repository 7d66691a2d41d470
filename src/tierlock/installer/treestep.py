"""The arming's step after the tiers' packages: the packages of the project's tree (:mod:`.projecttree`), its failure
recorded for ``status`` (:mod:`.failures`, ``"step": "project-tree"``), an interrupt there too.

The tiers' own packages are installed and verified by then and no receipt is written yet: a failure or an interrupt
here leaves a tier its probe calls present while the project is not installed, so the record is what ``status``
has to say (with the failure's remedy, or the same command after an interrupt) until an install of the tiers
succeeds.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from tierlock.errors import Interrupted, TierlockError
from tierlock.installer import failures, projecttree

if TYPE_CHECKING:
    from tierlock.installer.backends import Backend
    from tierlock.installer.job import Job
    from tierlock.installer.progress import Progress
    from tierlock.installer.request import Request
    from tierlock.tiers import Project


def arm(
    project: Project,
    request: Request,
    ui: Progress,
    job: Job,
    ran: tuple[str | None, str | None],
    *,
    backend: Callable[[], Backend],
) -> tuple[list[projecttree.LocalStep], str | None, str | None]:
    """Arm the packages of the project's tree (:func:`tierlock.installer.projecttree.arm_missing`, *backend* chosen
    when one is needed); the steps as found, and the backend that ran (*ran*: the one that installed the pins, if
    any). A failure or an interrupt is recorded, then raised."""
    names = [str(t.name) for t in job.tiers]
    again = request.command(names)
    try:
        local, chosen = projecttree.arm_missing(
            job.local, job.target, ui, backend, again=again, index=request.index, project=project.name
        )
    except (TierlockError, KeyboardInterrupt) as exc:
        error = exc if isinstance(exc, TierlockError) else interrupted(again)
        failures.write(job.target.prefix, names, error.to_dict(), step=failures.PROJECT_STEP)
        raise
    if chosen is None or ran[0] is not None:
        return local, ran[0], ran[1]
    from tierlock.installer.backendrun import background

    return local, chosen.name, background(chosen.version)()


def interrupted(again: str) -> Interrupted:
    """What an interrupt of this step leaves, as ``status`` shows it: the same command (*again*) finishes it."""
    return Interrupted(
        "interrupted while installing the packages of the project's tree: the tiers' own packages are installed "
        "and verified, no receipt was written; the same command again installs the rest",
        remedy=again,
    )
