"""Which environment tierlock acts on, and what it refuses to do there.

* :func:`locate`: ``--python``, else the active virtual environment, else the
  project's own environment (``$TIERLOCK_PROJECT_ENVIRONMENT``, else
  ``[tool.tierlock].venv``, else ``.venv`` beside ``pyproject.toml``) - like uv,
  never the interpreter that happens to run tierlock.
* :func:`create`: the project environment, when ``install-tier`` finds it missing.
* :func:`environment_key`: one name per environment whatever spelling reached it
  (``venv/bin/python``, ``venv/bin/python3``, ``venv``, a symlink): receipts
  and the no-op fast path compare it.
* :func:`refuse_unwritable`: site-packages the backend could not write into.
* :func:`armed_conflicts`: packages another armed tier pins that a plan would replace.

This module is imported by the no-op fast path: at module level it needs only
``os`` and ``sys``; everything else is imported where it is used.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence
    from pathlib import Path

    from tierlock.environment import Target
    from tierlock.installer.plan import Plan
    from tierlock.installer.receipts import Receipt
    from tierlock.lockfiles.model import LockEntry
    from tierlock.tiers import Project, Tier

#: Overrides where the project's environment is (absolute, or relative to the project root).
PROJECT_ENV_VAR = "TIERLOCK_PROJECT_ENVIRONMENT"
DEFAULT_VENV = ".venv"


# -- one name per environment --------------------------------------------------------


def _has_cfg(prefix: str) -> bool:
    return os.path.isfile(os.path.join(prefix, "pyvenv.cfg"))


def prefix_of(python: str) -> str | None:
    """The virtual environment *python* belongs to (an interpreter, a script in ``bin/``, or the folder), or None.

    A symlink to a venv's interpreter is followed one link at a time (never to
    the base interpreter the venv's own ``bin/python`` points at).
    """
    path = os.path.abspath(python)
    if os.path.isdir(path):
        return path if _has_cfg(path) else None
    for _ in range(16):
        prefix = os.path.dirname(os.path.dirname(path))
        if _has_cfg(prefix):
            return prefix
        if not os.path.islink(path):
            return None
        path = os.path.join(os.path.dirname(path), os.readlink(path))
    return None


def environment_key(prefix: str | os.PathLike[str]) -> str:
    """The one name of the environment at *prefix*: its real path (symlinks and ``..`` resolved)."""
    return os.path.realpath(os.fspath(prefix))


# -- where -------------------------------------------------------------------------


def _configured_venv(pyproject_text: str) -> str | None:
    """``[tool.tierlock].venv`` read without a TOML parser when the file's text makes that certain, else None."""
    for raw in pyproject_text.splitlines():
        line = raw.strip()
        if line.startswith("venv") and line[4:].lstrip().startswith("="):
            return ""  # a key of that name somewhere: the full path reads it properly
    return None


def project_environment(root: str | os.PathLike[str], configured: str | None) -> str:
    """The project's environment folder: ``$TIERLOCK_PROJECT_ENVIRONMENT``, else *configured*, else ``.venv``."""
    chosen = os.environ.get(PROJECT_ENV_VAR) or configured or DEFAULT_VENV
    return os.path.normpath(os.path.join(os.fspath(root), os.path.expanduser(chosen)))


def quick_project_environment(pyproject: str) -> str | None:
    """:func:`project_environment` for the fast path (no TOML parsing), or None when the full path must decide."""
    root = os.path.dirname(pyproject)
    if not os.environ.get(PROJECT_ENV_VAR):
        try:
            with open(pyproject, encoding="utf-8") as handle:
                if _configured_venv(handle.read()) is not None:
                    return None
        except (OSError, UnicodeDecodeError):
            return None
    folder = project_environment(root, None)
    return folder if _has_cfg(folder) else None


def active_venv() -> str | None:
    """The active virtual environment (``VIRTUAL_ENV``) unless it is the one running tierlock."""
    active = os.environ.get("VIRTUAL_ENV")
    if active and os.path.realpath(active) != os.path.realpath(sys.prefix):
        return active
    return None


