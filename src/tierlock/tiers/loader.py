"""Read and validate a project's tiers from pyproject.toml.

:func:`parse_project` is pure (a parsed TOML document in, a :class:`Project`
out); :func:`load_project` is the thin edge that finds and reads the file.
Validation collects every problem and raises one :class:`ConfigError`.
"""

from __future__ import annotations

import difflib
import re
import tomllib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from packaging.dependency_groups import DependencyGroupResolver
from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import NormalizedName, canonicalize_name

from tierlock.errors import ConfigError, Problem, ProblemCollector
from tierlock.tiers import lockkey
from tierlock.tiers.model import BASE, BackendName, LockFormat, Project, Tier

TOP_KEYS = ("lock-dir", "format", "backend", "ci-require", "conflicts", "tiers", "runtime", "venv", "census", "lock")
TIER_KEYS = ("source", "layered-on", "probe", "import-roots", "tests")
BASE_TIER_KEYS = ("probe", "import-roots", "tests")
FORMATS: tuple[LockFormat, ...] = ("requirements", "pylock")
BACKENDS: tuple[BackendName, ...] = ("auto", "uv", "pip")

_NAME_RE = re.compile(r"^([A-Z0-9]|[A-Z0-9][A-Z0-9._-]*[A-Z0-9])$", re.IGNORECASE)
_TOML_POS_RE = re.compile(r"\(at line (\d+), column (\d+)\)")


def find_pyproject(start: Path) -> Path:
    """The nearest ``pyproject.toml`` at or above *start*."""
    start = start.resolve()
    if start.is_file():
        return start
    for folder in (start, *start.parents):
        candidate = folder / "pyproject.toml"
        if candidate.is_file():
            return candidate
    raise ConfigError(
        f"no pyproject.toml in {start} or any folder above it",
        remedy="run tierlock inside a project, or pass --project DIR",
    )


def load_project(path: str | Path = ".") -> Project:
    """Load the tiers of the project at *path* (a folder or a pyproject.toml).

    A folder without a pyproject.toml is searched upward, like pip and uv do.
    """
    pyproject = find_pyproject(Path(path))
    try:
        text = pyproject.read_text(encoding="utf-8-sig")
    except OSError as exc:
        raise ConfigError(f"cannot read {pyproject}: {exc.strerror}", file=str(pyproject)) from exc
    except UnicodeDecodeError as exc:
        raise ConfigError(
            f"{pyproject} is not UTF-8 text ({exc.reason} at byte {exc.start})", file=str(pyproject)
        ) from exc
    return parse_project(parse_toml(text, pyproject), pyproject=pyproject, text=text)


def parse_toml(text: str, path: Path) -> dict[str, Any]:
    """Parse TOML text, turning a syntax error into a ConfigError with line and column."""
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        message = str(exc)
        line = column = None
        match = _TOML_POS_RE.search(message)
        if match:
            line, column = int(match.group(1)), int(match.group(2))
            message = _TOML_POS_RE.sub("", message).strip()
        problem = Problem(f"invalid TOML: {message}", file=str(path), line=line, column=column)
        raise ConfigError(
            f"{path} is not valid TOML",
            file=str(path),
            line=line,
            problems=[problem],
            remedy=f"fix the syntax at line {line}, column {column}" if line else "fix the TOML syntax",
        ) from exc
    except (ValueError, RecursionError) as exc:  # an integer of over 4300 digits, nesting past the recursion limit
        line, what = _unreadable_at(text, exc)
        problem = Problem(f"cannot be read: {what}", file=str(path), line=line, column=1)
        raise ConfigError(
            f"{path} cannot be read as TOML: {what}",
            file=str(path),
            line=line,
            problems=[problem],
            remedy=f"shorten what starts at line {line}" if line else "shorten the document's values and nesting",
        ) from exc


def _unreadable_at(text: str, exc: BaseException) -> tuple[int | None, str]:
    """Where a valid-looking document defeats the parser, and why (found by a linear scan, never a regex)."""
    if isinstance(exc, RecursionError):
        depth = 0
        for i, char in enumerate(text):
            if char in "[{":
                depth += 1
                if depth > 100:
                    return text.count("\n", 0, i) + 1, "nesting deeper than 100 levels"
            elif char in "]}":
                depth = max(0, depth - 1)
        return None, "nesting too deep"
    run = 0
    for i, char in enumerate(text):
        run = run + 1 if char.isdigit() or (char == "_" and run) else 0
        if run > 4300:
            return text.count("\n", 0, i) + 1, "an integer of more than 4300 digits"
    return None, "a value Python cannot convert"


