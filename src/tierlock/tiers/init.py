"""``tierlock init``: propose a [tool.tierlock] table a real project can lock, appended byte-exactly.

:func:`propose` is pure (pyproject text and what was read around it in, new
text out). It proposes every extra as a tier, dependency groups only when
asked (they are usually tooling: dev, docs, lint, tests), skips what cannot be
locked from a package index (saying why), layers a tier on another whose
roots its own contain, carries ``[tool.uv].conflicts`` over as
``conflicts``, and suggests ``tests`` globs from the test files that import or
importorskip a tier's import roots at module level. The table is built with
tomlkit and appended after the existing bytes, so comments, ordering,
quoting, blank lines and CRLF line endings elsewhere stay exactly as they were.
"""

from __future__ import annotations

import tomllib
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from packaging.utils import NormalizedName, canonicalize_name

from tierlock.errors import ConfigError
from tierlock.tiers.loader import parse_project, parse_toml
from tierlock.tiers.reach import local_packages, reached
from tierlock.tiers.testimports import globs_for

#: Distributions whose import name is not their project name with '-' as '_'.
KNOWN_IMPORT_NAMES: Mapping[str, tuple[str, ...]] = {
    "pyyaml": ("yaml",),
    "pillow": ("PIL",),
    "scikit-learn": ("sklearn",),
    "scikit-image": ("skimage",),
    "beautifulsoup4": ("bs4",),
    "python-dateutil": ("dateutil",),
    "opencv-python": ("cv2",),
    "opencv-python-headless": ("cv2",),
    "pyjwt": ("jwt",),
    "ibis-framework": ("ibis",),
    "cudf-cu12": ("cudf",),
    "cudf-cu11": ("cudf",),
    "attrs": ("attr", "attrs"),
    "protobuf": ("google",),
    "pymongo": ("pymongo", "bson", "gridfs"),
    "msgpack-python": ("msgpack",),
    "python-multipart": ("multipart",),
    "pycryptodome": ("Crypto",),
    "pytorch": ("torch",),
    "tensorflow-cpu": ("tensorflow",),
    "faiss-cpu": ("faiss",),
}

#: Group names that are tooling, not a part of the product (proposed only when asked).
TOOLING_WORDS = (
    "dev",
    "docs",
    "doc",
    "lint",
    "linting",
    "test",
    "tests",
    "testing",
    "typing",
    "types",
    "type",
    "mypy",
    "format",
    "style",
    "ci",
    "release",
    "build",
    "bench",
    "benchmark",
    "benchmarks",
    "coverage",
    "pre-commit",
    "tooling",
)


@dataclass(frozen=True)
class Skipped:
    name: str
    source: str
    reason: str


@dataclass(frozen=True)
class Proposal:
    text: str
    """The whole new pyproject.toml."""
    added: str
    """Just the bytes that were appended."""
    tiers: tuple[tuple[str, str], ...]
    """(tier name, source) pairs proposed."""
    skipped: tuple[Skipped, ...] = ()
    """Extras and chosen groups left out because they cannot be locked, with why."""
    groups_left_out: tuple[str, ...] = ()
    """Dependency groups not proposed because nobody asked for them."""
    layered: Mapping[str, str] = field(default_factory=dict)
    conflicts: tuple[tuple[str, ...], ...] = ()
    tests: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    marker_file: Path | None = None
    """Where the ``tier`` marker was registered (None: already registered or not asked)."""
    marker_where: str | None = None
    marker_text: str | None = None
    """The new text of *marker_file* when it is not pyproject.toml."""


def is_tooling(name: str) -> bool:
    """Whether a dependency group called *name* looks like tooling (dev, docs, lint, tests, ...)."""
    words = canonicalize_name(name).split("-")
    return any(w in TOOLING_WORDS for w in words)


def import_names(dist: str) -> tuple[str, ...]:
    """The top-level import names a distribution most likely provides (no import, no metadata)."""
    name = canonicalize_name(dist)
    return KNOWN_IMPORT_NAMES.get(name, (name.replace("-", "_"),))


