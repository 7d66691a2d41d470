"""The packages of the project's own tree: armed from their folders, as ``uv sync`` arms them.

``uv sync`` installs the project itself into its environment (editable) and
every workspace member or path dependency the lock reaches, each from its
folder and without resolving anything (their dependencies are in the lock
too). ``install-tier`` does the same once the tier's pinned packages are in:
the :class:`~tierlock.lockfiles.locks.LocalPackage` list of the tiers' locks
(the project itself for a project that is a package, see
:func:`tierlock.lockfiles.sources.read_tier`), each one that is not already
installed from that very folder (``direct_url.json``), in one backend call with
``--no-deps``. ``--no-install-project`` leaves the project itself out (the other
local packages are dependencies and stay), like ``uv sync --no-install-project``.

Nothing here resolves, and nothing is fetched but the build backends the
folders declare (through the user's own index configuration).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Literal

from tierlock.frozen import Frozen
from tierlock.probing.project import installed_origin, same_folder

if TYPE_CHECKING:
    from tierlock.environment import Target
    from tierlock.installer.backends import Backend
    from tierlock.installer.progress import Progress
    from tierlock.installer.receipts import InstalledDist
    from tierlock.lockfiles.locks import LocalPackage, Lock
    from tierlock.probing.site import SiteIndex


class LocalStep(Frozen):
    """What the install does with one package of the project's tree."""

    _fields = ("package", "action", "reason")

    package: LocalPackage
    action: Literal["satisfied", "install"]
    reason: str

    def __init__(self, package: LocalPackage, action: Literal["satisfied", "install"], reason: str) -> None:
        self._init(package, action, reason)

    def to_dict(self) -> dict[str, object]:
        return {
            "name": self.package.name,
            "path": str(self.package.path),
            "editable": self.package.editable,
            "version": self.package.version,
            "action": self.action,
            "reason": self.reason,
        }


def wanted(
    locks: Iterable[Lock],
    project_name: str | None,
    *,
    install_project: bool,
    environment: Mapping[str, str],
) -> list[LocalPackage]:
    """The local packages of *locks* (once each) whose markers hold in *environment* (the target's marker
    environment: never tierlock's own, which another Python's target does not share), without the project itself
    unless *install_project*."""
    out: dict[str, LocalPackage] = {}
    for lock in locks:
        for package in lock.local:
            if (install_project or package.name != project_name) and package.applies(environment):
                out.setdefault(str(package.name), package)
    return [out[name] for name in sorted(out)]


def plan(packages: Sequence[LocalPackage], index: SiteIndex) -> list[LocalStep]:
    """Per local package: satisfied (installed from its folder, the same way and version) or install (why)."""
    return [_decide(package, index) for package in packages]


def _decide(package: LocalPackage, index: SiteIndex) -> LocalStep:
    found = index.find(package.name)
    if not found:
        return LocalStep(package, "install", "not installed")
    info = found[0]
    origin = installed_origin(info.path)
    how = "editable" if package.editable else "from its folder"
    if origin is None or same_folder(origin[0], package.path) is False:
        where = f"from {origin[0]}" if origin else "from an index or a wheel"
        return LocalStep(package, "install", f"installed {where}, not {how} from {package.path}")
    if origin[1] != package.editable:
        return LocalStep(package, "install", f"installed {'editable' if origin[1] else 'as a copy'}, not {how}")
    if package.version is not None and not _same_version(info.folder_version, package.version):
        return LocalStep(package, "install", f"{info.folder_version} installed, {package.version} in its folder")
    broken = _broken(package.name, index)
    if broken is not None:  # its .dist-info says so, but a file it installed is gone (the editable .pth)
        return LocalStep(package, "install", f"installed {how} from {package.path}, but {broken}")
    return LocalStep(package, "satisfied", f"installed {how} from {package.path}")


def _broken(name: str, index: SiteIndex) -> str | None:
    """The first reason the probe finds the installed *name* partial (a file its RECORD lists missing or resized),
    or None when it is whole."""
    from tierlock.probing import probe_distribution

    found = probe_distribution(name, index=index)
    return found.reasons[0] if found.state == "partial" and found.reasons else None


def _same_version(installed: str, declared: str) -> bool:
    from packaging.version import InvalidVersion, Version

    try:
        return Version(installed) == Version(declared)
    except InvalidVersion:
        return installed == declared


