"""Is uv.lock out of date for pyproject.toml? Offline, without uv, and naming what changed (pure over data).

uv records in its lock what each workspace member declared when it was
locked (``[package.metadata]``: ``requires-dist``, ``provides-extras``,
``requires-dev``; ``[manifest]``: the members, constraints and overrides;
``requires-python``; ``conflicts``; the environments, compared in
:mod:`tierlock.lockfiles.uvenvironments`), and ``uv lock --check`` fails when
those no longer match. The same comparison is made here, semantically: names
normalised, specifiers as sets, markers equivalent on every environment that
could tell them apart (uv rewrites ``python_version`` as ``python_full_version``
and folds optional dependencies' extras into their markers). Only a difference
found for certain is reported, so ``uv lock`` always clears what this finds.

Not compared (uv may still re-lock for them): ``[tool.uv.sources]``
and index settings, and anything dynamic (dependencies computed at build time:
``uv lock --check`` builds the project to know them).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from packaging.markers import InvalidMarker, Marker
from packaging.requirements import InvalidRequirement, Requirement
from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.utils import canonicalize_name

from tierlock import fsutil
from tierlock.lockfiles import uvenvironments
from tierlock.lockfiles.markers import equivalent
from tierlock.lockfiles.uvlock import Package, UvLock


@dataclass(frozen=True)
class Drift:
    """One thing pyproject.toml declares differently from what uv.lock was made from."""

    source: str | None
    """Whose declaration: ``project.dependencies``, ``extra:NAME``, ``group:NAME`` (of the root project), or
    None for the whole lock (requires-python, members, conflicts, another member)."""
    detail: str
    line: int | None = None


@dataclass(frozen=True)
class Member:
    """One workspace member's declarations, read from its pyproject.toml."""

    name: str
    folder: str
    """Relative to the workspace root (``.`` for the root)."""
    data: Mapping[str, Any]


@dataclass(frozen=True)
class _Req:
    name: str
    extras: tuple[str, ...]
    specifier: SpecifierSet
    marker: Marker | None
    text: str
    sourced: bool = False
    """Locked with a source of its own and no specifier (a workspace member, a path, git, a URL): uv records no
    version bound there, whatever pyproject.toml declares beside its ``[tool.uv.sources]`` entry."""


def drift(lock: UvLock, members: Sequence[Member], root: str) -> list[Drift]:
    """Everything *members* (the root first) declare that *lock* was not made from."""
    out: list[Drift] = []
    requires_python = _requires_python(members)
    if not _same_range(lock.requires_python, requires_python):
        own = _requires_python(members[:1])
        shown = own if _same_range(own, requires_python) else requires_python  # the root's, when it decides
        out.append(Drift(None, f"requires-python {lock.requires_python or '(none)'} became {shown or '(none)'}"))
    listed = set(lock.members) or {
        p.name for p in lock.packages if p.source_kind in ("editable", "virtual") and p.source_value == "."
    }
    declared = {canonicalize_name(m.name) for m in members if m.name}  # (a virtual workspace root has no name)
    for name in sorted(declared - listed):
        out.append(Drift(None, f"workspace member {name} added"))
    for name in sorted(listed - declared):
        out.append(Drift(None, f"workspace member {name} removed"))
    out.extend(_conflicts(lock, members))
    uv_table = _uv_table(members[0].data) if members else {}
    out.extend(Drift(None, change) for change in uvenvironments.changes(uv_table, lock.document, requires_python))
    for member in members:
        package = _package_of(lock, member) if member.name else None
        if package is None:
            continue
        is_root = canonicalize_name(member.name) == canonicalize_name(root)
        out.extend(_member(member, package, lock.requires_python if is_root else None, is_root))
    for kind in ("constraints", "overrides"):
        key = {"constraints": "constraint-dependencies", "overrides": "override-dependencies"}[kind]
        declared_reqs = _items(_uv_table(members[0].data).get(key))
        locked = _items(lock.manifest.get(kind))
        if declared_reqs or locked:
            changes = _compare(_from_strings(declared_reqs), _from_lock(locked), requires_python)
            out.extend(Drift(None, f"[tool.uv].{key}: {c.text}") for c in changes)
    return out


