"""A venv and the interpreter it was made from: why a venv has no interpreter, and the command that makes it again.

(:mod:`tierlock.environment` says so when a target's interpreter is missing; :mod:`tierlock.installer.location`
finds the base interpreter of a venv.)
"""

from __future__ import annotations

import os
from pathlib import Path


def why_none(exe: Path) -> str:
    """Why there is no interpreter at *exe* when its environment is still there."""
    prefix = os.path.dirname(os.path.dirname(os.path.abspath(exe)))
    if os.path.isfile(os.path.join(prefix, "pyvenv.cfg")):
        return f": the environment {prefix} has a pyvenv.cfg, but its interpreter is gone"
    return ""


def remedy_for_none(exe: Path) -> str:
    """Recreate the interpreter of a venv that lost it (its packages stay), else name one."""
    prefix = os.path.dirname(os.path.dirname(os.path.abspath(exe)))
    base = base_of(prefix)
    if base is None:
        return "pass --python PATH to a python executable"
    import shlex

    return shlex.join([base, "-m", "venv", "--without-pip", prefix]) + " (recreates its interpreter; its packages stay)"


def base_of(prefix: str | os.PathLike[str]) -> str | None:
    """The interpreter a venv at *prefix* was made from (``home`` and ``version`` in its ``pyvenv.cfg``), when
    that interpreter is still there; None otherwise."""
    values: dict[str, str] = {}
    try:
        with open(os.path.join(prefix, "pyvenv.cfg"), encoding="utf-8") as handle:
            for line in handle:
                key, sep, value = line.partition("=")
                if sep:
                    values[key.strip().lower()] = value.strip()
    except (OSError, UnicodeDecodeError):
        return None
    home = values.get("home", "")
    version = values.get("version_info") or values.get("version") or ""
    names = [f"python{'.'.join(version.split('.')[:2])}"] if version else []
    for name in [*names, "python3"]:
        candidate = os.path.join(home, name)
        if home and os.access(candidate, os.X_OK):
            return candidate
    return None
