"""The keys of each ``[tool.tierlock.tiers.NAME]`` table, one reader per key.

``source`` (which extra or dependency group the tier's roots come from), ``layered-on`` (with the
cycle check across tiers), ``probe``, ``import-roots`` and ``tests``. A tier whose source declares
requirements always has something to probe: a source that names only the project itself, or an empty
``probe`` list beside requirements, is a configuration error rather than a tier that is "present"
with nothing checked.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from packaging.requirements import Requirement
from packaging.utils import NormalizedName, canonicalize_name

from tierlock.frozen import Frozen
from tierlock.tiers import projectmeta
from tierlock.tiers.model import BASE
from tierlock.tiers.projectmeta import Metadata
from tierlock.tiers.reader import Reader, type_name, valid_name

TIER_KEYS = ("source", "layered-on", "probe", "import-roots", "tests")
BASE_TIER_KEYS = ("probe", "import-roots", "tests")


class Source(Frozen):
    """Where a tier's roots come from, and what they are."""

    _fields = ("text", "requirements", "declared", "include_groups")

    text: str
    """``project.dependencies``, ``extra:NAME`` or ``group:NAME`` (NAME normalised)."""
    requirements: tuple[Requirement, ...]
    """The roots, with the project's self-references expanded and the project itself left out."""
    declared: tuple[Requirement, ...]
    """What the source lists (its includes resolved), before the self-references are expanded."""
    include_groups: tuple[NormalizedName, ...]

    def __init__(
        self,
        text: str,
        requirements: tuple[Requirement, ...] = (),
        declared: tuple[Requirement, ...] = (),
        include_groups: tuple[NormalizedName, ...] = (),
    ) -> None:
        self._init(text, requirements, declared, include_groups)


class Declared(Frozen):
    """One tier table as written, with the source read from it."""

    _fields = ("where", "body", "source")

    where: str
    body: Mapping[str, Any]
    source: Source

    def __init__(self, where: str, body: Mapping[str, Any], source: Source) -> None:
        self._init(where, body, source)


def declared_tiers(r: Reader, table: Mapping[str, Any], meta: Metadata) -> dict[NormalizedName, Declared]:
    """Every tier (``base`` first, then in declaration order) with its table and its source."""
    tiers_raw = table.get("tiers", {})
    if not isinstance(tiers_raw, dict):
        r.problem(f"must be a table of tiers, not {type_name(tiers_raw)}", "tool.tierlock", "tiers")
        tiers_raw = {}
    spelled = _tier_names(r, tiers_raw)
    out: dict[NormalizedName, Declared] = {}
    for norm in dict.fromkeys([BASE, *spelled]):
        where = f"tool.tierlock.tiers.{spelled.get(norm, norm)}"
        body = r.table(tiers_raw.get(spelled[norm], {}) if norm in spelled else {}, where)
        r.unknown_keys(body, BASE_TIER_KEYS if norm == BASE else TIER_KEYS, where)
        out[norm] = Declared(where, body, source(r, meta, norm, where, body))
    return out


def _tier_names(r: Reader, tiers_raw: Mapping[str, Any]) -> dict[NormalizedName, str]:
    """Normalised tier name -> its spelling; invalid names and second spellings reported."""
    spelled: dict[NormalizedName, str] = {}
    for raw in tiers_raw:
        if not valid_name(raw):
            message = f"{raw!r} is not a valid tier name (letters, digits, '.', '_', '-')"
            r.problem(message, f"tool.tierlock.tiers.{raw}")
            continue
        norm = canonicalize_name(raw)
        if norm in spelled:
            message = f"tier {raw!r} and tier {spelled[norm]!r} are two spellings of one name ({norm!r})"
            r.problem(message, f"tool.tierlock.tiers.{raw}")
            continue
        spelled[norm] = raw
    return spelled


def source(r: Reader, meta: Metadata, tier: NormalizedName, where: str, body: Mapping[str, Any]) -> Source:
    """``source``: the tier's roots (base: ``[project].dependencies``; default: the extra or group of its name)."""
    if tier == BASE:
        if "dependencies" in meta.dynamic:
            r.problem("the base tier needs static [project].dependencies, but they are dynamic", "project", "dynamic")
        return Source("project.dependencies", meta.dependencies, meta.dependencies)
    named = _kind_and_name(r, meta, tier, where, body.get("source"))
    if named is None:
        return Source("project.dependencies")
    kind, name = named
    include: tuple[NormalizedName, ...] = ()
    if kind == "extra":
        if "optional-dependencies" in meta.dynamic:
            message = "the extras are dynamic; tierlock needs static [project.optional-dependencies]"
            r.problem(message, "project", "dynamic")
        declared = meta.extras[name]
    else:
        declared, include = projectmeta.resolve_group(r, meta, name)
    return Source(f"{kind}:{name}", tuple(projectmeta.expand_self(declared, meta)), declared, include)


def _kind_and_name(
    r: Reader, meta: Metadata, tier: NormalizedName, where: str, value: object
) -> tuple[str, NormalizedName] | None:
    """("extra" or "group", its normalised name), or None when the source names none (the problem reported)."""
    if value is None:
        in_extra, in_group = tier in meta.extras, tier in meta.groups
        if in_extra and in_group:
            r.problem(
                f"{tier!r} is both an extra and a dependency group; say which with "
                f'source = "extra:{tier}" or source = "group:{tier}"',
                where,
            )
            return None
        if not (in_extra or in_group):
            r.problem(_no_source_message(tier, meta), where)
            return None
        return ("extra" if in_extra else "group"), tier
    if not isinstance(value, str) or ":" not in value:
        r.problem(f'must be "extra:NAME" or "group:NAME", not {value!r}', where, "source")
        return None
    kind, _, name_raw = value.partition(":")
    name = canonicalize_name(name_raw.strip())
    if kind not in ("extra", "group"):
        r.problem(f'must start with "extra:" or "group:", not {kind + ":"!r}', where, "source")
        return None
    if name not in (meta.extras if kind == "extra" else meta.groups):
        r.problem(_no_source_message(name, meta, kind), where, "source")
        return None
    return kind, name