def _member(member: Member, package: Package, requires_python: str | None, is_root: bool) -> list[Drift]:
    """One member's dependencies, extras, groups and version against its package's metadata in the lock."""
    project = member.data.get("project", {}) if isinstance(member.data.get("project"), Mapping) else {}
    dynamic = {str(d) for d in _items(project.get("dynamic"))}
    metadata = package.metadata
    label = "" if is_root else f"{member.name}: "
    out: list[Drift] = []
    version = project.get("version")
    if (
        isinstance(version, str)
        and package.version is not None
        and "version" not in dynamic
        and _version_differs(version, package.version)
    ):
        out.append(
            Drift(None if not is_root else "project.dependencies", f"{label}version {package.version} became {version}")
        )
    if not metadata or dynamic & {"dependencies", "optional-dependencies"}:
        return out
    own = _from_strings(_items(project.get("dependencies")))
    extras = project.get("optional-dependencies")
    extras = extras if isinstance(extras, Mapping) else {}
    for extra, reqs in extras.items():
        own += [_with_extra(r, extra) for r in _from_strings(_items(reqs))]
    locked = _from_lock(metadata.get("requires-dist", []))
    for change in _compare(own, locked, requires_python):
        out.append(Drift(_source_of(change, is_root), f"{label}{change.text}"))
    if "provides-extras" in metadata:
        before = {canonicalize_name(str(e)) for e in _items(metadata.get("provides-extras"))}
        now = {canonicalize_name(str(e)) for e in extras}
        out += [Drift(f"extra:{e}" if is_root else None, f"{label}extra {e} added") for e in sorted(now - before)]
        out += [Drift(f"extra:{e}" if is_root else None, f"{label}extra {e} removed") for e in sorted(before - now)]
    out.extend(_groups(member, metadata, requires_python, label, is_root))
    return out


def _groups(
    member: Member, metadata: Mapping[str, Any], requires_python: str | None, label: str, is_root: bool
) -> list[Drift]:
    declared: dict[str, list[_Req]] = dict(_declared_groups(member.data))
    locked_raw = metadata.get("requires-dev")
    locked_raw = locked_raw if isinstance(locked_raw, Mapping) else {}
    locked: dict[str, list[_Req]] = {canonicalize_name(g): _from_lock(v) for g, v in locked_raw.items()}
    out: list[Drift] = []
    for group in sorted(set(declared) | set(locked)):
        source = f"group:{group}" if is_root else None
        if group not in locked:
            out.append(Drift(source, f"{label}dependency group {group} added"))
        elif group not in declared:
            out.append(Drift(source, f"{label}dependency group {group} removed"))
        else:
            for change in _compare(declared[group], locked[group], requires_python):
                out.append(Drift(source, f"{label}group {group}: {change.text}"))
    return out


@dataclass(frozen=True)
class _Change:
    text: str
    name: str
    extras_of: tuple[str, ...]
    """The extras whose markers the changed requirement carries (``extra == "x"``): whose declaration it is."""


def _compare(declared: list[_Req], locked: list[_Req], requires_python: str | None) -> list[_Change]:
    """What differs between two requirement lists (order, spelling and repeats aside): ``a>=1 became a>=2``,
    ``b added``.

    uv records a requirement once however often it is declared (a group that includes two groups which both
    list ``pyyaml>=5``, as FastAPI's ``dev`` does), so a repeat is no difference on either side.
    """
    remaining = _unique(locked, requires_python)
    added: list[_Req] = []
    for req in _unique(declared, requires_python):
        match = next((r for r in remaining if _same(req, r, requires_python)), None)
        if match is None:
            added.append(req)
        else:
            remaining.remove(match)
    out: list[_Change] = []
    for req in added:
        old = next((r for r in remaining if r.name == req.name and _extra_of(r) == _extra_of(req)), None)
        if old is not None:
            remaining.remove(old)
            out.append(_Change(f"{old.text} became {req.text}", req.name, _extra_of(req)))
        else:
            out.append(_Change(f"{req.text} added", req.name, _extra_of(req)))
    out += [_Change(f"{r.text} removed", r.name, _extra_of(r)) for r in remaining]
    return out