def where_key(table: str, key: str | None = None, index: int | None = None) -> str:
    """Render a TOML place such as ``[tool.tierlock.tiers.brain].probe[1]``."""
    text = f"[{table}]"
    if key is not None:
        text += f".{_toml_key(key)}"
    if index is not None:
        text += f"[{index}]"
    return text


def _toml_key(key: str) -> str:
    return key if re.fullmatch(r"[A-Za-z0-9_-]+", key) else f'"{key}"'


def _locate(text: str, table: str, key: str | None) -> int | None:
    """Best-effort line number of *key* inside ``[table]`` (or of the header)."""
    parts = [re.escape(p) for p in table.split(".")]
    header = re.compile(r"^\s*\[\s*" + r"\s*\.\s*".join(f'"?{p}"?' for p in parts) + r"\s*\]\s*(#.*)?$")
    lines = text.splitlines()
    for number, line in enumerate(lines, start=1):
        if header.match(line):
            if key is None:
                return number
            key_re = re.compile(r"^\s*\"?" + re.escape(key) + r"\"?\s*=")
            for offset, later in enumerate(lines[number:], start=number + 1):
                if re.match(r"^\s*\[", later):
                    return None
                if key_re.match(later):
                    return offset
            return None
    return None


class _Reader:
    """Accumulates problems while reading one pyproject document."""

    def __init__(self, pyproject: Path, text: str) -> None:
        self.pyproject = pyproject
        self.text = text
        self.errors = ProblemCollector()

    def problem(
        self, message: str, table: str, key: str | None = None, index: int | None = None, hint: str | None = None
    ) -> None:
        line = _locate(self.text, table, key) if self.text else None
        self.errors.add(message, where_key(table, key, index), file=str(self.pyproject), line=line, hint=hint)

    def unknown_tier(self, written: str, known: Sequence[str], table: str, key: str, index: int | None = None) -> None:
        """A tier name that names no declared tier, with the closest one as a hint."""
        close = difflib.get_close_matches(canonicalize_name(written), list(known), n=1)
        self.problem(
            f"unknown tier {written!r}; declared tiers: {', '.join(known)}",
            table,
            key,
            index,
            hint=f"did you mean {close[0]!r}?" if close else None,
        )

    def string_list(self, value: object, table: str, key: str) -> list[str] | None:
        if not isinstance(value, list):
            self.problem(f"must be an array of strings, not {_type(value)}", table, key)
            return None
        out: list[str] = []
        for i, item in enumerate(value):
            if isinstance(item, str):
                out.append(item)
            else:
                self.problem(f"must be a string, not {_type(item)}", table, key, i)
        return out

    def unknown_keys(self, table_value: Mapping[str, object], allowed: Sequence[str], table: str) -> None:
        for key in table_value:
            if key not in allowed:
                close = difflib.get_close_matches(key, allowed, n=1)
                hint = f"did you mean {close[0]!r}?" if close else f"known keys: {', '.join(allowed)}"
                self.problem(f"unknown key {key!r}", table, key, hint=hint)

    def requirements(self, values: object, table: str, key: str | None) -> list[Requirement]:
        out: list[Requirement] = []
        if not isinstance(values, list):
            self.problem(f"must be an array of requirement strings, not {_type(values)}", table, key)
            return out
        for i, item in enumerate(values):
            if not isinstance(item, str):
                self.problem(f"must be a requirement string, not {_type(item)}", table, key, i)
                continue
            try:
                out.append(Requirement(item))
            except InvalidRequirement as exc:
                self.problem(f"invalid requirement {item!r}: {exc}", table, key, i)
        return out


def _type(value: object) -> str:
    return {
        str: "a string",
        int: "an integer",
        float: "a float",
        bool: "a boolean",
        list: "an array",
        dict: "a table",
    }.get(type(value), type(value).__name__)


def _valid_name(name: str) -> bool:
    return bool(_NAME_RE.match(name))


