"""``uv.lock`` read as the TOML document it is: uv is never imported nor run to read it.

The format is uv's (its lockfile reference and ``uv.lock`` files uv writes):

* ``version`` is the schema: a uv that writes schema N rejects N+1, so this
  reader takes schema 1 only; ``revision`` adds backwards-compatible fields and
  any revision of schema 1 reads here (fields it does not know are ignored);
* ``requires-python``, ``resolution-markers``, ``supported-markers``,
  ``conflicts`` (sets of ``{package, extra|group}``) and ``[manifest]``
  (``members``, ``constraints``, ``overrides``) describe the resolution;
* one ``[[package]]`` per resolved distribution and fork: ``name``,
  ``version`` (absent for a source tree with a dynamic version), ``source`` (one
  of ``registry`` (URL or folder), ``path``, ``directory``, ``editable``,
  ``virtual``, ``git``, ``url``), ``dependencies``,
  ``[package.optional-dependencies]`` (per extra), ``[package.dev-dependencies]``
  (per dependency group), ``sdist``, ``wheels`` and, for workspace members,
  ``[package.metadata]`` (``requires-dist``, ``provides-extras``,
  ``requires-dev``: what the lock was made from);
* a dependency is ``{name, version?, source?, marker?, extra?}``: version and
  source are written only when the name alone is ambiguous (a fork), and its
  marker may carry uv's encoding of a declared conflict
  (``extra == 'extra-4-proj-brain'``: extra ``brain`` of ``proj`` is active).

:func:`parse` is pure (text in, :class:`UvLock` out, every problem collected
with its line); which packages a tier needs is :mod:`tierlock.lockfiles.uvselect`.
"""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import unquote

from packaging.markers import InvalidMarker, Marker
from packaging.utils import InvalidWheelFilename, NormalizedName, canonicalize_name, parse_wheel_filename
from packaging.version import InvalidVersion, Version

from tierlock.lockfiles.locks import ReadProblem

#: The uv.lock schema this reader understands (any revision of it).
SCHEMA = 1
#: The fix of a lock this reader cannot read as uv writes it: uv cannot read it either, so ``uv lock`` alone refuses
#: it (``invalid type: integer `1`, expected a sequence``); the committed text, or a lock made again from nothing.
DAMAGED = (
    "uv cannot read this uv.lock either: restore the committed one (git checkout -- uv.lock), or make it again "
    "from pyproject.toml: rm uv.lock && uv lock"
)
#: Source kinds of a package that is built from the project's own tree (never from an index).
TREE_SOURCES = ("editable", "directory", "virtual")
_TOML_POS = re.compile(r"\(at line (\d+), column (\d+)\)")


@dataclass(frozen=True)
class Dependency:
    """One edge of the lock's graph: a package needs *name* (with *extras*) where *marker* holds."""

    name: NormalizedName
    version: str | None
    source: str | None
    """The source key (see :func:`source_key`) when the lock names it: a fork, or two sources of one name."""
    marker: Marker | None
    extras: tuple[NormalizedName, ...] = ()


@dataclass(frozen=True)
class Package:
    """One ``[[package]]`` of the lock."""

    name: NormalizedName
    version: str | None
    source_kind: str
    """``registry``, ``path``, ``directory``, ``editable``, ``virtual``, ``git`` or ``url``."""
    source_value: str
    line: int | None
    dependencies: tuple[Dependency, ...] = ()
    optional: Mapping[NormalizedName, tuple[Dependency, ...]] = field(default_factory=dict)
    """``[package.optional-dependencies]``: extra -> its dependencies."""
    groups: Mapping[NormalizedName, tuple[Dependency, ...]] = field(default_factory=dict)
    """``[package.dev-dependencies]``: dependency group -> its dependencies."""
    sdist: Mapping[str, Any] | None = None
    wheels: tuple[Mapping[str, Any], ...] = ()
    metadata: Mapping[str, Any] = field(default_factory=dict)
    """``[package.metadata]`` as written (workspace members and path sources)."""

    @property
    def source(self) -> str:
        return source_key(self.source_kind, self.source_value)


@dataclass(frozen=True)
class UvLock:
    """A parsed uv.lock: its packages and what the resolution was made for."""

    path: Path
    version: int | None
    revision: int
    requires_python: str | None
    packages: tuple[Package, ...]
    problems: tuple[ReadProblem, ...] = ()
    supported_markers: tuple[str, ...] = ()
    conflicts: tuple[tuple[tuple[str, str, str], ...], ...] = ()
    """Declared conflicts: sets of (package, ``extra`` or ``group``, name)."""
    manifest: Mapping[str, Any] = field(default_factory=dict)
    document: Mapping[str, Any] = field(default_factory=dict, compare=False, repr=False)

    @property
    def folder(self) -> Path:
        """Where the lock's relative paths start: the workspace root."""
        return self.path.parent

    @property
    def members(self) -> tuple[NormalizedName, ...]:
        """The workspace members (``[manifest].members``; a single project has none listed)."""
        return tuple(canonicalize_name(str(m)) for m in self.manifest.get("members", ()) or ())

    def named(self, name: str) -> list[Package]:
        key = canonicalize_name(name)
        return [p for p in self.packages if p.name == key]


