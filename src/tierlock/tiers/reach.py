"""Requirements no index serves: workspace members, path, git and URL sources (what a tier lock cannot reach).

``tierlock lock`` resolves every tier from package indexes (``uv pip compile``,
``pip-compile``), which do not read ``[tool.uv.sources]`` nor know a
workspace's members. A tier whose roots name such a package cannot be locked
as declared. :func:`local_packages` is pure over the parsed pyproject (plus
the members' own names, read by :func:`workspace_members`);
:func:`unlockable` answers for one tier.
"""

from __future__ import annotations

import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from packaging.requirements import Requirement
from packaging.utils import NormalizedName, canonicalize_name

from tierlock import fsutil
from tierlock.tiers.model import Project, Tier


@dataclass(frozen=True)
class Unlockable:
    package: str
    reason: str
    """``it reaches lib-a, a workspace member (packages/lib-a)``."""
    remedy: str


def local_packages(data: Mapping[str, Any], members: Mapping[NormalizedName, str] | None = None) -> dict[str, str]:
    """Package name -> what it is, for every package the project gets from somewhere other than an index."""
    out: dict[str, str] = {}
    for name, where in (members or {}).items():
        out[name] = f"a workspace member ({where})"
    tool = data.get("tool")
    uv = tool.get("uv") if isinstance(tool, Mapping) else None
    sources = uv.get("sources") if isinstance(uv, Mapping) else None
    if isinstance(sources, Mapping):
        for raw, source in sources.items():
            name = canonicalize_name(raw)
            for item in source if isinstance(source, list) else [source]:
                if not isinstance(item, Mapping):
                    continue
                if item.get("workspace") is True:
                    out.setdefault(name, "a workspace member ([tool.uv.sources])")
                elif "path" in item:
                    out.setdefault(name, f"a local path ({item['path']}, [tool.uv.sources])")
                elif "git" in item:
                    out.setdefault(name, f"a git source ({item['git']}, [tool.uv.sources])")
                elif "url" in item:
                    out.setdefault(name, "a URL source ([tool.uv.sources])")
    return out


def workspace_members(root: Path, data: Mapping[str, Any]) -> dict[NormalizedName, str]:
    """The project names of ``[tool.uv.workspace].members`` (globs), read from their pyproject.toml files."""
    tool = data.get("tool")
    uv = tool.get("uv") if isinstance(tool, Mapping) else None
    workspace = uv.get("workspace") if isinstance(uv, Mapping) else None
    globs = workspace.get("members") if isinstance(workspace, Mapping) else None
    excluded = workspace.get("exclude") if isinstance(workspace, Mapping) else None
    out: dict[NormalizedName, str] = {}
    if not isinstance(globs, list):
        return out
    skip = {p.resolve() for g in (excluded or []) if isinstance(g, str) for p in root.glob(g)}
    for pattern in globs:
        if not isinstance(pattern, str):
            continue
        for folder in sorted(root.glob(pattern)):
            if folder.resolve() in skip or folder.resolve() == root.resolve():
                continue
            try:
                member = tomllib.loads(fsutil.read_text(folder / "pyproject.toml"))  # a FIFO is refused
            except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
                continue
            name = member.get("project", {}).get("name") if isinstance(member.get("project"), dict) else None
            if isinstance(name, str):
                out[canonicalize_name(name)] = folder.relative_to(root).as_posix()
    return out


def reached(requirements: Iterable[Requirement], local: Mapping[str, str]) -> tuple[str, str] | None:
    """The first requirement no index serves: (its name, what it is), else None."""
    for req in requirements:
        name = canonicalize_name(req.name)
        if name in local:
            return name, local[name]
        if req.url and (req.url.startswith("file:") or "+" in req.url.split(":", 1)[0]):
            return name, f"a direct reference ({req.url.split(':', 1)[0]} URL)"
    return None


def project_local(project: Project) -> dict[str, str]:
    """:func:`local_packages` of *project*, read from its pyproject.toml and workspace members."""
    try:
        data = tomllib.loads(project.pyproject.read_text(encoding="utf-8-sig"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return {}
    return local_packages(data, workspace_members(project.root, data))


def unlockable(project: Project, tier: Tier, local: Mapping[str, str] | None = None) -> Unlockable | None:
    """Why *tier* cannot be locked from an index, when one of its roots (or its layers') is local-only."""
    local = project_local(project) if local is None else local
    found = reached(project.closure_requirements(tier.name), local)
    if found is None:
        return None
    name, what = found
    owner = next((t for t in project.chain(tier.name) if reached(t.requirements, {name: what})), tier)
    source = owner.source.replace("extra:", "the extra ").replace("group:", "the dependency group ")
    if owner.is_base:
        source = "[project].dependencies"
    return Unlockable(
        name,
        f"it reaches {name}, {what}, which no package index serves",
        f"remove {name} from {source} in pyproject.toml"
        + ("" if owner.is_base else f", or remove [tool.tierlock.tiers.{owner.name}]")
        + " (tiers lock from package indexes only), then run: tierlock lock",
    )