def propose(
    text: str,
    path: Path,
    *,
    existing_test_dirs: frozenset[str] = frozenset(),
    groups: Collection[str] = (),
    all_groups: bool = False,
    members: Mapping[NormalizedName, str] | None = None,
    test_imports: Mapping[str, frozenset[str]] | None = None,
    register_marker: bool = False,
    requires_of: Mapping[str, Sequence[Any]] | None = None,
) -> Proposal:
    """Append a ``[tool.tierlock]`` table to the pyproject *text*."""
    import tomlkit

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
    project = data.get("project", {}) if isinstance(data.get("project"), dict) else {}
    # One tier per normalised name (PEP 685, PEP 735): two spellings of one extra are one extra.
    extras = list(dict.fromkeys(canonicalize_name(e) for e in (project.get("optional-dependencies") or {})))
    all_group_names = list(dict.fromkeys(canonicalize_name(g) for g in (data.get("dependency-groups") or {})))
    wanted_groups = {canonicalize_name(g) for g in groups}
    unknown = sorted(wanted_groups - set(all_group_names))
    if unknown:
        known = [g for g in all_group_names if g in wanted_groups]
        raise ConfigError(
            f"no dependency group called {', '.join(unknown)} in {path}; "
            f"groups: {', '.join(all_group_names) or '(none)'}",
            file=str(path),
            remedy=f"tierlock init --groups {' '.join(known)}" if known else "tierlock init",
        )
    chosen_groups = all_group_names if all_groups else [g for g in all_group_names if g in wanted_groups]
    left_out = tuple(g for g in all_group_names if g not in chosen_groups)

    candidates: list[tuple[str, str]] = []
    used: set[str] = {"base"}
    for kind, names in (("extra", extras), ("group", chosen_groups)):
        for name in names:
            tier = name if name not in used else f"{name}-{kind}"
            used.add(tier)
            candidates.append((tier, f"{kind}:{name}"))

    # What each candidate's roots are, as the loader reads them; what cannot be locked is skipped.
    local = local_packages(data, members)
    requirements, skipped = _roots(data, path, candidates, local)
    tiers = [(t, s) for t, s in candidates if t in requirements]
    names_of = {t: _keys(requirements[t]) for t, _ in tiers}
    conflicts = _conflicts(data, tiers)
    # Layers from closures where the project's environment knows them (installed metadata), else from roots.
    closures = {t: _closure(requirements[t], requires_of) | names_of[t] for t, _ in tiers} if requires_of else names_of
    layered = _layering(closures, conflicts)
    base_roots = {canonicalize_name(r.name) for r in _base(data, path)}
    tests: dict[str, tuple[str, ...]] = {}
    for tier, _ in tiers:
        below = names_of.get(layered[tier], set()) if tier in layered else set()
        own = {k.partition("[")[0] for k in names_of[tier] - below} - base_roots
        roots = {root for dist in own for root in import_names(dist)}
        globs = globs_for(roots, test_imports) if test_imports else []
        guess = f"tests/{tier}"
        if not globs and guess in existing_test_dirs:
            globs = [f"{guess}/**"]
        if globs:
            tests[tier] = tuple(globs)

    table = tomlkit.table(is_super_table=False)
    from tierlock.links import doc as doc_url

    table.add(tomlkit.comment(f"Dependency tiers, added by tierlock init; the keys: {doc_url('reference/config.md')}"))
    table.add("lock-dir", "lockfiles")
    table.add("format", "requirements")
    if conflicts:
        array = tomlkit.array()
        for group in conflicts:
            array.append(list(group))
        array.multiline(True)
        table.add(tomlkit.comment("Tiers never armed together (from [tool.uv].conflicts)."))
        table.add("conflicts", array)
    tiers_table = tomlkit.table(is_super_table=True)
    for tier, source in tiers:
        body = tomlkit.table()
        body.add("source", source)
        if tier in layered:
            body.add("layered-on", layered[tier])
        if tier in tests:
            globs = tomlkit.array()
            globs.extend(tests[tier])
            globs.multiline(len(tests[tier]) > 1)
            body.add("tests", globs)
        tiers_table.add(tier, body)
    table.add("tiers", tiers_table)
    doc = tomlkit.document()
    tool_table = tomlkit.table(is_super_table=True)
    tool_table.add("tierlock", table)
    doc.add("tool", tool_table)
    rendered = tomlkit.dumps(doc).strip("\n") + "\n"

    newline = "\r\n" if "\r\n" in text else "\n"
    added = rendered.replace("\n", newline)
    try:
        tomllib.loads(text + newline + added)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(
            f"cannot append [tool.tierlock] to {path}: its [tool] table is written inline or with dotted keys ({exc})",
            file=str(path),
            remedy="move the [tool] entries into [tool.NAME] tables, then run: tierlock init",
        ) from exc

    marker_file = marker_where = marker_text = None
    if register_marker:
        from tierlock.tiers.pytest_marker import register

        edit = register(path.parent, text)
        if edit is not None:
            marker_file, marker_where = edit.file, edit.where
            if edit.file.name == "pyproject.toml":
                text = edit.text.replace("\r\n", "\n").replace("\n", newline)
            else:
                marker_text = edit.text
    prefix = ""
    if text and not text.endswith("\n"):
        prefix = newline
    if text.strip():
        prefix += newline
    added = prefix + added
    new_text = text + added
    result = tomllib.loads(new_text)
    parse_project(result, pyproject=path, text=new_text)  # the proposal must itself be valid
    return Proposal(
        text=bom + new_text,
        added=added,
        tiers=tuple(tiers),
        skipped=tuple(skipped),
        groups_left_out=left_out,
        layered=layered,
        conflicts=conflicts,
        tests=tests,
        marker_file=marker_file,
        marker_where=marker_where,
        marker_text=marker_text,
    )


