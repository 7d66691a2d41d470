"""A tier's closure out of a uv.lock: the packages ``uv sync`` installs for the same extras and groups (pure).

The walk starts at the project's own package with the tier's extras and
dependency groups, follows every dependency edge (an edge to ``pkg[x]`` also
brings in ``pkg``'s extra ``x``), and gives each package the condition under
which some path reaches it: the edges' markers, joined with ``and`` along a path
and ``or`` across paths. Markers that name uv's encoding of a declared
conflict (``extra == 'extra-4-proj-brain'``) are decided on the way, since the
tier fixes which extras and groups are active; what remains is a marker over
the environment only, so an entry applies to a target exactly when ``uv sync``
would install it there.

Packages of the project's tree (``editable``, ``directory``) become
:class:`~tierlock.lockfiles.locks.LocalPackage`; ``virtual`` ones install
nothing (their dependencies do).
"""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal
from urllib.parse import unquote, urlsplit

from packaging.markers import Marker
from packaging.utils import NormalizedName, canonicalize_name
from packaging.version import InvalidVersion, Version

from tierlock.lockfiles.locks import LocalPackage, LockedFile, LockEntry, ReadProblem
from tierlock.lockfiles.markers import specialise
from tierlock.lockfiles.uvlock import TREE_SOURCES, Dependency, Package, UvLock, conflict_atom

#: A vertex of the walk: (package index, "" for its own dependencies or "extra"/"group", that name).
Vertex = tuple[int, str, str]
Condition = frozenset[str]
"""A conjunction of markers (their text); the empty one always holds."""


@dataclass(frozen=True)
class Selection:
    entries: tuple[LockEntry, ...]
    local: tuple[LocalPackage, ...]
    problems: tuple[ReadProblem, ...]


def select(lock: UvLock, root: str, extras: Sequence[str] = (), groups: Sequence[str] = ()) -> Selection:
    """What ``uv sync --extra E... --group G... --no-default-groups`` installs, for every platform."""
    problems: list[ReadProblem] = []
    project = _project(lock, root)
    if project is None:
        detail = f"no package {canonicalize_name(root)!r}: the lock was made for another project or before it existed"
        return Selection((), (), (ReadProblem("integrity", None, detail),))
    start = lock.packages.index(project)
    wanted_extras = [canonicalize_name(e) for e in extras]
    wanted_groups = [canonicalize_name(g) for g in groups]
    problems.extend(_undeclared(project, wanted_extras, wanted_groups))
    starts = [(start, "", ""), *((start, "extra", e) for e in wanted_extras)]
    starts += [(start, "group", g) for g in wanted_groups]
    active: set[tuple[str, str, str]] = {(project.name, "extra", e) for e in wanted_extras}
    active.update((project.name, "group", g) for g in wanted_groups)
    graph = _Graph(lock, problems)
    # Pass 1 takes every other package's conflicting extras as active; pass 2 knows which ones the walk reached.
    reached = graph.walk(starts, _decider(project.name, active, None))
    others: set[tuple[str, str, str]] = {(lock.packages[i].name, kind, name) for i, kind, name in reached if kind}
    conditions = graph.walk(starts, _decider(project.name, active, others))
    entries: list[LockEntry] = []
    local: list[LocalPackage] = []
    for (index, kind, _name), condition in sorted(conditions.items()):
        if kind:
            continue
        package = lock.packages[index]
        marker = _marker(condition)
        if package.source_kind in ("editable", "directory"):
            folder = (lock.folder / package.source_value).resolve()
            editable = package.source_kind == "editable"
            local.append(LocalPackage(package.name, package.version, folder, editable, marker))
        elif package.source_kind != "virtual":
            entry = _entry(lock, package, marker, problems)
            if entry is not None:
                entries.append(entry)
    return Selection(tuple(entries), tuple(local), tuple(dict.fromkeys(problems)))


def _project(lock: UvLock, root: str) -> Package | None:
    """The project's own package: the one of its name built from a folder (a release of it from an index that the
    lock also holds is not the project)."""
    found = lock.named(root)
    return next((p for p in found if p.source_kind in TREE_SOURCES), found[0] if found else None)