def is_running_environment(prefix: str | os.PathLike[str]) -> bool:
    """Whether *prefix* is the environment tierlock itself runs from."""
    return environment_key(prefix) == environment_key(sys.prefix)


class Location:
    """Where a command acts: the ``python`` to hand to :func:`tierlock.environment.resolve`, and why."""

    __slots__ = ("folder", "python", "source")

    def __init__(self, python: str | None, source: str, folder: str | None = None) -> None:
        self.python = python
        """None: the running interpreter (described in-process)."""
        self.source = source
        """``--python``, ``VIRTUAL_ENV`` or ``project``."""
        self.folder = folder
        """The project environment's folder (``project`` only)."""

    @property
    def missing(self) -> bool:
        return self.folder is not None and not _has_cfg(self.folder)


def locate(python: str | None, project: Project) -> Location:
    """``--python``, else the active venv, else the project's environment (see the module docstring)."""
    if python is not None:
        return Location(python, "--python")
    active = os.environ.get("VIRTUAL_ENV")
    if active:  # the running environment itself is described in-process
        return Location(active_venv(), "VIRTUAL_ENV")
    folder = project_environment(project.root, project.venv)
    if is_running_environment(folder):
        return Location(None, "project", folder)  # tierlock runs from the project's own environment
    return Location(folder, "project", folder)


# -- creating the project environment ------------------------------------------------


def _satisfies(version: tuple[int, int, int], requires_python: str | None) -> bool:
    if not requires_python:
        return True
    from packaging.specifiers import InvalidSpecifier, SpecifierSet

    try:
        return SpecifierSet(requires_python).contains(".".join(map(str, version)), prereleases=True)
    except InvalidSpecifier:
        return True


def base_interpreter() -> str:
    """The interpreter this one was made from (a venv's base), for ``python -m venv``."""
    return str(getattr(sys, "_base_executable", None) or sys.executable)


def choose_interpreter(requires_python: str | None) -> str | None:
    """An interpreter satisfying *requires-python*: this one's base, else a ``python3.N`` on PATH (newest first)."""
    import shutil

    if _satisfies((sys.version_info[0], sys.version_info[1], sys.version_info[2]), requires_python):
        return base_interpreter()
    for minor in range(20, 7, -1):
        found = shutil.which(f"python3.{minor}")
        if found and _satisfies((3, minor, 99), requires_python):
            return found
    return None


def create(folder: str, *, project: Project, backend: str, note: Callable[[str], None]) -> None:
    """Create the project environment at *folder* (``uv venv`` with the uv backend, else ``python -m venv``)."""
    from pathlib import Path

    from tierlock import subproc
    from tierlock.errors import BackendError, UsageError
    from tierlock.installer import backends

    shown = project.relpath(Path(folder))
    uv = backends.find_uv() if backend in ("auto", "uv") else None
    if backend == "uv" and uv is None:
        raise BackendError(
            f"the uv backend was requested but uv is not installed; the project environment {shown} "
            "was not created and nothing was installed",
            remedy="pip install uv, or pass --backend pip",
        )
    interpreter = choose_interpreter(project.requires_python)
    if uv is not None:
        request = interpreter or project.requires_python or ""
        argv: list[str] = [str(uv), "venv", folder]
        if request:
            argv += ["--python", request]
        how = "uv venv"
    else:
        if interpreter is None:
            raise UsageError(
                f"no Python satisfying requires-python {project.requires_python!r} was found to create the "
                f"project environment {shown}; nothing was installed",
                file=str(project.pyproject),
                remedy=f"python3.X -m venv {folder} (a Python that satisfies {project.requires_python})",
            )
        argv = [interpreter, "-m", "venv", folder]
        if backends.own_pip_sites():
            argv.insert(3, "--without-pip")  # tierlock's own pip installs into it
        how = "python -m venv"
    result = subproc.run(
        argv,
        what=f"creating the project environment {shown}",
        remedy=f"create it yourself ({'uv venv' if uv else 'python -m venv'} {folder}), then run the same command",
        check=False,
    )
    if result.returncode != 0 or not _has_cfg(folder):
        raise BackendError(
            f"creating the project environment {shown} failed (exit {result.returncode}): {subproc.display(argv)}",
            detail=subproc.redact(result.tail()),
            remedy=f"create it yourself ({how} {folder}), then run the same command",
        )
    note(f"created the project environment {shown} with {how} ({interpreter or project.requires_python or 'python'})")