def _no_source_message(name: str, meta: Metadata, kind: str | None = None) -> str:
    what = {"extra": "no extra", "group": "no dependency group"}.get(kind or "", "no extra or dependency group")
    return (
        f"{what} called {name!r}; extras: {', '.join(meta.extras) or '(none)'}; "
        f"dependency groups: {', '.join(meta.groups) or '(none)'}"
    )


def layers(r: Reader, tiers: Mapping[NormalizedName, Declared]) -> dict[NormalizedName, NormalizedName | None]:
    """``layered-on``: the tier each tier is layered on (default ``base``); a cycle is reported once."""
    out: dict[NormalizedName, NormalizedName | None] = {}
    for norm, info in tiers.items():
        out[norm] = None if norm == BASE else _layered_on(r, norm, info, tiers)
    reported: set[NormalizedName] = set()
    for norm in tiers:
        seen: list[NormalizedName] = []
        cur: NormalizedName | None = norm
        while cur is not None and cur not in seen:
            seen.append(cur)
            cur = out.get(cur)
        if cur is None:
            continue
        cycle = seen[seen.index(cur) :]
        if not reported.intersection(cycle):
            reported.update(cycle)
            path = " -> ".join([*cycle, cur])
            r.problem(f"layered-on forms a cycle: {path}", tiers[cycle[0]].where, "layered-on")
        for node in cycle:
            out[node] = BASE if node != BASE else None
    return out


def _layered_on(
    r: Reader, tier: NormalizedName, info: Declared, tiers: Mapping[NormalizedName, Declared]
) -> NormalizedName:
    raw = info.body.get("layered-on", "base")
    if not isinstance(raw, str):
        r.problem(f"must be a tier name, not {type_name(raw)}", info.where, "layered-on")
        return BASE
    layer = canonicalize_name(raw)
    if layer not in tiers:
        r.unknown_tier(raw, list(tiers), info.where, "layered-on")
        return BASE
    if layer == tier:
        r.problem("a tier cannot be layered on itself", info.where, "layered-on")
        return BASE
    return layer


def probe(r: Reader, info: Declared, project: NormalizedName | None) -> list[NormalizedName]:
    """``probe``: the distributions that must be consumable (default: the source's requirements)."""
    value = info.body.get("probe")
    default: list[NormalizedName] = []
    for req in info.source.requirements:
        dist = canonicalize_name(req.name)
        if dist != project and dist not in default:
            default.append(dist)
    declared = info.source.declared
    if value is None:
        if declared and not default:
            listed = ", ".join(str(d) for d in declared)
            r.problem(
                f"{info.source.text} declares requirements ({listed}) but leaves the tier nothing to probe: "
                "they name only the project itself",
                info.where,
            )
        return default
    items = r.string_list(value, info.where, "probe")
    if items is None:
        return []
    if not items and declared:
        instead = f"leave probe out to probe {', '.join(default)}" if default else "they name only the project"
        r.problem(
            f"is empty, but {info.source.text} declares {len(declared)} requirement(s): "
            f"name the distributions that must be consumable (or {instead})",
            info.where,
            "probe",
        )
    return r.distributions(items, info.where, "probe")


def import_roots(r: Reader, info: Declared) -> dict[NormalizedName, tuple[str, ...]]:
    """``import-roots``: distribution -> its top-level import names (a string is one name)."""
    value = info.body.get("import-roots")
    if value is None:
        return {}
    if not isinstance(value, dict):
        message = f"must be a table mapping a distribution to its import names, not {type_name(value)}"
        r.problem(message, info.where, "import-roots")
        return {}
    out: dict[NormalizedName, tuple[str, ...]] = {}
    spelled: dict[NormalizedName, str] = {}
    table = f"{info.where}.import-roots"
    for dist, names in value.items():
        if not valid_name(dist):
            r.problem(f"{dist!r} is not a valid distribution name", table, dist)
            continue
        norm = canonicalize_name(dist)
        if norm in spelled:
            r.problem(f"{dist!r} and {spelled[norm]!r} are two spellings of one distribution ({norm!r})", table, dist)
            continue
        spelled[norm] = dist
        items = r.string_list([names] if isinstance(names, str) else names, table, dist)
        if items is not None:
            out[norm] = _import_names(r, items, table, dist)
    return out


def _import_names(r: Reader, items: list[str], table: str, dist: str) -> tuple[str, ...]:
    good: list[str] = []
    for i, name in enumerate(items):
        if name.isidentifier():
            good.append(name)
        else:
            r.problem(f"{name!r} is not a top-level import name", table, dist, i)
    return tuple(good)


def tests(r: Reader, info: Declared) -> tuple[str, ...]:
    """``tests``: path globs, relative to the project root, of the test files that need the tier."""
    globs = r.string_list(info.body.get("tests", []), info.where, "tests") or []
    for i, glob in enumerate(globs):
        if not glob.strip():
            r.problem("must be a non-empty path glob", info.where, "tests", i)
        elif Path(glob).is_absolute() or glob.startswith(("/", "\\")):
            r.problem(f"must be relative to the project root, not {glob!r}", info.where, "tests", i)
    return tuple(globs)
