"""The environment verify's commands run in, activated the way ``uv run`` activates it.

The target is the active virtual environment (``VIRTUAL_ENV``) when there is one, else the
project's own environment (``$TIERLOCK_PROJECT_ENVIRONMENT``, else ``$UV_PROJECT_ENVIRONMENT``, else
``[tool.tierlock].venv``, else ``.venv`` beside ``pyproject.toml``), as ``install-tier`` chooses it. Each command
starts with the target activated when the target exists at that moment: its ``bin`` folder
first on ``PATH``, ``VIRTUAL_ENV`` set to it, ``PYTHONHOME`` unset. So a setup that creates
or arms the environment arms every later command with it, and ``pytest`` in a check is the
environment's pytest, never one found elsewhere on the inherited ``PATH``. A command's own
``env`` in the config still wins over the activation.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tierlock.installer.location import project_environment

BIN = "Scripts" if os.name == "nt" else "bin"


@dataclass(frozen=True)
class Target:
    """The environment the run's commands get, and where that choice came from."""

    path: Path
    source: str
    """``VIRTUAL_ENV`` (the active environment) or ``project`` (the project's own)."""
    existed_at_start: bool

    @property
    def bin(self) -> Path:
        return self.path / BIN

    def exists(self) -> bool:
        """Whether the environment is there now (a setup may have just made it)."""
        return self.bin.is_dir()

    def to_dict(self, activated: bool) -> dict[str, Any]:
        return {
            "path": str(self.path),
            "source": self.source,
            "existedAtStart": self.existed_at_start,
            "activated": activated,
        }


def _configured_venv(project_root: Path) -> str | None:
    """``[tool.tierlock].venv`` of the project's pyproject.toml, or None."""
    pyproject = project_root / "pyproject.toml"
    if not pyproject.is_file():
        return None

    try:
        data = tomllib.loads(pyproject.read_text(encoding="utf-8-sig"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError, ValueError, RecursionError):
        return None
    tool = data.get("tool")
    table = tool.get("tierlock") if isinstance(tool, dict) else None
    venv = table.get("venv") if isinstance(table, dict) else None
    return venv if isinstance(venv, str) and venv.strip() else None


def locate(project_root: Path, environ: Mapping[str, str] | None = None) -> Target:
    """The target environment for a project at *project_root* (see the module docstring)."""

    environ = os.environ if environ is None else environ
    active = environ.get("VIRTUAL_ENV")
    if active:
        path, source = Path(os.path.abspath(active)), "VIRTUAL_ENV"
    else:
        path, source = Path(project_environment(project_root, _configured_venv(project_root))), "project"
    return Target(path, source, (path / BIN).is_dir())


def activated(base: Mapping[str, str], target: Target) -> tuple[dict[str, str], bool]:
    """(*base* with *target* activated when it exists, whether it was): bin first on PATH, VIRTUAL_ENV set."""
    env = dict(base)
    if not target.exists():
        return env, False
    path = env.get("PATH", os.defpath)
    env["PATH"] = os.pathsep.join([str(target.bin), path]) if path else str(target.bin)
    env["VIRTUAL_ENV"] = str(target.path)
    env.pop("PYTHONHOME", None)
    return env, True


def project_root(config_dir: Path, top: Path) -> Path:
    """The project a config belongs to: the nearest folder from *config_dir* up to the checkout *top* that
    holds a pyproject.toml, else *config_dir*."""
    folder, stop = config_dir.resolve(), top.resolve()
    for candidate in (folder, *folder.parents):
        if (candidate / "pyproject.toml").is_file():
            return candidate
        if candidate == stop:
            break
    return folder