def parse_project(data: Mapping[str, Any], *, pyproject: Path, text: str = "") -> Project:
    """Build the :class:`Project` from a parsed pyproject document (pure)."""
    r = _Reader(pyproject, text)
    root = pyproject.parent
    project_table = data.get("project", {})
    if not isinstance(project_table, dict):
        r.problem(f"must be a table, not {_type(project_table)}", "project")
        project_table = {}
    raw_name = project_table.get("name")
    project_name = canonicalize_name(raw_name) if isinstance(raw_name, str) else None
    requires_python = project_table.get("requires-python")
    if requires_python is not None and not isinstance(requires_python, str):
        r.problem("must be a string", "project", "requires-python")
        requires_python = None
    dynamic = project_table.get("dynamic", [])
    dynamic = dynamic if isinstance(dynamic, list) else []

    # Standard metadata: base, extras, groups.
    base_reqs = r.requirements(project_table.get("dependencies", []), "project", "dependencies")
    extras_raw = project_table.get("optional-dependencies", {})
    extras: dict[NormalizedName, tuple[str, list[Requirement]]] = {}
    if not isinstance(extras_raw, dict):
        r.problem(f"must be a table, not {_type(extras_raw)}", "project", "optional-dependencies")
        extras_raw = {}
    for extra, extra_reqs in extras_raw.items():
        extras[canonicalize_name(extra)] = (extra, r.requirements(extra_reqs, "project.optional-dependencies", extra))
    groups_raw = data.get("dependency-groups", {})
    if not isinstance(groups_raw, dict):
        r.problem(f"must be a table, not {_type(groups_raw)}", "dependency-groups")
        groups_raw = {}
    groups = {canonicalize_name(g): g for g in groups_raw}

    tool = data.get("tool", {})
    tool = tool if isinstance(tool, dict) else {}
    configured = "tierlock" in tool
    table = tool.get("tierlock", {})
    if not isinstance(table, dict):
        r.problem(f"must be a table, not {_type(table)}", "tool", "tierlock")
        table = {}
    r.unknown_keys(table, TOP_KEYS, "tool.tierlock")
    own_lock = lockkey.read(r, data, table, root)  # [tool.tierlock].lock: the project's uv.lock or pylock

    lock_dir_raw = table.get("lock-dir", "lockfiles")
    if not isinstance(lock_dir_raw, str) or not lock_dir_raw.strip():
        r.problem("must be a non-empty string (a folder relative to the project root)", "tool.tierlock", "lock-dir")
        lock_dir_raw = "lockfiles"
    lock_dir = root / lock_dir_raw
    fmt = table.get("format", "requirements")
    if fmt not in FORMATS:
        close = difflib.get_close_matches(str(fmt), FORMATS, n=1)
        r.problem(
            f"must be one of {', '.join(FORMATS)}, not {fmt!r}",
            "tool.tierlock",
            "format",
            hint=f"did you mean {close[0]!r}?" if close else None,
        )
        fmt = "requirements"
    backend = table.get("backend", "auto")
    if backend not in BACKENDS:
        close = difflib.get_close_matches(str(backend), BACKENDS, n=1)
        r.problem(
            f"must be one of {', '.join(BACKENDS)}, not {backend!r}",
            "tool.tierlock",
            "backend",
            hint=f"did you mean {close[0]!r}?" if close else None,
        )
        backend = "auto"
    venv = table.get("venv")
    if venv is not None and (not isinstance(venv, str) or not venv.strip()):
        r.problem("must be a non-empty string (a folder relative to the project root)", "tool.tierlock", "venv")
        venv = None
    runtime = table.get("runtime")
    if runtime is not None and not isinstance(runtime, dict):
        r.problem(f"must be a table, not {_type(runtime)}", "tool.tierlock", "runtime")
        runtime = None

    tiers_raw = table.get("tiers", {})
    if not isinstance(tiers_raw, dict):
        r.problem(f"must be a table of tiers, not {_type(tiers_raw)}", "tool.tierlock", "tiers")
        tiers_raw = {}

    # Names: valid and one spelling each.
    spelled: dict[NormalizedName, str] = {}
    for raw in tiers_raw:
        if not _valid_name(raw):
            r.problem(
                f"{raw!r} is not a valid tier name (letters, digits, '.', '_', '-')", f"tool.tierlock.tiers.{raw}"
            )
            continue
        norm = canonicalize_name(raw)
        if norm in spelled:
            r.problem(
                f"tier {raw!r} and tier {spelled[norm]!r} are two spellings of one name ({norm!r})",
                f"tool.tierlock.tiers.{raw}",
            )
            continue
        spelled[norm] = raw

    resolver = DependencyGroupResolver(groups_raw) if groups_raw else None
    built: dict[NormalizedName, dict[str, Any]] = {}
    for norm in dict.fromkeys([BASE, *spelled]):  # base first, then in declaration order
        where = f"tool.tierlock.tiers.{spelled.get(norm, norm)}"
        body = tiers_raw.get(spelled[norm], {}) if norm in spelled else {}
        if not isinstance(body, dict):
            r.problem(f"must be a table, not {_type(body)}", where)
            body = {}
        is_base = norm == BASE
        r.unknown_keys(body, BASE_TIER_KEYS if is_base else TIER_KEYS, where)
        source = "project.dependencies"
        reqs: list[Requirement] = []
        include_groups: tuple[str, ...] = ()
        if is_base:
            reqs = base_reqs
            if "dependencies" in dynamic:
                r.problem(
                    "the base tier needs static [project].dependencies, but they are dynamic", "project", "dynamic"
                )
        else:
            source_raw = body.get("source")
            kind = name = None
            if source_raw is None:
                in_extra, in_group = norm in extras, norm in groups
                if in_extra and in_group:
                    r.problem(
                        f"{norm!r} is both an extra and a dependency group; say which with "
                        f'source = "extra:{norm}" or source = "group:{norm}"',
                        where,
                    )
                elif in_extra:
                    kind, name = "extra", norm
                elif in_group:
                    kind, name = "group", norm
                else:
                    r.problem(_no_source_message(norm, extras, groups), where)
            elif not isinstance(source_raw, str) or ":" not in source_raw:
                r.problem(f'must be "extra:NAME" or "group:NAME", not {source_raw!r}', where, "source")
            else:
                kind, _, name_raw = source_raw.partition(":")
                name = canonicalize_name(name_raw.strip())
                if kind not in ("extra", "group"):
                    r.problem(f'must start with "extra:" or "group:", not {kind + ":"!r}', where, "source")
                    kind = None
                elif (kind == "extra" and name not in extras) or (kind == "group" and name not in groups):
                    r.problem(_no_source_message(name, extras, groups, kind), where, "source")
                    kind = None
            if kind == "extra" and name is not None:
                source = f"extra:{name}"
                if "optional-dependencies" in dynamic:
                    r.problem(
                        "the extras are dynamic; tierlock needs static [project.optional-dependencies]",
                        "project",
                        "dynamic",
                    )
                reqs = _expand_self(extras[name][1], project_name, extras)
            elif kind == "group" and name is not None:
                source = f"group:{name}"
                raw_group = groups[name]
                reqs, include_groups = _resolve_group(r, resolver, raw_group, groups_raw)
                reqs = _expand_self(reqs, project_name, extras)
        built[norm] = {"where": where, "body": body, "source": source, "reqs": reqs, "include_groups": include_groups}

    # layered-on
    layers: dict[NormalizedName, NormalizedName | None] = {}
    for norm, info in built.items():
        if norm == BASE:
            layers[norm] = None
            continue
        raw_layer = info["body"].get("layered-on", "base")
        if not isinstance(raw_layer, str):
            r.problem(f"must be a tier name, not {_type(raw_layer)}", info["where"], "layered-on")
            layers[norm] = BASE
            continue
        layer = canonicalize_name(raw_layer)
        if layer not in built:
            r.unknown_tier(raw_layer, list(built), info["where"], "layered-on")
            layers[norm] = BASE
        elif layer == norm:
            r.problem("a tier cannot be layered on itself", info["where"], "layered-on")
            layers[norm] = BASE
        else:
            layers[norm] = layer
    reported: set[NormalizedName] = set()
    for norm in built:
        seen: list[NormalizedName] = []
        cur: NormalizedName | None = norm
        while cur is not None and cur not in seen:
            seen.append(cur)
            cur = layers.get(cur)
        if cur is not None:
            cycle = seen[seen.index(cur) :]
            if not reported.intersection(cycle):
                reported.update(cycle)
                path = " -> ".join([*cycle, cur])
                r.problem(f"layered-on forms a cycle: {path}", built[cycle[0]]["where"], "layered-on")
            for node in cycle:
                layers[node] = BASE if node != BASE else None

    # probe, import-roots, tests
    tiers: dict[NormalizedName, Tier] = {}
    ci_require_raw = table.get("ci-require")
    for norm, info in built.items():
        body, where, tier_reqs = info["body"], info["where"], info["reqs"]
        probe = _names(r, body.get("probe"), where, "probe")
        if probe is None:
            probe = []
            for req in tier_reqs:
                dist = canonicalize_name(req.name)
                if dist != project_name and dist not in probe:
                    probe.append(dist)
        import_roots = _import_roots(r, body.get("import-roots"), where)
        tests_raw = body.get("tests", [])
        tests = r.string_list(tests_raw, where, "tests") or []
        for i, glob in enumerate(tests):
            if not glob.strip():
                r.problem("must be a non-empty path glob", where, "tests", i)
            elif Path(glob).is_absolute() or glob.startswith(("/", "\\")):
                r.problem(f"must be relative to the project root, not {glob!r}", where, "tests", i)
        suffix = ".txt" if fmt == "requirements" else ".toml"
        lockfile = own_lock.path or lock_dir / (
            f"{norm}{suffix}" if fmt == "requirements" else f"pylock.{norm}{suffix}"
        )
        tiers[norm] = Tier(
            name=norm,
            source=info["source"],
            requirements=tuple(tier_reqs),
            layered_on=layers.get(norm),
            probe=tuple(probe),
            import_roots=import_roots,
            tests=tuple(tests),
            lockfile=lockfile,
            ci_required=False,
            include_groups=info["include_groups"],
        )

    if ci_require_raw is None:
        ci_require = [t.name for t in tiers.values() if t.tests]
    else:
        ci_require = []
        values = r.string_list(ci_require_raw, "tool.tierlock", "ci-require") or []
        for i, value in enumerate(values):
            name = canonicalize_name(value)
            if name not in tiers:
                r.unknown_tier(value, list(tiers), "tool.tierlock", "ci-require", i)
            elif name in ci_require:
                r.problem(f"tier {value!r} is listed twice", "tool.tierlock", "ci-require", i)
            else:
                ci_require.append(name)

    conflicts = _conflicts(r, table.get("conflicts"), tiers)
    if own_lock.path is not None and own_lock.path.name == "uv.lock":
        sources = {name: tier.source for name, tier in tiers.items()}
        conflicts += tuple(c for c in lockkey.uv_conflicts(data, project_name, sources) if c not in conflicts)

    if r.errors:
        raise ConfigError(
            f"{pyproject}: {len(r.errors.problems)} problem(s) in the tier declarations",
            file=str(pyproject),
            problems=r.errors.problems,
            remedy=f"edit {pyproject.name} as described above, then run: tierlock tiers",
        )
    final = {n: replace(t, ci_required=n in ci_require) for n, t in tiers.items()}
    return Project(
        root=root,
        pyproject=pyproject,
        name=project_name,
        requires_python=requires_python,
        tiers=final,
        lock_dir=lock_dir,
        format=fmt,
        backend=backend,
        ci_require=tuple(ci_require),
        configured=configured,
        runtime=runtime,
        conflicts=conflicts,
        venv=venv,
        lock=own_lock.path,
        package=own_lock.package,
        version=own_lock.version,
    )