def _undeclared(root: Package, extras: Iterable[str], groups: Iterable[str]) -> list[ReadProblem]:
    declared_extras = set(root.optional)
    declared_extras.update(canonicalize_name(str(e)) for e in root.metadata.get("provides-extras", ()) or ())
    declared_groups = set(root.groups)
    declared_groups.update(canonicalize_name(str(g)) for g in root.metadata.get("requires-dev", {}) or {})
    out: list[ReadProblem] = []
    for extra in extras:
        if extra not in declared_extras:
            out.append(ReadProblem("integrity", root.line, f"{root.name} has no extra {extra!r} in the lock"))
    for group in groups:
        if group not in declared_groups:
            out.append(
                ReadProblem("integrity", root.line, f"{root.name} has no dependency group {group!r} in the lock")
            )
    return out


def _decider(
    root: NormalizedName, active: set[tuple[str, str, str]], reached: set[tuple[str, str, str]] | None
) -> Callable[[str, str, str], bool | None]:
    """Decides the atoms of uv's conflict encoding: the root's from the tier, others' from the walk (or true)."""

    def decide(variable: str, op: str, value: str) -> bool | None:
        if variable != "extra" or op not in ("==", "!="):
            return None
        atom = conflict_atom(value)
        if atom is None:
            return None
        if atom[0] == root:
            holds = atom in active
        else:
            holds = True if reached is None else atom in reached
        return holds if op == "==" else not holds

    return decide


class _Graph:
    """The lock's packages as a graph, each edge's target found once and its marker decided once per pass."""

    def __init__(self, lock: UvLock, problems: list[ReadProblem]) -> None:
        self.lock = lock
        self.problems = problems
        self.by_name: dict[str, list[int]] = {}
        for index, package in enumerate(lock.packages):
            self.by_name.setdefault(package.name, []).append(index)

    def target(self, owner: Package, dep: Dependency) -> int | None:
        candidates = self.by_name.get(dep.name, [])
        if dep.version is not None:
            candidates = [i for i in candidates if self.lock.packages[i].version == dep.version]
        if dep.source is not None and len(candidates) > 1:
            candidates = [i for i in candidates if self.lock.packages[i].source == dep.source]
        if len(candidates) == 1:
            return candidates[0]
        what = "no package" if not candidates else f"{len(candidates)} packages"
        version = f" {dep.version}" if dep.version else ""
        detail = f"{owner.name} depends on {dep.name}{version}, but the lock has {what} of that name"
        self.problems.append(ReadProblem("integrity", owner.line, detail))
        return None

    def edges(self, vertex: Vertex) -> tuple[Dependency, ...]:
        index, kind, name = vertex
        package = self.lock.packages[index]
        if kind == "extra":
            return package.optional.get(canonicalize_name(name), ())
        if kind == "group":
            return package.groups.get(canonicalize_name(name), ())
        return package.dependencies

    def walk(
        self, starts: Sequence[Vertex], decide: Callable[[str, str, str], bool | None]
    ) -> dict[Vertex, set[Condition]]:
        conditions: dict[Vertex, set[Condition]] = {v: {frozenset()} for v in starts}
        decided: dict[str, Marker | bool] = {}
        queue = deque(starts)
        while queue:
            vertex = queue.popleft()
            owner = self.lock.packages[vertex[0]]
            for dep in self.edges(vertex):
                key = str(dep.marker) if dep.marker is not None else ""
                if key not in decided:
                    decided[key] = specialise(dep.marker, decide)
                verdict = decided[key]
                if verdict is False:
                    continue
                index = self.target(owner, dep)
                if index is None:
                    continue
                atom = () if verdict is True else (str(verdict),)
                for child in [(index, "", ""), *((index, "extra", e) for e in dep.extras)]:
                    if _extend(conditions, child, conditions[vertex], atom) and child not in queue:
                        queue.append(child)
        return conditions