# -- a site-packages the backend can write into ------------------------------------


def refuse_unwritable(target: Target) -> None:
    """Refuse (exit 2) a target whose site-packages cannot be written, before any backend runs."""
    import tempfile

    from tierlock.errors import UsageError

    for folder in dict.fromkeys((target.purelib, target.platlib)):
        reason = ""
        if not folder.is_dir():
            reason = "does not exist"
        else:
            try:
                with tempfile.TemporaryFile(dir=folder, prefix=".tierlock-write-test-"):
                    pass
            except OSError as exc:
                reason = f"is not writable ({exc.strerror or exc})"
        if reason:
            raise UsageError(
                f"cannot install into {target.prefix}: its site-packages {folder} {reason}; nothing was installed",
                remedy=f"make {folder} writable (or pass --python PATH to an environment you own), "
                "then run the same command",
            )


# -- other armed tiers -------------------------------------------------------------


def armed_conflicts(
    plan: Plan, armed: Mapping[str, Receipt], arming: Sequence[str]
) -> dict[str, list[tuple[str, str, str]]]:
    """Per other armed tier: (package, the version its receipt pins, the version the plan installs)."""
    out: dict[str, list[tuple[str, str, str]]] = {}
    planned = {str(s.name): str(s.entry.version) for s in plan.steps if s.entry.version is not None}
    for tier, receipt in armed.items():
        if tier in arming:
            continue
        for package in receipt.packages:
            name, version = str(package.get("name")), str(package.get("version"))
            new = planned.get(name)
            if new is not None and new != version:
                out.setdefault(tier, []).append((name, version, new))
    return out


def refuse_armed_conflicts(
    conflicts: Mapping[str, Sequence[tuple[str, str, str]]], arming: Sequence[str], *, command: str
) -> None:
    from tierlock.errors import Problem, UsageError

    if not conflicts:
        return
    problems = [
        Problem(f"{name}: {tier} pins {old}, {' '.join(arming)} would install {new}", where=tier)
        for tier, rows in conflicts.items()
        for name, old, new in rows
    ]
    tiers = ", ".join(conflicts)
    packages = ", ".join(sorted({name for rows in conflicts.values() for name, _o, _n in rows}))
    raise UsageError(
        f"arming {', '.join(arming)} would replace {packages} pinned by the armed tier(s) {tiers}, "
        f"which would then no longer be present; nothing was installed",
        tier=next(iter(conflicts)),
        problems=problems,
        remedy=f"{command} --replace-armed (replaces them on purpose; {tiers} is then marked stale), "
        "or lock the tiers consistently (layer one on the other, or align the requirement)",
    )


def refuse_sibling_conflicts(
    chosen: Sequence[tuple[str, Sequence[LockEntry]]], *, command: Callable[[str], str]
) -> None:
    """Refuse (exit 2) tiers asked together whose locks pin a package differently, naming every such package."""
    from tierlock.errors import Problem, UsageError

    first: dict[str, tuple[str, str]] = {}
    rows: list[tuple[str, str, str, str, str]] = []
    for tier, entries in chosen:
        for entry in entries:
            seen = first.setdefault(str(entry.name), (tier, str(entry.version)))
            if seen[1] != str(entry.version):
                rows.append((str(entry.name), seen[0], seen[1], tier, str(entry.version)))
    if not rows:
        return
    a, b = rows[0][1], rows[0][3]
    raise UsageError(
        f"tiers {a} and {b} cannot be armed together: their locks pin {len(rows)} package(s) differently "
        f"({', '.join(r[0] for r in rows)}); nothing was installed",
        tier=b,
        package=rows[0][0],
        problems=[Problem(f"{n}: {t1} pins {v1}, {t2} pins {v2}") for n, t1, v1, t2, v2 in rows],
        remedy=f"{command(a)} (arms {a} alone); to arm both, lock them consistently: "
        f'layer one on the other (layered-on = "{a}" under [tool.tierlock.tiers.{b}]) or align the requirements, '
        f"then tierlock lock {b}",
    )


