"""``tierlock init``: propose a [tool.tierlock] table a real project can lock, appended byte-exactly.

:func:`propose` is pure over what it is given (the pyproject text, and what
was read around it: workspace members, installed metadata, the census of the
tests): :mod:`tierlock.tiers.inference` decides the tiers, layers, conflicts,
import names, tests globs and ``ci-require``; :mod:`tierlock.tiers.rendering`
writes them as TOML after the existing bytes. :func:`add_sources` adds tiers
for groups or extras to a table that exists.
"""

from __future__ import annotations

import tomllib
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from email.parser import HeaderParser
from pathlib import Path
from typing import TYPE_CHECKING, Any

from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import NormalizedName, canonicalize_name

from tierlock.census import CensusTier
from tierlock.errors import ConfigError
from tierlock.importnames import KNOWN_IMPORT_NAMES, import_names
from tierlock.tiers.inference import Inferred, Skipped, Unsettled, census_roots, infer, lockable, settle
from tierlock.tiers.loader import parse_project, parse_toml
from tierlock.tiers.pytest_marker import register
from tierlock.tiers.reach import local_packages
from tierlock.tiers.rendering import append, newline_of, table
from tierlock.tiers.tooling import TOOLING_WORDS, is_tooling

if TYPE_CHECKING:
    from tierlock.census import Census, CensusTier

__all__ = [
    "KNOWN_IMPORT_NAMES",
    "TOOLING_WORDS",
    "Around",
    "Asked",
    "Proposal",
    "Skipped",
    "Unsettled",
    "add_groups",
    "add_sources",
    "environment_requires",
    "import_names",
    "is_tooling",
    "propose",
    "test_dirs",
]


@dataclass(frozen=True)
class Asked:
    """What the user asked for."""

    groups: Collection[str] = ()
    extras: Collection[str] = ()
    """Extras to propose even when they only carry tooling."""
    all_groups: bool = False
    register_marker: bool = False


@dataclass(frozen=True)
class Around:
    """What was read around the pyproject (nothing: only what the text says)."""

    members: Mapping[NormalizedName, str] | None = None
    requires_of: Mapping[str, Sequence[Any]] | None = None
    existing_test_dirs: frozenset[str] = frozenset()
    census: Callable[[Sequence[CensusTier]], Census] | None = None
    """Runs the census of the project's tests for the tiers proposed."""
    local_locked: bool = False
    """The project's lock holds its local packages (``uv.lock``: path sources, workspace members): a tier that
    reaches one is proposed like any other (its tests found, in ``ci-require``), not skipped."""