def _extend(
    conditions: dict[Vertex, set[Condition]], child: Vertex, parent: set[Condition], atom: tuple[str, ...]
) -> bool:
    """Add ``parent and atom`` to *child*'s conditions, keeping only the weakest (False when nothing new)."""
    known = conditions.setdefault(child, set())
    changed = False
    for condition in list(parent):
        new = condition.union(atom)
        if any(old <= new for old in known):
            continue
        known.difference_update({old for old in known if new <= old})
        known.add(new)
        changed = True
    return changed


def _marker(conditions: set[Condition]) -> Marker | None:
    if not conditions or frozenset() in conditions:
        return None
    alternatives = sorted(
        " and ".join(f"({m})" for m in sorted(c)) if len(c) > 1 else next(iter(c)) for c in conditions
    )
    return Marker(alternatives[0] if len(alternatives) == 1 else " or ".join(f"({a})" for a in alternatives))


def _entry(lock: UvLock, package: Package, marker: Marker | None, problems: list[ReadProblem]) -> LockEntry | None:
    try:
        version = Version(package.version or "")
    except InvalidVersion:
        problems.append(ReadProblem("integrity", package.line, f"{package.name}: invalid version {package.version!r}"))
        return None
    if package.source_kind == "git":
        detail = (
            f"{package.name} comes from git ({package.source_value.split('#', 1)[0]}): a git checkout has no hash "
            "to verify, and tierlock installs only what it can verify"
        )
        problems.append(ReadProblem("integrity", package.line, detail, _elsewhere(package.name)))
        return None
    files = _files(lock, package)
    hashes = tuple(dict.fromkeys(f"{a}:{h}" for f in files for a, h in sorted(f.hashes.items())))
    url = index = None
    if package.source_kind == "registry":
        index = _location(lock, package.source_value)
    elif package.source_kind == "path":
        url = Path(os.path.normpath(os.path.join(lock.folder, package.source_value))).as_uri()
    elif package.source_kind == "url":
        url = package.source_value
    else:
        detail = f"{package.name}: source kind {package.source_kind!r} is not one tierlock can install"
        problems.append(ReadProblem("integrity", package.line, detail, _elsewhere(package.name)))
        return None
    return LockEntry(package.name, version, marker, hashes, package.line, files, url=url, index=index)


def _elsewhere(name: str) -> str:
    """The fix of a package the lock takes from where no hash vouches for it (``uv lock`` alone keeps it there)."""
    return (
        f"take {name} from an index, a wheel file or a folder in [tool.uv.sources] (not git), or leave it out of "
        "this tier's extras and groups, then run: uv lock"
    )


def _location(lock: UvLock, value: str) -> str:
    """A registry as the installer takes it: a URL as written, a folder of wheels as an absolute path."""
    if "://" in value:
        return value
    return os.path.normpath(os.path.join(lock.folder, value))


def _files(lock: UvLock, package: Package) -> tuple[LockedFile, ...]:
    out: list[LockedFile] = []
    raw: list[tuple[Literal["wheel", "sdist"], Mapping[str, object]]] = [("wheel", w) for w in package.wheels]
    if package.sdist is not None:
        raw.append(("sdist", package.sdist))
    for kind, file in raw:
        url = str(file["url"]) if isinstance(file.get("url"), str) else None
        path = str(file["path"]) if isinstance(file.get("path"), str) else None
        if path is not None and package.source_kind == "registry" and "://" not in package.source_value:
            path = os.path.normpath(os.path.join(lock.folder, package.source_value, path))
        elif path is None and package.source_kind == "path":
            path = os.path.normpath(os.path.join(lock.folder, package.source_value))
        name = file.get("filename")
        filename = str(name) if isinstance(name, str) else _basename(str(url or path or package.source_value))
        algorithm, _, digest = str(file.get("hash") or "").partition(":")
        size = file.get("size")
        out.append(
            LockedFile(
                kind,
                filename,
                str(url) if url else None,
                str(path) if path else None,
                size if isinstance(size, int) else None,
                {algorithm: digest} if digest else {},
            )
        )
    return tuple(out)


def _basename(where: str) -> str:
    return Path(unquote(urlsplit(where).path if "://" in where else where)).name