def _no_source_message(name: str, extras: Iterable[str], groups: Iterable[str], kind: str | None = None) -> str:
    what = {"extra": "no extra", "group": "no dependency group"}.get(kind or "", "no extra or dependency group")
    return (
        f"{what} called {name!r}; extras: {', '.join(extras) or '(none)'}; "
        f"dependency groups: {', '.join(groups) or '(none)'}"
    )


def _reason(exc: BaseException) -> str:
    """What went wrong, from the leaves of an exception group (packaging wraps its reasons in one)."""
    if isinstance(exc, BaseExceptionGroup):
        return "; ".join(_reason(e) for e in exc.exceptions)
    return str(exc)


def _resolve_group(
    r: _Reader, resolver: DependencyGroupResolver | None, group: str, groups_raw: Mapping[str, Any]
) -> tuple[list[Requirement], tuple[str, ...]]:
    if resolver is None:
        return [], ()
    try:
        resolved = resolver.resolve(group)
    except Exception as exc:  # packaging raises ValueError/TypeError subclasses
        r.problem(f"cannot resolve dependency group: {_reason(exc)}", "dependency-groups", group)
        return [], ()
    included: list[str] = []
    stack = [group]
    while stack:
        g = stack.pop()
        for item in groups_raw.get(g, []) or []:
            if isinstance(item, dict) and isinstance(item.get("include-group"), str):
                inc = item["include-group"]
                match = next((k for k in groups_raw if canonicalize_name(k) == canonicalize_name(inc)), inc)
                if match not in included:
                    included.append(match)
                    stack.append(match)
    return list(resolved), tuple(included)