def _unique(reqs: list[_Req], requires_python: str | None) -> list[_Req]:
    """*reqs* without any that repeats one before it (the same requirement, however spelled)."""
    out: list[_Req] = []
    for req in reqs:
        if not any(_same(req, kept, requires_python) for kept in out):
            out.append(req)
    return out


def _same(a: _Req, b: _Req, requires_python: str | None) -> bool:
    return (
        a.name == b.name
        and a.extras == b.extras
        and (a.specifier == b.specifier or a.sourced or b.sourced)
        and equivalent(a.marker, b.marker, requires_python)
    )


def _extra_of(req: _Req) -> tuple[str, ...]:
    if req.marker is None:
        return ()
    import re

    return tuple(sorted({canonicalize_name(x) for x in re.findall(r'extra == "([^"]+)"', str(req.marker))}))


def _source_of(change: _Change, is_root: bool) -> str | None:
    if not is_root:
        return None
    return f"extra:{change.extras_of[0]}" if len(change.extras_of) == 1 else "project.dependencies"


def _from_strings(values: Iterable[object]) -> list[_Req]:
    out: list[_Req] = []
    for value in values:
        if not isinstance(value, str):
            continue
        try:
            req = Requirement(value)
        except InvalidRequirement:
            continue
        out.append(_Req(canonicalize_name(req.name), _extras(req.extras), req.specifier, req.marker, value))
    return out


def _from_lock(values: object) -> list[_Req]:
    """uv's tables (``{ name, specifier?, marker?, extras? }``) as requirements."""
    out: list[_Req] = []
    for item in values if isinstance(values, list) else []:
        if not isinstance(item, Mapping) or not isinstance(item.get("name"), str):
            continue
        try:
            specifier = SpecifierSet(str(item.get("specifier") or ""))
            marker = Marker(str(item["marker"])) if item.get("marker") else None
        except (InvalidSpecifier, InvalidMarker):
            continue
        extras = _extras(item.get("extras", []) or [])
        text = f"{item['name']}{'[' + ','.join(extras) + ']' if extras else ''}{specifier}"
        text += f"; {marker}" if marker is not None else ""
        sourced = not specifier and any(k in item for k in _SOURCES)
        out.append(_Req(canonicalize_name(item["name"]), extras, specifier, marker, text, sourced))
    return out


#: The keys of a locked requirement that name where it comes from instead of an index.
_SOURCES = ("editable", "path", "directory", "virtual", "git", "url")


def _extras(values: Iterable[object]) -> tuple[str, ...]:
    return tuple(sorted({canonicalize_name(str(e)) for e in values}))


def _with_extra(req: _Req, extra: str) -> _Req:
    clause = f'extra == "{canonicalize_name(extra)}"'
    marker = Marker(f"({req.marker}) and {clause}" if req.marker is not None else clause)
    return _Req(req.name, req.extras, req.specifier, marker, f"{req.text} (extra {canonicalize_name(extra)})")


def _declared_groups(data: Mapping[str, Any]) -> dict[str, list[_Req]]:
    """``[dependency-groups]`` with ``include-group`` flattened, and ``[tool.uv].dev-dependencies`` as ``dev``."""
    raw = data.get("dependency-groups", {}) or {}
    out: dict[str, list[_Req]] = {}
    if isinstance(raw, Mapping):
        for group in raw:
            out[canonicalize_name(group)] = _from_strings(_flatten(raw, group, set()))
    legacy = _uv_table(data).get("dev-dependencies")
    if isinstance(legacy, list):
        out["dev"] = out.get("dev", []) + _from_strings(legacy)
    return out


