"""The uv workspace a project is a member of: the folder whose ``uv.lock`` holds the member's closures.

uv locks a whole workspace in one ``uv.lock`` at its root; a member has none of
its own. As uv finds a member's workspace, the root is the nearest folder above
the member whose ``pyproject.toml`` has ``[tool.uv.workspace]`` with ``members``
globs that match the member's folder (and no ``exclude`` glob does). Read only
when a member's ``[tool.tierlock].lock`` names a lock above it, or by ``init``.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from tierlock import fsutil


def workspace_root(member: Path) -> Path | None:
    """The root of the uv workspace *member* (a project folder) belongs to, or None (not a member of any)."""
    here = member.resolve()
    for folder in here.parents:
        data = _pyproject(folder)
        if data is None:
            continue
        workspace = _workspace(data)
        if workspace is None:
            continue
        return folder if _matches(folder, here, workspace) else None  # the nearest workspace decides, as in uv
    return None


def lock_of(member: Path) -> Path | None:
    """The ``uv.lock`` of *member*'s workspace when it is there, or None."""
    root = workspace_root(member)
    if root is None or not (root / "uv.lock").is_file():
        return None
    return root / "uv.lock"


def relative(member: Path, lock: Path) -> str:
    """*lock* as ``[tool.tierlock].lock`` names it from *member*: ``../../uv.lock``."""
    return Path(os.path.relpath(lock.resolve(), member.resolve())).as_posix()


def _pyproject(folder: Path) -> Mapping[str, Any] | None:
    path = folder / "pyproject.toml"
    if not path.is_file():
        return None
    try:
        return tomllib.loads(fsutil.read_text(path))  # a FIFO is refused
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return None


def _workspace(data: Mapping[str, Any]) -> Mapping[str, Any] | None:
    tool = data.get("tool")
    uv = tool.get("uv") if isinstance(tool, Mapping) else None
    workspace = uv.get("workspace") if isinstance(uv, Mapping) else None
    return workspace if isinstance(workspace, Mapping) else None


def _matches(root: Path, member: Path, workspace: Mapping[str, Any]) -> bool:
    """Whether *member* is one of the folders the workspace's ``members`` globs give, and no ``exclude`` glob."""

    def globbed(key: str) -> set[Path]:
        patterns = workspace.get(key)
        out: set[Path] = set()
        for pattern in patterns if isinstance(patterns, list) else []:
            if not isinstance(pattern, str) or not pattern.strip():
                continue
            try:
                out.update(p.resolve() for p in root.glob(pattern))
            except (NotImplementedError, ValueError, OSError):  # an absolute or malformed glob matches nothing
                continue
        return out

    return member in globbed("members") and member not in globbed("exclude")
