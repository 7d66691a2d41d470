"""Which environment tierlock acts on, under one name, and whether it is whole.

* :func:`locate`: ``--python``, else the active virtual environment, else the
  project's own environment (``$TIERLOCK_PROJECT_ENVIRONMENT``, else uv's
  ``$UV_PROJECT_ENVIRONMENT``, else ``[tool.tierlock].venv``, else ``.venv``
  beside ``pyproject.toml``) - like uv, never the interpreter that happens to
  run tierlock.
* :func:`prefix_of` and :func:`environment_key`: the environment an
  interpreter path runs in, decided as Python decides it (a ``pyvenv.cfg``
  beside the path it is started from, or one folder up, symlinks not followed
  first), and its one name whatever spelling reached it: the no-op fast path,
  the receipts, the plan, probe, status and admit agree on it.
* :func:`incomplete`: a project environment that cannot be used and cannot be
  created over either (a dangling symlink, no ``pyvenv.cfg``, no interpreter,
  no site-packages: what a killed ``uv venv`` or ``python -m venv`` leaves), and
  :func:`recreate_command`, the command that makes it whole.
* :func:`resolve_existing`: the target of a command that never creates it.

The no-op fast path imports this module: at module level it needs only ``os``
and ``sys``; everything else is imported where it is used.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

    from tierlock.environment import Target
    from tierlock.tiers import Project

#: Overrides where the project's environment is (absolute, or relative to the project root).
PROJECT_ENV_VAR = "TIERLOCK_PROJECT_ENVIRONMENT"
#: Where uv puts a project's environment (``uv sync``, ``uv run``): the project environment when tierlock's own
#: variable is not set (a CI image that sets it has its tiers armed where uv syncs and runs the tests).
UV_ENV_VAR = "UV_PROJECT_ENVIRONMENT"
DEFAULT_VENV = ".venv"
#: An environment's interpreter, relative to its folder.
OWN_PYTHON = os.path.join("Scripts", "python.exe") if os.name == "nt" else os.path.join("bin", "python")


# -- one name per environment --------------------------------------------------------


def _has_cfg(prefix: str) -> bool:
    return os.path.isfile(os.path.join(prefix, "pyvenv.cfg"))


def prefix_of(python: str) -> str | None:
    """The virtual environment the interpreter at *python* runs in (or the folder, or a script in ``bin/``
    names), or None for an interpreter that is no venv's.

    Python looks for ``pyvenv.cfg`` beside the path it was started from and one
    folder up, before following any symlink: a link elsewhere to a venv's
    ``bin/python`` runs as the base interpreter (``sys.prefix`` is the base's),
    and uv and pip act on that base. So does tierlock.
    """
    path = os.path.abspath(python)
    if os.path.isdir(path):
        return path if _has_cfg(path) else None
    folder = os.path.dirname(path)
    for candidate in (folder, os.path.dirname(folder)):
        if _has_cfg(candidate):
            return candidate
    return None


def environment_key(prefix: str | os.PathLike[str]) -> str:
    """The one name of the environment at *prefix*: its real path (symlinks and ``..`` resolved)."""
    return os.path.realpath(os.fspath(prefix))


def machine_of(python: str) -> list[int] | None:
    """The ELF class, byte order and machine of the interpreter *python* (links followed; None: no ELF file): a venv
    shared with a host of another machine names another file there, whose installed extensions this one refuses."""
    try:
        with open(os.path.realpath(python), "rb", buffering=0) as fh:
            head = fh.read(20)
    except (OSError, ValueError):
        return None
    if len(head) < 20 or head[:4] != b"\x7fELF":
        return None
    return [head[4], head[5], int.from_bytes(head[18:20], "little" if head[5] == 1 else "big")]


def linked_venv_python(python: str | os.PathLike[str]) -> str | None:
    """The venv interpreter the symlink *python* leads to, one link at a time, when the link itself runs outside
    that venv (see :func:`prefix_of`); None otherwise."""
    path = os.path.abspath(python)
    if prefix_of(path) is not None:
        return None
    for _ in range(16):
        if not os.path.islink(path):
            return None
        path = os.path.normpath(os.path.join(os.path.dirname(path), os.readlink(path)))
        if _has_cfg(os.path.dirname(os.path.dirname(path))):
            return path
    return None


# -- where -------------------------------------------------------------------------


def _configured_venv(pyproject_text: str) -> str | None:
    """``[tool.tierlock].venv`` read without a TOML parser when the file's text makes that certain, else None."""
    for raw in pyproject_text.splitlines():
        line = raw.strip()
        if line.startswith("venv") and line[4:].lstrip().startswith("="):
            return ""  # a key of that name somewhere: the full path reads it properly
    return None


def project_environment(root: str | os.PathLike[str], configured: str | None) -> str:
    """The project's environment folder: ``$TIERLOCK_PROJECT_ENVIRONMENT``, else ``$UV_PROJECT_ENVIRONMENT`` (where
    uv syncs it), else *configured*, else ``.venv``; relative to *root*, as uv reads its variable."""
    chosen = os.environ.get(PROJECT_ENV_VAR) or os.environ.get(UV_ENV_VAR) or configured or DEFAULT_VENV
    return os.path.normpath(os.path.join(os.fspath(root), os.path.expanduser(chosen)))


def quick_project_environment(pyproject: str) -> str | None:
    """:func:`project_environment` for the fast path (no TOML parsing), or None when the full path must decide."""
    root = os.path.dirname(pyproject)
    if not (os.environ.get(PROJECT_ENV_VAR) or os.environ.get(UV_ENV_VAR)):
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

    __slots__ = ("folder", "problem", "python", "source")

    def __init__(self, python: str | None, source: str, folder: str | None = None) -> None:
        self.python = python
        """None: the running interpreter (described in-process)."""
        self.source = source
        """``--python``, ``VIRTUAL_ENV`` or ``project``."""
        self.folder = folder
        """The project environment's folder (``project`` only)."""
        self.problem = incomplete(folder) if folder is not None else None
        """What makes the project environment unusable (:func:`incomplete`), or None."""

    @property
    def missing(self) -> bool:
        """The project environment is not there yet (or is an empty folder): ``install-tier`` creates it."""
        return self.folder is not None and self.problem is None and not _has_cfg(self.folder)


def locate(python: str | None, project: Project) -> Location:
    """``--python``, else the active venv, else the project's environment (see the module docstring)."""
    if python is not None:
        return Location(python, "--python")
    active = os.environ.get("VIRTUAL_ENV")
    folder = project_environment(project.root, project.venv)
    if active and (os.path.lexists(active) or environment_key(active) != environment_key(folder)):
        return Location(active_venv(), "VIRTUAL_ENV")  # (the running environment itself is described in-process)
    # (an active venv that is the project's own, removed while it was active - `rm -rf .venv` before making it
    # again - is the project environment, which install-tier creates: not "no interpreter" with no command)
    if is_running_environment(folder):
        return Location(None, "project", folder)  # tierlock runs from the project's own environment
    return Location(folder, "project", folder)


# -- whole or not ----------------------------------------------------------------------


def incomplete(folder: str) -> str | None:
    """What makes the environment folder *folder* unusable, in words that follow its name; None when it is a
    whole virtual environment, or not there at all, or an empty folder (both of which can be created)."""
    if os.path.islink(folder) and not os.path.exists(folder):
        target = os.path.normpath(os.path.join(os.path.dirname(folder), os.readlink(folder)))
        return f"is a symlink to {target}, which does not exist"
    if not os.path.lexists(folder):
        return None
    if not os.path.isdir(folder):
        return "is not a folder"
    if not _has_cfg(folder):
        if not os.listdir(folder):
            return None
        return "has no pyvenv.cfg (its creation was interrupted, or it is not a virtual environment)"
    if not os.path.exists(os.path.join(folder, OWN_PYTHON)):
        return f"has no interpreter ({OWN_PYTHON} is missing: its creation was interrupted, or it was deleted)"
    if not _has_site(folder):
        return "has no site-packages folder (its creation was interrupted)"
    return None


def _has_site(folder: str) -> bool:
    if os.name == "nt":
        return os.path.isdir(os.path.join(folder, "Lib", "site-packages"))
    lib = os.path.join(folder, "lib")
    try:
        names = os.listdir(lib)
    except OSError:
        return False
    return any(os.path.isdir(os.path.join(lib, name, "site-packages")) for name in names)


def recreate_command(folder: str) -> str:
    """The command that makes the environment at *folder* whole again: ``python -m venv`` over it with the
    interpreter its ``pyvenv.cfg`` names (what it holds stays), else deleting it (``install-tier`` then
    creates it afresh)."""
    import shlex

    from tierlock.environment import base_of

    base = base_of(folder) if _has_cfg(folder) else None
    if base is not None:
        return shlex.join([base, "-m", "venv", "--without-pip", folder])
    return shlex.join(["rm", "-rf", folder])


def resolve_existing(python: str | None, project: Project, tiers: Sequence[str] = ()) -> Target:
    """The target of a command that never creates it (status, remove, probe, admit): located as install-tier
    locates it. A missing or incomplete project environment is a usage error whose fix arms *tiers* (base when
    none is named) with ``install-tier``, which creates it."""
    from pathlib import Path

    from tierlock import environment
    from tierlock.errors import UsageError
    from tierlock.remedies import install_remedy, layers_of_project

    location = locate(python, project)
    if location.folder is not None and (location.missing or location.problem is not None):
        arm = install_remedy(tiers, layers_of_project(project), exclusive=project.exclusive) or "install-tier base"
        shown = project.relpath(Path(location.folder))
        if location.problem is not None:
            raise UsageError(
                f"the project environment {shown} {location.problem}",
                remedy=f"{recreate_command(location.folder)} && {arm}",
            )
        active = os.environ.get("VIRTUAL_ENV")
        how = "it was the active virtual environment" if active else "no virtual environment active"
        raise UsageError(
            f"the project environment {shown} does not exist (no --python given and {how}); install-tier creates it",
            remedy=arm,
        )
    return environment.resolve(location.python)