def arm(
    steps: Sequence[LocalStep],
    backend: Backend,
    target: Target,
    index: Sequence[str],
    *,
    log: Callable[[str], None] | None = None,
    again: str | None = None,
    project: str | None = None,
) -> None:
    """Install every ``install`` step from its folder: one backend call, ``--no-deps`` (BackendError on failure).

    When that call fails and *project* (the project itself) is among them, its remedy is *again* (the command
    that failed) with ``--no-install-project``, which arms the tiers without it: running the same command again
    would fail the same way. The others are tried alone first, so that a failure of theirs (which the flag does
    not skip) keeps its own reason and no command is named for it (the cause is theirs to fix)."""
    from tierlock import subproc
    from tierlock.installer.backends import failure

    packages = [s.package for s in steps if s.action == "install"]
    if not packages:
        return
    argv = backend.local_argv(target, [(p.path, p.editable, str(p.name)) for p in packages], _options(index))
    what = f"{backend.name} install of {', '.join(p.name for p in packages)} from the project tree into {target.prefix}"
    result = subproc.run(argv, what=what, log=log, check=False)
    if result.returncode == 0:
        return
    from tierlock.installer.treerefusal import refused, without_project

    itself = again is not None and any(p.name == project for p in packages)
    if itself and len(packages) > 1:  # the others alone: their own failure raises here, with its own reason
        arm([s for s in steps if s.package.name != project], backend, target, index, log=log, again=again)
    said = refused(result.stdout + "\n" + result.stderr, [p.path for p in packages], again)
    error = failure(
        what,
        result,
        remedy="fix the cause shown above (a build backend the index does not serve, a broken pyproject.toml of "
        "a package of the project's tree), then run the same install-tier command again",
    )
    if said is not None:
        error.message = f"{error.message}; {said[0]}"
        error.remedy = said[1]
    elif itself and again is not None:
        error.message = (
            f"{error.message}; the tier's own packages are installed, the project {project} itself is not: once "
            f"its build is fixed (the cause above), {again} installs it; until then arm the tier without it"
        )
        error.remedy = without_project(again)
    raise error


def _options(lines: Sequence[str]) -> list[str]:
    """Index option lines (``--index-url URL``) as arguments (the build backends come from there too)."""
    out: list[str] = []
    for line in lines:
        out.extend(line.split(" ", 1))
    return out


def dists(steps: Sequence[LocalStep], target: Target) -> list[InstalledDist]:
    """What a receipt records of the local packages, read after they were armed (the fast path stats them)."""
    from contextlib import suppress

    from tierlock.installer.receipts import InstalledDist, file_rows
    from tierlock.probing import SiteIndex, probe_distribution

    index = SiteIndex.of(target)
    out: list[InstalledDist] = []
    for step in steps:
        result = probe_distribution(step.package.name, index=index)
        if result.dist_info_dir is None or result.version_text is None:
            continue
        site, folder = os.path.split(result.dist_info_dir)
        files = file_rows(result.records)
        with suppress(OSError):
            files += ((f"{folder}/RECORD", os.stat(os.path.join(result.dist_info_dir, "RECORD")).st_size),)
        out.append(
            InstalledDist(
                step.package.name,
                result.version_text,
                os.path.relpath(site, target.prefix),
                folder,
                files,
                project=True,  # from the project tree: its version is its folder's, no lock pins it
            )
        )
    return out


def plan_in(packages: Sequence[LocalPackage], target: Target) -> list[LocalStep]:
    """:func:`plan` against what *target* holds now (one scan of its site folders)."""
    from tierlock.probing import SiteIndex

    return plan(packages, SiteIndex.of(target)) if packages else []


def arm_missing(
    packages: Sequence[LocalPackage],
    target: Target,
    ui: Progress,
    backend: Callable[[], Backend],
    *,
    again: str,
    index: Sequence[str] = (),
    project: str | None = None,
) -> tuple[list[LocalStep], Backend | None]:
    """Arm every local package not installed from its folder, then check they all are (BackendError if not).

    Returns the steps as found before arming, and the backend when one ran. *project*: the project's own name
    (its failure's remedy leaves it out, :func:`arm`).
    """
    from tierlock.errors import BackendError, Problem

    steps = plan_in(packages, target)
    if not missing(steps):
        return steps, None
    chosen = backend()
    for step in steps:
        if step.action == "install":
            (ui.line if ui.fancy else ui.detail)(f"  from the project tree: {step.package.name}: {step.reason}")
    with ui.status(f"{chosen.name}: installing {len(missing(steps))} package(s) from the project tree"):
        arm(steps, chosen, target, index, log=ui.detail, again=again, project=project)
    still = missing(plan_in(packages, target))
    if still:
        raise BackendError(
            f"after installing from the project tree, {', '.join(still)} is still not installed as the lock says; "
            "no receipt was written",
            problems=[Problem(s) for s in still],
            remedy=again,
        )
    return steps, chosen


def missing(steps: Sequence[LocalStep]) -> list[str]:
    """``name (why)`` of every local package that is not installed as wanted."""
    return [f"{s.package.name} ({s.reason})" for s in steps if s.action == "install"]


def by_name(steps: Iterable[LocalStep]) -> Mapping[str, LocalStep]:
    return {str(s.package.name): s for s in steps}