@dataclass(frozen=True)
class Proposal:
    text: str
    """The whole new pyproject.toml."""
    added: str
    """Just the bytes that were appended."""
    inferred: Inferred
    marker_file: Path | None = None
    """Where the ``tier`` marker was registered (None: already registered or not asked)."""
    marker_where: str | None = None
    marker_text: str | None = None
    """The new text of *marker_file* when it is not pyproject.toml."""
    tiers: tuple[tuple[str, str], ...] = field(init=False)
    """(tier name, source) pairs proposed."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "tiers", tuple(self.inferred.tiers))

    @property
    def skipped(self) -> tuple[Skipped, ...]:
        return tuple(self.inferred.skipped)

    @property
    def groups_left_out(self) -> tuple[str, ...]:
        return self.inferred.groups_left_out

    @property
    def layered(self) -> Mapping[str, str]:
        return self.inferred.layered

    @property
    def conflicts(self) -> tuple[tuple[str, ...], ...]:
        return self.inferred.conflicts

    @property
    def tests(self) -> Mapping[str, tuple[str, ...]]:
        return self.inferred.tests


def propose(text: str, path: Path, asked: Asked | None = None, around: Around | None = None) -> Proposal:
    """Append a ``[tool.tierlock]`` table to the pyproject *text*."""
    asked = asked or Asked()
    around = around or Around()
    bom = "\ufeff" if text.startswith("\ufeff") else ""  # read like load_project reads it, and kept
    text = text.removeprefix(bom)
    data = parse_toml(text, path)
    tool = data.get("tool", {})
    if isinstance(tool, dict) and "tierlock" in tool:
        raise ConfigError(
            f"{path} already has a [tool.tierlock] table; init changes nothing",
            file=str(path),
            remedy="edit the table by hand, or run: tierlock tiers",
        )
    inferred = infer(
        data,
        path,
        groups=asked.groups,
        extras=asked.extras,
        all_groups=asked.all_groups,
        members=around.members,
        requires_of=around.requires_of,
        local_locked=around.local_locked,
    )
    found = around.census(_census_tiers(data, path, inferred)) if around.census is not None else None
    settle(inferred, found, around.existing_test_dirs)
    new_text, added = append(text, table(inferred), path)
    marker_file = marker_where = marker_text = None
    if asked.register_marker:
        edit = register(path.parent, text)
        if edit is not None:
            marker_file, marker_where = edit.file, edit.where
            if edit.file.name == "pyproject.toml":
                edited = edit.text.replace("\r\n", "\n").replace("\n", newline_of(text))
                new_text, added = append(edited, table(inferred), path)
            else:
                marker_text = edit.text
    parse_project(tomllib.loads(new_text), pyproject=path, text=new_text)  # the proposal must itself be valid
    return Proposal(bom + new_text, added, inferred, marker_file, marker_where, marker_text)


def _census_tiers(data: Mapping[str, Any], path: Path, inferred: Inferred) -> list[CensusTier]:
    """The proposed tiers as the census sees them: their import names, gating (so each need finds its tier)."""

    roots = census_roots(data, path, inferred)
    return [CensusTier(t, roots[t], (), required=True) for t, _ in inferred.tiers]


def add_sources(
    text: str,
    path: Path,
    asked: Asked,
    members: Mapping[NormalizedName, str] | None = None,
) -> tuple[list[tuple[str, str]], list[Skipped], str]:
    """Tiers for the groups and extras *asked* added to an existing ``[tool.tierlock.tiers]`` (lockable ones)."""
    import tomlkit

    bom = "\ufeff" if text.startswith("\ufeff") else ""
    text = text.removeprefix(bom)
    data = parse_toml(text, path)
    model = parse_project(data, pyproject=path, text=text)
    present = {t.source for t in model.tiers.values()}
    candidates: list[tuple[str, str]] = []
    for kind, names in (("extra", _wanted(data, path, "extra", asked)), ("group", _wanted(data, path, "group", asked))):
        for name in names:
            if f"{kind}:{name}" in present:
                continue
            tier = name if name not in model.tiers and name not in (t for t, _ in candidates) else f"{name}-{kind}"
            candidates.append((tier, f"{kind}:{name}"))
    requirements, skipped = lockable(data, path, candidates, local_packages(data, members))
    added = [(t, s) for t, s in candidates if t in requirements]
    document = tomlkit.parse(text)
    tierlock: Any = document["tool"]["tierlock"]
    if "tiers" not in tierlock:
        tierlock["tiers"] = tomlkit.table(is_super_table=True)
    for tier, source in added:
        body = tomlkit.table()
        body.add("source", source)
        tierlock["tiers"][tier] = body
    new_text = tomlkit.dumps(document)
    parse_project(tomllib.loads(new_text), pyproject=path, text=new_text)
    return added, skipped, bom + new_text


def _wanted(data: Mapping[str, Any], path: Path, kind: str, asked: Asked) -> list[str]:
    """The declared groups (or extras) *asked* names, canonical; a ConfigError for one that is not declared."""
    declared: list[str]
    wanted: list[str]
    if kind == "group":
        declared = list(dict.fromkeys(canonicalize_name(g) for g in (data.get("dependency-groups") or {})))
        wanted = declared if asked.all_groups else [canonicalize_name(g) for g in asked.groups]
        flag, what = "--groups", "dependency group"
    else:
        project = data.get("project", {}) if isinstance(data.get("project"), dict) else {}
        declared = list(dict.fromkeys(canonicalize_name(e) for e in (project.get("optional-dependencies") or {})))
        wanted = [canonicalize_name(e) for e in asked.extras]
        flag, what = "--extras", "extra"
    unknown = [g for g in wanted if g not in declared]
    if unknown:
        known = [g for g in wanted if g in declared]
        raise ConfigError(
            f"no {what} called {', '.join(unknown)} in {path}; {what}s: {', '.join(declared) or '(none)'}",
            file=str(path),
            remedy=f"tierlock init {flag} {' '.join(known)}" if known else "tierlock tiers",
        )
    return wanted


def add_groups(
    text: str,
    path: Path,
    groups: Collection[str],
    *,
    all_groups: bool = False,
    members: Mapping[NormalizedName, str] | None = None,
) -> tuple[list[tuple[str, str]], list[Skipped], str]:
    """Tiers for *groups* added to an existing ``[tool.tierlock.tiers]`` (see :func:`add_sources`)."""
    return add_sources(text, path, Asked(groups=groups, all_groups=all_groups), members)


def environment_requires(root: Path) -> dict[str, list[Any]]:
    """Requires-Dist of every distribution installed in the project's ``.venv`` (empty when there is none)."""

    out: dict[str, list[Any]] = {}
    for site in [*sorted((root / ".venv").glob("lib/python*/site-packages")), root / ".venv/Lib/site-packages"]:
        if not site.is_dir():
            continue
        for info in site.glob("*.dist-info"):
            try:
                headers = HeaderParser().parsestr((info / "METADATA").read_text(encoding="utf-8", errors="replace"))
            except OSError:
                continue
            name = headers.get("Name")
            if not name:
                continue
            reqs: list[Any] = []
            for line in headers.get_all("Requires-Dist") or []:
                try:
                    reqs.append(Requirement(line))
                except InvalidRequirement:
                    continue
            out[canonicalize_name(name)] = reqs
    return out


def test_dirs(root: Path) -> frozenset[str]:
    """Folders ``tests/<name>`` that exist under *root* (to propose test globs)."""
    tests = root / "tests"
    if not tests.is_dir():
        return frozenset()
    return frozenset(f"tests/{p.name}" for p in tests.iterdir() if p.is_dir())