def mark_stale(prefix: Path, tier: str, *, by: Sequence[str], packages: Sequence[str]) -> None:
    """Record in *tier*'s receipt that arming *by* replaced *packages* it pinned (status shows it)."""
    from tierlock.installer import receipts

    receipt = receipts.load(receipts.receipt_path(prefix, tier))
    if receipt is None:
        return
    document = dict(receipt.data)
    document["stale"] = {"replaced_by": list(by), "packages": sorted(packages)}
    receipts.write(prefix, document)


def stale_reason(receipt: Receipt | None) -> str | None:
    """Why a receipt no longer holds (another tier replaced its packages on purpose), or None."""
    if receipt is None:
        return None
    stale = receipt.data.get("stale")
    if not isinstance(stale, dict):
        return None
    by = ", ".join(str(t) for t in stale.get("replaced_by", ()))
    packages = ", ".join(str(p) for p in stale.get("packages", ()))
    return f"stale: arming {by} replaced {packages}"


# -- helpers of the install, status and remove commands ------------------------------


def install_command(names: Sequence[str], python: str | None, *, system: bool, backend: str | None) -> str:
    """The install-tier command for *names* with the same target options, as a person would type it again."""
    import shlex

    argv = ["install-tier", *names]
    if python is not None:
        argv += ["--python", python]
    if system:
        argv.append("--system")
    if backend is not None:
        argv += ["--backend", backend]
    return shlex.join(argv)


def project_itself_left_out(entries: Sequence[LockEntry], project: Project) -> list[LockEntry]:
    """The entries without the project's own distribution: it is never installed from the index."""
    if project.name is None:
        return list(entries)
    return [e for e in entries if e.name != project.name]


def armed_conflicts_for(
    project: Project, plan: Plan, target: Target, tiers: Sequence[Tier]
) -> dict[str, list[tuple[str, str, str]]]:
    """Packages the plan replaces that another armed tier's receipt pins (unless its current lock pins the new one)."""
    from packaging.utils import canonicalize_name

    from tierlock import lockfiles
    from tierlock.installer import receipts

    arming = {str(t.name) for t in project.with_layers(t.name for t in tiers)}
    found = armed_conflicts(plan, receipts.load_all(target.prefix), sorted(arming))
    out: dict[str, list[tuple[str, str, str]]] = {}
    for other, rows in found.items():
        locked: dict[str, str] = {}
        tier = project.tiers.get(canonicalize_name(other))
        if tier is not None and tier.lockfile.is_file():
            try:
                locked = {str(e.name): str(e.version) for e in lockfiles.load_tier(project, tier).entries}
            except Exception:  # an unreadable lock: its receipt's pins are what counts
                locked = {}
        kept = [(n, old, new) for n, old, new in rows if locked.get(n) != new]
        if kept:
            out[other] = kept
    return out


def resolve_existing(python: str | None, project: Project, tiers: Sequence[str] = ()) -> Target:
    """The target of a command that never creates it (status, remove, probe, admit): located as install-tier
    locates it. A missing project environment is a usage error whose fix arms *tiers* (base when none is
    named) with ``install-tier``, which creates it."""
    from pathlib import Path

    from tierlock import environment
    from tierlock.errors import UsageError
    from tierlock.remedies import install_remedy, layers_of_project

    location = locate(python, project)
    if location.missing and location.folder is not None:
        remedy = install_remedy(tiers, layers_of_project(project)) or "install-tier base"
        raise UsageError(
            f"the project environment {project.relpath(Path(location.folder))} does not exist "
            "(no --python given and no virtual environment active); install-tier creates it",
            remedy=remedy,
        )
    return environment.resolve(location.python)
