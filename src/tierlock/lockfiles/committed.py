"""The offline check of a lock the project commits (``[tool.tierlock].lock``): its drift is its tool's drift.

Every tier reads its part of the one file: what cannot be read is reported
once, on the first tier it concerns. For uv.lock, what pyproject.toml declares
differently from what the lock was made from (:mod:`tierlock.lockfiles.uvdrift`)
is ``input-drift`` of the tier it concerns (the base tier for what concerns
every tier, or no tier), with ``uv lock`` as the remedy; a check of some tiers
leaves out what only concerns the others. tierlock never writes the file.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name

from tierlock import fsutil, projectparts
from tierlock.lockfiles.fileread import ReadResult
from tierlock.lockfiles.sources import remedy as remedy_of

if TYPE_CHECKING:
    from tierlock.lockfiles.findings import Finding, Report
    from tierlock.lockfiles.uvdrift import Member
    from tierlock.tiers import Project, Tier


def findings(project: Project, tiers: Sequence[Tier], locks: Mapping[str, ReadResult | None]) -> Report:
    """Every problem of *tiers* given their parts of the project's lock (*locks*, None: the file is missing)."""
    from tierlock.lockfiles.findings import Finding, Report

    assert project.lock is not None
    file = project.relpath(project.lock)
    remedy = remedy_of(project)
    out: list[Finding] = []
    seen: set[tuple[str, int | None, str]] = set()
    entries: set[tuple[str, str]] = set()
    names: set[str] = set()
    for tier in tiers:
        result = locks.get(tier.name)
        if result is None:
            detail = f"no {file} ([tool.tierlock].lock names it), so tier {tier.name} has no closure"
            out.append(Finding(tier.name, "missing", file, None, detail, remedy))
            continue
        entries.update((e.name, str(e.version)) for e in result.lock.entries)
        names.update(e.name for e in result.lock.entries)
        for problem in result.problems:
            key = (problem.kind, problem.line, problem.detail)
            if key not in seen:
                seen.add(key)
                fix = problem.remedy or remedy
                out.append(Finding(tier.name, problem.kind, file, problem.line, problem.detail, fix))
    if project.lock.name == "uv.lock" and any(locks.get(t.name) for t in tiers):
        out.extend(uv_drift(project, tiers, remedy))
    read = 1 if any(locks.get(t.name) for t in tiers) else 0
    return Report(tuple(out), tuple(t.name for t in tiers), read, len(names), len(entries))


def uv_drift(project: Project, tiers: Sequence[Tier], remedy: str) -> list[Finding]:
    """uv.lock's drift from pyproject.toml, as findings of the checked tiers it concerns."""
    from tierlock.lockfiles import uvdrift, uvread
    from tierlock.lockfiles.findings import Finding
    from tierlock.tiers.model import BASE

    assert project.lock is not None
    data = fsutil.read_bytes(project.lock)  # the safe reader, as every lockfile's
    from tierlock.lockfiles.digest import sha256_hex

    lock = uvread.parsed(project.lock, fsutil.utf8_text(data, "replace"), sha256_hex(data))
    if lock.version != 1:
        return []  # another schema: read through uv, which judges its own lock
    members = _workspace(project)
    file = project.relpath(project.lock)
    out: list[Finding] = []
    every = {t.name for t in tiers} == set(project.tiers)
    reads: dict[str, set[str]] | None = None  # read once, when a change is some extra's or group's
    for change in uvdrift.drift(lock, members, str(project.name or "")):
        if change.source in (None, "project.dependencies"):
            concerned = [BASE]
        else:  # the tiers whose declaration reads the changed one (itself, or through `project[extra]`)
            if reads is None:
                reads = sources_read(projectparts.read(project.pyproject), str(project.name or ""))
            concerned = [t.name for t in tiers if change.source in reads.get(t.source, {t.source})]
        if not concerned and every:
            concerned = [BASE]  # an extra or group that no tier reads: the lock as a whole is out of date
        detail = f"{file} is out of date for pyproject.toml: {change.detail}"
        checked = {t.name for t in tiers}  # another tier's declaration: the tiers checked still read theirs
        out.extend(Finding(t, "input-drift", file, change.line, detail, remedy) for t in concerned if t in checked)
    return out


def sources_read(data: Mapping[str, Any], name: str) -> dict[str, set[str]]:
    """Each declaration (``project.dependencies``, ``extra:NAME``, ``group:NAME``) -> the declarations it reads:
    itself, each extra it names the project with (``proj[cli]``: uv.lock records that line, not what ``cli``
    holds, so a change of ``cli`` is a change of every extra and group that names it), and each group it
    includes, at any depth (pure over pyproject.toml's parsed *data*)."""
    project = data.get("project")
    project = project if isinstance(project, dict) else {}
    extras = project.get("optional-dependencies")
    groups = data.get("dependency-groups")
    direct = {"project.dependencies": _named(project.get("dependencies"), canonicalize_name(name))}
    for kind, table in (("extra", extras), ("group", groups)):
        for key, items in (table if isinstance(table, dict) else {}).items():
            direct.setdefault(f"{kind}:{canonicalize_name(key)}", set()).update(_named(items, canonicalize_name(name)))
    out: dict[str, set[str]] = {}
    for source in direct:
        seen, stack = {source}, [source]
        while stack:
            for inner in direct.get(stack.pop(), set()) - seen:
                seen.add(inner)
                stack.append(inner)
        out[source] = seen
    return out


def _named(items: object, project: str) -> set[str]:
    """The extras (``extra:NAME``) that *items* name *project* with, and the groups (``group:NAME``) they include."""
    out: set[str] = set()
    for item in items if isinstance(items, list) else []:
        if isinstance(item, dict) and isinstance(item.get("include-group"), str):
            out.add(f"group:{canonicalize_name(item['include-group'])}")
            continue
        try:
            req = Requirement(item) if isinstance(item, str) else None
        except InvalidRequirement:
            continue
        if req is not None and project and canonicalize_name(req.name) == project:
            out.update(f"extra:{canonicalize_name(e)}" for e in req.extras)
    return out


def _workspace(project: Project) -> list[Member]:
    """The declarations uv.lock was made from: its folder's project (the workspace root) first, then every member.

    The project checked is that root, or one of its members whose ``lock`` names the workspace's uv.lock.
    """
    from tierlock.lockfiles import uvdrift

    assert project.lock is not None
    folder = project.lock.parent
    if folder.resolve() == project.root.resolve():
        return uvdrift.members_of(project.root, projectparts.read(project.pyproject), str(project.name or ""))
    declared = projectparts.read(folder / "pyproject.toml")
    table = declared.get("project")
    name = table.get("name") if isinstance(table, dict) else None
    return uvdrift.members_of(folder, declared, name if isinstance(name, str) else "")