def _expand_self(
    reqs: list[Requirement],
    project: NormalizedName | None,
    extras: Mapping[NormalizedName, tuple[str, list[Requirement]]],
) -> list[Requirement]:
    """Replace ``project[extra]`` self-references with that extra's requirements."""
    if project is None:
        return reqs
    out: list[Requirement] = []
    seen: set[str] = set()
    seen_extras: set[NormalizedName] = set()

    def add(items: list[Requirement]) -> None:
        for req in items:
            if canonicalize_name(req.name) == project:
                for extra in sorted(req.extras):
                    key = canonicalize_name(extra)
                    if key in extras and key not in seen_extras:
                        seen_extras.add(key)
                        add(extras[key][1])
            elif str(req) not in seen:
                seen.add(str(req))
                out.append(req)

    add(reqs)
    return out


def _names(r: _Reader, value: object, where: str, key: str) -> list[NormalizedName] | None:
    if value is None:
        return None
    items = r.string_list(value, where, key)
    if items is None:
        return []
    out: list[NormalizedName] = []
    spelled: dict[NormalizedName, str] = {}
    for i, item in enumerate(items):
        if not _valid_name(item):
            r.problem(f"{item!r} is not a valid distribution name", where, key, i)
            continue
        norm = canonicalize_name(item)
        if norm in spelled:
            r.problem(f"{item!r} and {spelled[norm]!r} are two spellings of one distribution ({norm!r})", where, key, i)
            continue
        spelled[norm] = item
        out.append(norm)
    return out


