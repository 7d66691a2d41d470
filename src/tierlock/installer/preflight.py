"""What is settled about the target before anything is planned: which tiers, whether the target is one
tierlock installs into, whether the project environment is whole (and created when missing), and which
packages are reinstalled on request. Every refusal here happens before anything changes in the target."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tierlock.errors import BackendError, UsageError
from tierlock.installer import receipts

if TYPE_CHECKING:
    from tierlock.environment import Target
    from tierlock.installer.location import Location
    from tierlock.installer.progress import Progress
    from tierlock.installer.request import Request
    from tierlock.lockfiles.locks import LockEntry
    from tierlock.tiers import Project


def externally_managed_reason(marker: Path) -> str:
    """The distributor's ``Error`` text from a PEP 668 ``EXTERNALLY-MANAGED`` file ("" when it gives none)."""
    import configparser

    parser = configparser.ConfigParser(interpolation=None)
    try:
        parser.read(marker, encoding="utf-8")
    except (configparser.Error, UnicodeDecodeError):
        return ""
    return " ".join(parser.get("externally-managed", "Error", fallback="").split())


def refuse_target(target: Target, *, system: bool, again: Callable[[str], str] | None = None) -> None:
    """Refuse (exit 2) an externally managed Python, and one that is no venv without ``--system``. *again* is
    the same install with another ``--python`` (for a link to a venv's interpreter that runs outside it)."""
    if target.externally_managed:
        from tierlock.remedies import MANAGED_VENV, shell_join

        marker = target.stdlib / "EXTERNALLY-MANAGED"
        reason = externally_managed_reason(marker)
        raise UsageError(
            f"{target.python} is an externally managed Python (PEP 668: {marker}"
            f"{': ' + reason if reason else ''}); tierlock will not install into it, even with --system",
            # A venv of that Python (without pip: a distribution may ship venv without ensurepip), armed from here.
            remedy=f"{shell_join([str(target.python), '-m', 'venv', '--without-pip', MANAGED_VENV])} && "
            f"{again(f'{MANAGED_VENV}/bin/python')}"
            if again is not None
            else None,
        )
    if not target.is_venv and not system:
        from tierlock.installer.location import linked_venv_python

        linked = linked_venv_python(target.python)
        if linked is not None and again is not None:
            raise UsageError(
                f"{target.python} is not a virtual environment (prefix {target.prefix}): it is a link to {linked}, "
                "but Python finds a venv beside the path it is started from, so through the link it runs as its "
                "base interpreter (as uv and pip then treat it); nothing was installed",
                remedy=again(linked),
            )
        raise UsageError(
            f"{target.python} is not a virtual environment (prefix {target.prefix}); nothing was installed",
            remedy="activate a virtual environment or pass --python PATH to one (or --system to install anyway)",
        )


def outside_python(target: Target, project: Project, *, again: Callable[[str | None], str]) -> tuple[str, str] | None:
    """(why, the fix) when the project's ``requires-python`` excludes the target's Python, else None. Its locks
    were resolved for other Pythons: a pylock refuses it, a wheel for none of its tags fails in the backend, and
    locking again resolves for the same Pythons, so an install that fails there says so and gets this fix. It
    makes the venv again with a Python that satisfies it (its interpreter links removed first: ``python -m
    venv`` keeps a link it finds), then runs *again* (the same install, with ``--python`` naming the venv's
    folder when one was given: the interpreter's old name is gone)."""
    from tierlock.outsidepython import outside

    found = outside(target, project.requires_python)
    if found is None:
        return None
    remedy = f"pass --python PATH to a Python that satisfies requires-python {project.requires_python}"
    if found.remake is not None:
        remedy = f"{found.remake} && {again(found.prefix)}"
    return found.why, remedy


@contextmanager
def explained(outside: tuple[str, str] | None) -> Iterator[None]:
    """A usage or backend error of an install into a target whose Python ``requires-python`` excludes
    (*outside*: why, and the fix that makes the venv again with a Python that satisfies it) says so."""
    try:
        yield
    except (UsageError, BackendError) as exc:
        if outside is not None:
            exc.message = f"{exc.message}; {outside[0]}"
            exc.args = (exc.message,)
            exc.remedy = outside[1]
        raise


def armed_tiers(project: Project, target: Target, ui: Progress) -> list[str]:
    """The declared tiers that have a receipt in *target*, bottom of each chain first."""
    found = receipts.load_all(target.prefix)
    for name in sorted(set(found) - set(project.tiers)):
        ui.note(f"{target.prefix} has a receipt for tier {name!r}, which pyproject.toml no longer declares: skipped")
    return [name for name in project.tiers if name in found]


def refuse_incomplete(project: Project, request: Request, location: Location, names: Sequence[str]) -> None:
    """Refuse (exit 2) a project environment that is there but unusable, with the command that recreates it."""
    if location.problem is None or location.folder is None:
        return
    from tierlock.installer.location import recreate_command

    again = request.command(names or ["base"])
    raise UsageError(
        f"the project environment {project.relpath(Path(location.folder))} {location.problem}; nothing was "
        "installed (neither uv venv nor python -m venv creates an environment over it)",
        remedy=f"{recreate_command(location.folder)} && {again}",
    )


def created(
    project: Project, request: Request, ui: Progress, location: Location, *, names: Sequence[str], pending: Any
) -> Target:
    """The target, after creating the project environment when it is missing."""
    from tierlock import environment

    if location.missing and location.folder is not None:
        if request.dry_run:
            raise UsageError(
                f"the project environment {project.relpath(Path(location.folder))} does not exist yet; "
                "a dry run creates nothing",
                remedy=request.command(names),
            )
        from tierlock.installer.creation import create

        backend = request.backend or project.backend
        create(location.folder, project=project, backend=backend, again=request.command(names), note=ui.note)
    return environment.resolve(location.python, pending=pending)


def forced_names(request: Request, entries: Sequence[LockEntry]) -> frozenset[str]:
    """The packages ``--reinstall`` / ``--reinstall-package`` name (every one must be in the tiers' locks)."""
    if request.reinstall:
        return frozenset(e.name for e in entries)
    from tierlock.probing.site import normalize

    known = {str(e.name) for e in entries}
    wanted = {normalize(n) for n in request.reinstall_packages}
    unknown = sorted(wanted - known)
    if unknown:
        import difflib

        close = difflib.get_close_matches(unknown[0], sorted(known), n=1)
        fix = f" --reinstall-package {close[0]}" if close else " --reinstall"
        locked = ", ".join(sorted(known)) or "(none)"
        raise UsageError(
            f"--reinstall-package {', '.join(unknown)}: not in the locks of "
            f"{', '.join(request.tiers) or 'these tiers'} for this target; the locked packages are {locked}",
            package=unknown[0],
            remedy=request.command(list(request.tiers)) + fix,
        )
    return frozenset(wanted)