def _flatten(groups: Mapping[str, Any], group: str, seen: set[str]) -> list[object]:
    key = canonicalize_name(group)
    if key in seen:
        return []
    seen.add(key)
    actual = next((g for g in groups if canonicalize_name(g) == key), group)
    out: list[object] = []
    for item in _items(groups.get(actual)):
        if isinstance(item, Mapping) and isinstance(item.get("include-group"), str):
            out += _flatten(groups, item["include-group"], seen)
        else:
            out.append(item)
    return out


def _conflicts(lock: UvLock, members: Sequence[Member]) -> list[Drift]:
    from tierlock.lockfiles.uvconflicts import declared as declared_sets

    declared: set[frozenset[tuple[str, str, str]]] = set()
    for member in members:
        declared |= declared_sets(member.name, _uv_table(member.data), member.data.get("dependency-groups"))
    locked = {frozenset(c) for c in lock.conflicts}
    if declared == locked:
        return []
    return [Drift(None, f"[tool.uv].conflicts changed ({len(locked)} set(s) locked, {len(declared)} declared)")]


def _package_of(lock: UvLock, member: Member) -> Package | None:
    for package in lock.named(member.name):
        if package.source_kind in ("editable", "virtual", "directory"):
            return package
    return None


def _items(value: object) -> list[Any]:
    """*value* when it is an array as TOML gives one, else nothing (a damaged declaration is no crash)."""
    return value if isinstance(value, list) else []


def _uv_table(data: Mapping[str, Any]) -> Mapping[str, Any]:
    tool = data.get("tool")
    uv = tool.get("uv") if isinstance(tool, Mapping) else None
    return uv if isinstance(uv, Mapping) else {}


def _requires_python(members: Sequence[Member]) -> str | None:
    specs = []
    for member in members:
        project = member.data.get("project")
        value = project.get("requires-python") if isinstance(project, Mapping) else None
        if isinstance(value, str):
            specs.append(value)
    return ",".join(specs) if specs else None


def _same_range(first: str | None, second: str | None) -> bool:
    """Whether two requires-python ranges admit the same Python versions.

    Where two ranges differ, the difference starts at an edge one of them names
    (the edge itself, or just above it; ``~=3.11.2`` and ``==3.11.*`` also end at
    the next minor version), or below every edge: each edge, the version just
    above it, the next minor version, and 3.0.0 are tried.
    """
    import re

    if (first or "") == (second or ""):
        return True
    try:
        a, b = SpecifierSet(first or ""), SpecifierSet(second or "")
    except InvalidSpecifier:
        return False
    tried = {"3.0.0"}
    for edge in re.findall(r"\d+(?:\.\d+)*", f"{first} {second}"):
        major, minor, micro = (*(int(p) for p in edge.split(".")), 0, 0)[:3]
        tried.update({f"{major}.{minor}.{micro}", f"{major}.{minor}.{micro + 1}", f"{major}.{minor + 1}.0"})
    return all(a.contains(v, prereleases=True) == b.contains(v, prereleases=True) for v in tried)


def _version_differs(declared: str, locked: str) -> bool:
    from packaging.version import InvalidVersion, Version

    try:
        return Version(declared) != Version(locked)
    except InvalidVersion:
        return declared != locked


def members_of(root: Path, data: Mapping[str, Any], name: str) -> list[Member]:
    """The root project and its workspace members, with their parsed pyproject.toml (the thin edge)."""
    import tomllib

    from tierlock.tiers.reach import workspace_members

    out = [Member(name, ".", data)]
    for member, folder in workspace_members(root, data).items():
        try:
            text = fsutil.read_text(root / folder / "pyproject.toml")  # a FIFO is refused
            out.append(Member(member, folder, tomllib.loads(text)))
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
            continue
    return out
