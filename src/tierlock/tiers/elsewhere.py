"""Dependencies declared where tierlock does not read them: a project without a ``[project]`` table (PEP 621)
whose dependencies Poetry's own tables, ``setup.cfg``, ``setup.py``, Pipenv's ``Pipfile`` or pip's
``requirements.txt`` (pip-tools' ``requirements.in``) hold.

tierlock reads a tier's dependencies from ``[project]`` and ``[dependency-groups]`` only. Without this check such
a project's base tier read no dependency at all: ``tierlock lock`` wrote an empty lock, ``check`` and ``probe``
said ok, and CI admitted an environment without any of them. A project without ``[project]`` whose
dependencies are its ``[dependency-groups]`` alone (an application, PEP 735) is not refused.
"""

from __future__ import annotations

import os
import re
import shlex
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

#: The step that moves Poetry's tables (or a Pipfile's, or pip's and pip-tools' requirements files) into
#: ``[project]`` and ``[dependency-groups]`` (Poetry 2 reads both), keeping the tool's own data and build backend,
#: without locking.
MIGRATE = "uv tool run migrate-to-uv --skip-lock --keep-current-build-backend --keep-current-data"

#: The requirements files migrate-to-uv reads by default, by what it calls their tool: pip-tools' input first (its
#: ``requirements.txt`` is then the compiled output, not the declaration).
REQUIREMENTS = (("requirements.in", "pip-tools'"), ("requirements.txt", "pip's"))

_INSTALL_REQUIRES = re.compile(rb"\b(?:install_requires|extras_require)\b")


class Elsewhere(NamedTuple):
    """Where the dependencies are declared, and the step that moves them into ``[project]``: a command, or words
    (*command* false)."""

    where: str
    step: str
    command: bool

    def remedy(self, then: str, root: Path) -> str:
        """The fix: the step (given the project's folder *root* when it is not the working folder: the step acts on
        the working folder by default), then *then* (the command that reads the project again)."""
        if not self.command:
            return f"{self.step}, then run: {then}"
        try:
            where = os.path.relpath(root)
        except (OSError, ValueError):  # no working folder (removed), or another drive
            where = str(root)
        step = self.step if where == os.curdir else f"{self.step} {shlex.quote(where)}"
        return f"{step} && {then}"


def poetry(data: Mapping[str, Any]) -> Elsewhere | None:
    """Dependencies in ``[tool.poetry.dependencies]`` (besides ``python``) or ``[tool.poetry.extras]`` of a
    document without ``[project]`` (pure)."""
    if "project" in data:
        return None
    tool = data.get("tool")
    table = tool.get("poetry") if isinstance(tool, dict) else None
    if not isinstance(table, dict):
        return None
    dependencies = table.get("dependencies")
    named = [k for k in dependencies if str(k).lower() != "python"] if isinstance(dependencies, dict) else []
    if not named and not table.get("extras"):
        return None
    return Elsewhere("[tool.poetry.dependencies] (Poetry's own tables)", MIGRATE, command=True)


def setuptools(root: Path, data: Mapping[str, Any]) -> Elsewhere | None:
    """``install_requires``/``extras_require`` in ``setup.cfg`` or ``setup.py``, or a ``Pipfile``, beside a
    pyproject.toml without ``[project]`` (read by ``init`` only: the other commands read pyproject.toml)."""
    if "project" in data:
        return None
    if (root / "Pipfile").is_file():
        return Elsewhere("Pipfile (Pipenv's)", MIGRATE, command=True)
    for name in ("setup.cfg", "setup.py"):
        try:
            text = (root / name).read_bytes()
        except OSError:
            continue
        if _INSTALL_REQUIRES.search(text):
            step = "move them into [project] (PEP 621: dependencies, optional-dependencies)"
            return Elsewhere(f"{name} (install_requires)", step, command=False)
    return None


def requirements(root: Path, data: Mapping[str, Any] | None) -> Elsewhere | None:
    """A ``requirements.in`` or ``requirements.txt`` naming a requirement in *root*, beside a pyproject.toml
    without ``[project]`` or ``[dependency-groups]`` (*data*), or with no pyproject.toml at all (*data* None): an
    application pip installs with ``-r``, whose base tier would read nothing. Read by ``init`` only; a project
    whose tiers come from ``[dependency-groups]`` may keep a requirements file for anything."""
    if data is not None and ("project" in data or "dependency-groups" in data):
        return None
    for name, tool in REQUIREMENTS:
        try:
            text = (root / name).read_bytes()
        except OSError:
            continue
        if any(_names_a_requirement(line) for line in text.splitlines()):
            return Elsewhere(f"{name} ({tool})", MIGRATE, command=True)
    return None


def _names_a_requirement(line: bytes) -> bool:
    """Whether a requirements file's line names something to install: not blank, not a comment, not an option
    line (``--hash``, ``-c``, ``--index-url``) other than another requirements file or an editable (``-r``,
    ``-e``: migrate-to-uv follows both)."""
    text = line.split(b" #", 1)[0].strip()
    if not text or text.startswith(b"#"):
        return False
    return not text.startswith(b"-") or text.startswith((b"-r", b"--requirement", b"-e", b"--editable"))


def message(found: Elsewhere, *, pyproject: bool = True) -> str:
    """Why the project's tiers would read none of its dependencies (*pyproject* false: there is no
    pyproject.toml at all)."""
    start = "this project has no [project] table" if pyproject else "this folder has no pyproject.toml"
    return (
        f"{start} and declares its dependencies in {found.where}, which tierlock does "
        "not read: a tier's dependencies come from [project] (PEP 621) and [dependency-groups] (PEP 735), so its "
        "base tier would lock and check none of them"
    )