def source_key(kind: str, value: str) -> str:
    return f"{kind}:{value}"


def parse(text: str, path: Path, document: Mapping[str, Any] | None = None) -> UvLock:
    """Read uv.lock *text* (the file at *path*); structural problems are collected, not raised.

    *document* is the text already parsed as TOML (a cached copy), when the caller has it.
    """
    if document is None:
        try:
            document = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            match = _TOML_POS.search(str(exc))
            detail = _TOML_POS.sub("", str(exc)).strip()
            line = int(match.group(1)) if match else None
            problem = ReadProblem("integrity", line, f"invalid TOML: {detail}", DAMAGED)
            return UvLock(path, None, 0, None, (), (problem,))
    problems: list[ReadProblem] = []
    version = document.get("version")
    if not isinstance(version, int) or isinstance(version, bool):
        problems.append(ReadProblem("integrity", _line_of(text, "version"), "no schema `version` (not a uv.lock?)"))
        version = None
    revision = document.get("revision", 0)
    revision = revision if isinstance(revision, int) and not isinstance(revision, bool) else 0
    requires_python = document.get("requires-python")
    starts = [i for i, line in enumerate(text.splitlines(), start=1) if line.strip() == "[[package]]"]
    packages: list[Package] = []
    raw_packages = document.get("package", [])
    if not isinstance(raw_packages, list):
        problems.append(ReadProblem("integrity", None, "`package` must be an array of tables"))
        raw_packages = []
    for index, raw in enumerate(raw_packages):
        line = starts[index] if index < len(starts) else None
        package = _package(raw, line, problems)
        if package is not None:
            packages.append(package)
    at = next((i for i, line in enumerate(text.splitlines(), start=1) if line.strip() == "[manifest]"), None)
    manifest = _shaped(document.get("manifest", {}), _MANIFEST, "[manifest]", at, problems)
    supported = _shaped(document, {"supported-markers": list}, "", None, problems).get("supported-markers", ())
    return UvLock(
        path=path,
        version=version,
        revision=revision,
        requires_python=requires_python if isinstance(requires_python, str) else None,
        packages=tuple(packages),
        problems=tuple(ReadProblem(p.kind, p.line, p.detail, DAMAGED) for p in problems),
        supported_markers=tuple(str(m) for m in supported),
        conflicts=_conflicts(document.get("conflicts", ())),
        manifest=manifest,
        document=document,
    )


#: The shapes of the tables this reader takes values from: key -> the type its value must have.
_MANIFEST: Mapping[str, type] = {"members": list, "constraints": list, "overrides": list}
_METADATA: Mapping[str, type] = {"requires-dist": list, "provides-extras": list, "requires-dev": dict}


def _shaped(
    raw: object, shapes: Mapping[str, type], where: str, line: int | None, problems: list[ReadProblem]
) -> dict[str, Any]:
    """*raw* as a table whose keys named in *shapes* hold values of their type: a key that does not is a problem
    and left out (a hand-edited or damaged lock is reported, never a crash), the rest kept as written."""
    if not isinstance(raw, dict):
        problems.append(ReadProblem("integrity", line, f"{where or 'the lock'} must be a table"))
        return {}
    out: dict[str, Any] = {}
    for key, value in raw.items():
        wanted = shapes.get(key)
        if wanted is not None and not isinstance(value, wanted):
            kind = "an array" if wanted is list else "a table"
            problems.append(ReadProblem("integrity", line, f"{where + '.' if where else ''}{key} must be {kind}"))
            continue
        out[key] = value
    return out


def _package(raw: object, line: int | None, problems: list[ReadProblem]) -> Package | None:
    if not isinstance(raw, dict) or not isinstance(raw.get("name"), str):
        problems.append(ReadProblem("integrity", line, "a [[package]] without a name"))
        return None
    name = canonicalize_name(raw["name"])
    source = raw.get("source")
    if not isinstance(source, dict) or len(source) != 1:
        problems.append(ReadProblem("integrity", line, f"{name}: no `source` (or more than one kind)"))
        return None
    ((kind, value),) = source.items()
    version = raw.get("version")
    if version is None and kind not in TREE_SOURCES:
        problems.append(ReadProblem("integrity", line, f"{name}: no version"))
        return None
    wheels = raw.get("wheels", [])
    for filename, found in _other_versions(version, wheels):
        problems.append(ReadProblem("integrity", line, f"{name} {version}: its wheel {filename} is of version {found}"))
    sdist = raw.get("sdist")
    return Package(
        name=name,
        version=str(version) if version is not None else None,
        source_kind=str(kind),
        source_value=str(value),
        line=line,
        dependencies=_dependencies(raw.get("dependencies", []), name, line, problems),
        optional=_named_lists(raw.get("optional-dependencies", {}), name, line, problems),
        groups=_named_lists(raw.get("dev-dependencies", {}), name, line, problems),
        sdist=sdist if isinstance(sdist, dict) else None,
        wheels=tuple(w for w in wheels if isinstance(w, dict)) if isinstance(wheels, list) else (),
        metadata=_shaped(raw.get("metadata", {}), _METADATA, f"{name}: [package.metadata]", line, problems),
    )