def _import_roots(r: _Reader, value: object, where: str) -> dict[NormalizedName, tuple[str, ...]]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        r.problem(
            f"must be a table mapping a distribution to its import names, not {_type(value)}", where, "import-roots"
        )
        return {}
    out: dict[NormalizedName, tuple[str, ...]] = {}
    spelled: dict[NormalizedName, str] = {}
    table = f"{where}.import-roots"
    for dist, names in value.items():
        if not _valid_name(dist):
            r.problem(f"{dist!r} is not a valid distribution name", table, dist)
            continue
        norm = canonicalize_name(dist)
        if norm in spelled:
            r.problem(f"{dist!r} and {spelled[norm]!r} are two spellings of one distribution ({norm!r})", table, dist)
            continue
        spelled[norm] = dist
        if isinstance(names, str):
            names = [names]
        items = r.string_list(names, table, dist)
        if items is None:
            continue
        good: list[str] = []
        for i, name in enumerate(items):
            if not name.isidentifier():
                r.problem(f"{name!r} is not a top-level import name", table, dist, i)
            else:
                good.append(name)
        out[norm] = tuple(good)
    return out


def _conflicts(
    r: _Reader, value: object, tiers: Mapping[NormalizedName, Tier]
) -> tuple[frozenset[NormalizedName], ...]:
    """``conflicts = [["polars", "pandas"]]``: sets of tiers never armed together (like ``[tool.uv].conflicts``)."""
    if value is None:
        return ()
    if not isinstance(value, list):
        r.problem(f"must be an array of arrays of tier names, not {_type(value)}", "tool.tierlock", "conflicts")
        return ()
    out: list[frozenset[NormalizedName]] = []
    for i, item in enumerate(value):
        if not isinstance(item, list):
            r.problem(
                f'must be an array of tier names such as ["a", "b"], not {_type(item)}',
                "tool.tierlock",
                "conflicts",
                i,
            )
            continue
        names: list[NormalizedName] = []
        before = len(r.errors.problems)
        for entry in item:
            if not isinstance(entry, str):
                r.problem(f"must hold tier names (strings), not {_type(entry)}", "tool.tierlock", "conflicts", i)
                continue
            name = canonicalize_name(entry)
            if name not in tiers:
                r.unknown_tier(entry, list(tiers), "tool.tierlock", "conflicts", i)
            elif name == BASE:
                r.problem("base is part of every tier; it cannot conflict with one", "tool.tierlock", "conflicts", i)
            elif name not in names:
                names.append(name)
        if len(names) < 2 and len(r.errors.problems) == before:
            r.problem("a conflict set needs at least two different tiers", "tool.tierlock", "conflicts", i)
        elif len(names) >= 2:
            out.append(frozenset(names))
    return tuple(out)