def add_groups(
    text: str,
    path: Path,
    groups: Collection[str],
    *,
    all_groups: bool = False,
    members: Mapping[NormalizedName, str] | None = None,
) -> tuple[list[tuple[str, str]], list[Skipped], str]:
    """Tiers for *groups* added to an existing ``[tool.tierlock.tiers]`` (those not yet tiers; lockable ones)."""
    import tomlkit

    bom = "\ufeff" if text.startswith("\ufeff") else ""
    text = text.removeprefix(bom)
    data = parse_toml(text, path)
    declared = [canonicalize_name(g) for g in (data.get("dependency-groups") or {})]
    wanted = declared if all_groups else [canonicalize_name(g) for g in groups]
    unknown = [g for g in wanted if g not in declared]
    if unknown:
        raise ConfigError(
            f"no dependency group called {', '.join(unknown)} in {path}; groups: {', '.join(declared) or '(none)'}",
            file=str(path),
            remedy="tierlock init --groups " + " ".join(g for g in wanted if g in declared)
            if len(unknown) < len(wanted)
            else "tierlock tiers",
        )
    model = parse_project(data, pyproject=path, text=text)
    present = {t.source for t in model.tiers.values()}
    candidates = []
    for name in wanted:
        if f"group:{name}" in present:
            continue
        tier = name if name not in model.tiers else f"{name}-group"
        candidates.append((tier, f"group:{name}"))
    requirements, skipped = _roots(data, path, candidates, local_packages(data, members))
    added = [(t, s) for t, s in candidates if t in requirements]
    document = tomlkit.parse(text)
    table: Any = document["tool"]["tierlock"]
    if "tiers" not in table:
        table["tiers"] = tomlkit.table(is_super_table=True)
    for tier, source in added:
        body = tomlkit.table()
        body.add("source", source)
        table["tiers"][tier] = body
    new_text = tomlkit.dumps(document)
    parse_project(tomllib.loads(new_text), pyproject=path, text=new_text)
    return added, skipped, bom + new_text


def _closure(requirements: Sequence[Any], requires_of: Mapping[str, Sequence[Any]]) -> set[str]:
    """Names reachable from *requirements* through the installed metadata in *requires_of* (pure).

    Universal, so it over-approximates: a dependency under a platform or
    Python marker counts; one under an ``extra`` marker counts only when that
    extra was asked for.
    """
    out: set[str] = set()
    stack = [(canonicalize_name(r.name), frozenset(canonicalize_name(e) for e in r.extras)) for r in requirements]
    seen: set[tuple[str, frozenset[str]]] = set()
    while stack:
        name, extras = stack.pop()
        if (name, extras) in seen:
            continue
        seen.add((name, extras))
        out.add(name)
        for req in requires_of.get(name, ()):
            marker = req.marker
            if marker is not None and "extra" in str(marker) and not any(_holds(marker, e) for e in extras):
                continue
            stack.append((canonicalize_name(req.name), frozenset(canonicalize_name(e) for e in req.extras)))
    return out


def _holds(marker: Any, extra: str) -> bool:
    try:
        return bool(marker.evaluate({"extra": extra}))
    except Exception:  # an undefined variable in an odd marker: not asked for
        return False


