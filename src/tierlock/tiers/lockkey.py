"""``[tool.tierlock].lock``: the lock the project already commits, read by tierlock and never written.

``lock = "uv.lock"`` (or a PEP 751 ``pylock.toml`` / ``pylock.<name>.toml``
another tool writes) makes every tier take its closure from that file instead
of tierlock's own lockfiles; drift is then that tool's drift (``uv lock``
fixes it). With ``uv.lock``, uv's declared conflicts between the project's
extras and groups (``[tool.uv].conflicts``) are conflicts between their tiers.

Also read here: whether the project is a *package* (uv builds and installs
it into its environment): it has a ``[build-system]``, unless
``[tool.uv].package`` says otherwise.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Protocol

from packaging.utils import NormalizedName, canonicalize_name

from tierlock.frozen import Frozen
from tierlock.tiers.workspace import workspace_root

KEY = "lock"
#: What ``lock`` may name: uv's lockfile, or a PEP 751 file name (``pylock.toml``, ``pylock.<name>.toml``).
#: The lock file names ``lock`` accepts (compiled at first use: most projects set no ``lock``).
_NAME = r"^(uv\.lock|pylock\.toml|pylock\.[^./\\]+\.toml)$"
#: Keys of [tool.tierlock] that describe tierlock's own lockfiles (meaningless with ``lock``).
OWN_LOCKFILE_KEYS = ("lock-dir", "format")


class _Problems(Protocol):
    def problem(
        self, message: str, table: str, key: str | None = None, index: int | None = None, hint: str | None = None
    ) -> None: ...


class LockSetting(Frozen):
    """The ``lock`` key of ``[tool.tierlock]``, with what the project's own lock needs of ``[project]``."""

    _fields = ("path", "package", "version")

    path: Path | None
    """The project's own lock (absolute), or None: tierlock's lockfiles."""
    package: bool
    """Whether the project is a package (installed from its tree into its environment)."""
    version: str | None
    """The project's static ``[project].version`` (None when dynamic or missing)."""

    def __init__(self, path: Path | None, package: bool, version: str | None = None) -> None:
        self._init(path, package, version)


def read(r: _Problems, data: Mapping[str, Any], table: Mapping[str, Any], root: Path) -> LockSetting:
    """The ``lock`` key of the ``[tool.tierlock]`` *table*, validated (problems go to *r*)."""
    project = data.get("project")
    version = project.get("version") if isinstance(project, Mapping) else None
    return LockSetting(_path(r, table, root), is_package(data), version if isinstance(version, str) else None)


def _path(r: _Problems, table: Mapping[str, Any], root: Path) -> Path | None:
    raw = table.get(KEY)
    if raw is None:
        return None
    if not isinstance(raw, str) or not raw.strip():
        r.problem(
            'must be a path such as "uv.lock" or "pylock.toml" (relative to the project root)', "tool.tierlock", KEY
        )
        return None
    if Path(raw).is_absolute() or raw.startswith(("/", "\\")):
        r.problem(f"must be a path inside the project, relative to its root, not {raw!r}", "tool.tierlock", KEY)
        return None
    if ".." in Path(raw).parts and not _workspace_lock(root, raw):
        r.problem(
            f"must be a path inside the project, relative to its root, or the uv.lock of the uv workspace the project "
            f"is a member of, not {raw!r}",
            "tool.tierlock",
            KEY,
        )
        return None
    if not re.match(_NAME, Path(raw).name):
        r.problem(
            f"must name uv.lock or a PEP 751 lock (pylock.toml, pylock.NAME.toml), not {Path(raw).name!r}",
            "tool.tierlock",
            KEY,
            hint='lock = "uv.lock"',
        )
        return None
    for other in OWN_LOCKFILE_KEYS:
        if other in table:
            r.problem(
                f"{other} describes tierlock's own lockfiles, which a project with lock = {raw!r} does not use",
                "tool.tierlock",
                other,
                hint=f"remove {other}",
            )
    return root / raw


def _workspace_lock(root: Path, raw: str) -> bool:
    """Whether *raw* names the ``uv.lock`` at the root of the uv workspace the project at *root* is a member of (uv
    locks a whole workspace in that one file)."""
    if Path(raw).name != "uv.lock":
        return False
    above = workspace_root(root)
    return above is not None and Path(os.path.normpath(root.resolve() / raw)).parent == above


def is_package(data: Mapping[str, Any]) -> bool:
    """Whether uv would build and install the project itself: ``[tool.uv].package``, else a ``[build-system]``."""
    tool = data.get("tool")
    uv = tool.get("uv") if isinstance(tool, Mapping) else None
    if isinstance(uv, Mapping) and isinstance(uv.get("package"), bool):
        return bool(uv["package"])
    return isinstance(data.get("build-system"), Mapping)


def uv_conflicts(
    data: Mapping[str, Any], project: NormalizedName | None, sources: Mapping[NormalizedName, str]
) -> tuple[frozenset[NormalizedName], ...]:
    """``[tool.uv].conflicts`` of the project's own extras and groups, as sets of the tiers they are.

    *sources* maps each tier to its source (``extra:NAME``, ``group:NAME``). A
    conflict item that names another package, or an extra or group no tier is,
    is left out (it cannot bring two tiers together).
    """
    tool = data.get("tool")
    uv = tool.get("uv") if isinstance(tool, Mapping) else None
    raw = uv.get("conflicts") if isinstance(uv, Mapping) else None
    tier_of = {source: tier for tier, source in sources.items()}
    out: list[frozenset[NormalizedName]] = []
    for group in raw if isinstance(raw, list) else []:
        tiers: set[NormalizedName] = set()
        for item in group if isinstance(group, list) else []:
            if not isinstance(item, Mapping):
                continue
            package = item.get("package")
            if isinstance(package, str) and project is not None and canonicalize_name(package) != project:
                continue
            for kind in ("extra", "group"):
                name = item.get(kind)
                tier = tier_of.get(f"{kind}:{canonicalize_name(name)}") if isinstance(name, str) else None
                if tier is not None:
                    tiers.add(tier)
        if len(tiers) >= 2:
            out.append(frozenset(tiers))
    return tuple(out)