def _other_versions(version: object, wheels: object) -> list[tuple[str, str]]:
    """The wheels (file name, its version) whose file name gives another version than the package's: a version
    edited by hand. uv refuses such a lock ("inconsistent version"), and the file's hash pins the other version."""
    out: list[tuple[str, str]] = []
    for wheel in wheels if isinstance(wheels, list) else []:
        where = next((wheel[k] for k in _WHERE if isinstance(wheel.get(k), str)), "") if isinstance(wheel, dict) else ""
        filename = where.split("?", 1)[0].split("#", 1)[0].replace("\\", "/").rsplit("/", 1)[-1]
        parts = filename.split("-")
        if len(parts) < 5 or parts[1] == version:  # the file name as uv writes it beside the version: the same
            continue
        found = _other_version(unquote(filename), str(version))
        if found is not None:
            out.append((unquote(filename), found))
    return out


#: Where a wheel of uv.lock names its file, first found first.
_WHERE = ("filename", "url", "path")


def _other_version(filename: str, version: str) -> str | None:
    """The version of the wheel *filename* when it is not *version* (None: the same, or nothing to compare)."""
    try:
        found = parse_wheel_filename(filename)[1]
        return None if found == Version(version) else str(found)
    except (InvalidWheelFilename, InvalidVersion):
        return None  # no version to compare: the backend judges the file


def _named_lists(
    raw: object, owner: str, line: int | None, problems: list[ReadProblem]
) -> dict[NormalizedName, tuple[Dependency, ...]]:
    if not isinstance(raw, dict):
        return {}
    return {canonicalize_name(k): _dependencies(v, owner, line, problems) for k, v in raw.items()}


def _dependencies(raw: object, owner: str, line: int | None, problems: list[ReadProblem]) -> tuple[Dependency, ...]:
    out: list[Dependency] = []
    for item in raw if isinstance(raw, list) else []:
        if not isinstance(item, dict) or not isinstance(item.get("name"), str):
            problems.append(ReadProblem("integrity", line, f"{owner}: a dependency without a name"))
            continue
        marker: Marker | None = None
        if item.get("marker"):
            try:
                marker = Marker(str(item["marker"]))
            except InvalidMarker as exc:
                problems.append(ReadProblem("integrity", line, f"{owner}: dependency {item['name']}: {exc}"))
                continue
        source = item.get("source")
        key = None
        if isinstance(source, dict) and len(source) == 1:
            ((kind, value),) = source.items()
            key = source_key(str(kind), str(value))
        extras = item.get("extra", [])
        out.append(
            Dependency(
                name=canonicalize_name(item["name"]),
                version=str(item["version"]) if item.get("version") is not None else None,
                source=key,
                marker=marker,
                extras=tuple(canonicalize_name(str(e)) for e in extras) if isinstance(extras, list) else (),
            )
        )
    return tuple(out)


def _conflicts(raw: object) -> tuple[tuple[tuple[str, str, str], ...], ...]:
    out: list[tuple[tuple[str, str, str], ...]] = []
    for group in raw if isinstance(raw, list) else []:
        items: list[tuple[str, str, str]] = []
        for item in group if isinstance(group, list) else []:
            if not isinstance(item, dict):
                continue
            package = canonicalize_name(str(item.get("package", "")))
            for kind in ("extra", "group"):
                if isinstance(item.get(kind), str):
                    items.append((package, kind, canonicalize_name(item[kind])))
        out.append(tuple(items))
    return tuple(out)


def _line_of(text: str, key: str) -> int | None:
    for number, line in enumerate(text.splitlines(), start=1):
        if line.startswith("["):
            return None
        if re.match(rf"\s*{re.escape(key)}\s*=", line):
            return number
    return None


def canonical_json(value: object) -> str:
    """A stable text of a TOML value (for comparing tables written in another order)."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), default=str)


def conflict_atom(value: str) -> tuple[str, str, str] | None:
    """uv's encoding of a conflicting extra or group in a marker, decoded: ``extra-4-proj-brain`` ->
    (``proj``, ``extra``, ``brain``); None for any other value.

    The form is ``{extra|group}-{length of the package name}-{package}-{name}``; the
    length makes it unambiguous whatever dashes the names hold.
    """
    match = re.fullmatch(r"(extra|group)-(\d+)-(.*)", value)
    if match is None:
        return None
    kind, length, rest = match.group(1), int(match.group(2)), match.group(3)
    if len(rest) <= length + 1 or rest[length] != "-":
        return None
    package, name = rest[:length], rest[length + 1 :]
    return canonicalize_name(package), kind, canonicalize_name(name)