def environment_requires(root: Path) -> dict[str, list[Any]]:
    """Requires-Dist of every distribution installed in the project's ``.venv`` (empty when there is none)."""
    from email.parser import HeaderParser

    from packaging.requirements import InvalidRequirement, Requirement

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


def _keys(requirements: Sequence[Any]) -> set[str]:
    """A tier's roots as comparable keys: each name, plus ``name[extra]`` for each extra it asks for."""
    out: set[str] = set()
    for req in requirements:
        name = canonicalize_name(req.name)
        out.add(name)
        out.update(f"{name}[{canonicalize_name(e)}]" for e in req.extras)
    return out


def _base(data: Mapping[str, Any], path: Path) -> list[Any]:
    try:
        return list(parse_project(data, pyproject=path).tier("base").requirements)
    except ConfigError:
        return []


def _roots(
    data: Mapping[str, Any], path: Path, candidates: Sequence[tuple[str, str]], local: Mapping[str, str]
) -> tuple[dict[str, list[Any]], list[Skipped]]:
    """Each lockable candidate's roots (as the loader expands them); the others skipped with why."""
    out: dict[str, list[Any]] = {}
    skipped: list[Skipped] = []
    for tier, source in candidates:
        trial = _with_tiers(data, [(tier, source)])
        try:
            model = parse_project(trial, pyproject=path)
        except ConfigError as exc:
            reason = "; ".join(p.message for p in exc.problems) or exc.message
            skipped.append(Skipped(tier, source, f"it cannot be read: {reason}"))
            continue
        reqs = list(model.tiers[canonicalize_name(tier)].requirements)
        found = reached(reqs, local)
        if found is not None:
            name, what = found
            skipped.append(Skipped(tier, source, f"it reaches {name}, {what}, which no package index serves"))
            continue
        out[tier] = reqs
    return out, skipped


def _with_tiers(data: Mapping[str, Any], tiers: Sequence[tuple[str, str]]) -> dict[str, Any]:
    trial = dict(data)
    tool = dict(trial.get("tool") or {})
    tool["tierlock"] = {"tiers": {t: {"source": s} for t, s in tiers}}
    trial["tool"] = tool
    return trial


def _conflicts(data: Mapping[str, Any], tiers: Sequence[tuple[str, str]]) -> tuple[tuple[str, ...], ...]:
    """``[tool.uv].conflicts`` in tier names (sets with fewer than two proposed tiers are dropped)."""
    tool = data.get("tool")
    uv = tool.get("uv") if isinstance(tool, Mapping) else None
    declared = uv.get("conflicts") if isinstance(uv, Mapping) else None
    by_source = {source: tier for tier, source in tiers}
    out: list[tuple[str, ...]] = []
    for group in declared if isinstance(declared, list) else []:
        names: list[str] = []
        for item in group if isinstance(group, list) else []:
            if not isinstance(item, Mapping):
                continue
            for kind in ("extra", "group"):
                value = item.get(kind)
                if isinstance(value, str) and f"{kind}:{canonicalize_name(value)}" in by_source:
                    tier = by_source[f"{kind}:{canonicalize_name(value)}"]
                    if tier not in names:
                        names.append(tier)
        if len(names) >= 2 and tuple(names) not in out:
            out.append(tuple(names))
    return tuple(out)


def _layering(names_of: Mapping[str, set[str]], conflicts: Sequence[Sequence[str]]) -> dict[str, str]:
    """Tier -> the tier whose roots its own strictly contain (the largest such), unless declared in conflict."""
    exclusive = {frozenset((a, b)) for group in conflicts for a in group for b in group if a != b}
    out: dict[str, str] = {}
    for tier, names in names_of.items():
        best: str | None = None
        for other, others in names_of.items():
            if other == tier or not others or not others < names or frozenset((tier, other)) in exclusive:
                continue
            if best is None or len(others) > len(names_of[best]):
                best = other
        if best is not None:
            out[tier] = best
    return out


def test_dirs(root: Path) -> frozenset[str]:
    """Folders ``tests/<name>`` that exist under *root* (to propose test globs)."""
    tests = root / "tests"
    if not tests.is_dir():
        return frozenset()
    return frozenset(f"tests/{p.name}" for p in tests.iterdir() if p.is_dir())
