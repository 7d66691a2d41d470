"""The standard metadata a project's tiers come from: ``[project]`` and ``[dependency-groups]``, one reader per key.

Names are compared the way the standards say: extras as in PEP 685, dependency groups as in PEP 735 (both
lowercased, with every run of ``-``, ``_`` and ``.`` as one ``-``).

* **Two declarations of one extra** (SQLAlchemy keeps ``postgresql-psycopg2binary`` beside its legacy
  spelling ``postgresql_psycopg2binary``) are one extra holding the requirements of both, in declaration
  order. That is the project at install time: setuptools writes both lists under the one normalised
  ``Provides-Extra``, and pip installs their union for ``pip install 'sqlalchemy[postgresql_psycopg2binary]'``.
* **Two dependency groups of one normalised name** are refused with both lines named: ``packaging``, pip
  (``--group``) and uv all refuse such a ``[dependency-groups]`` table, so no install could use it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from packaging.requirements import Requirement
from packaging.utils import NormalizedName, canonicalize_name

from tierlock.frozen import Frozen
from tierlock.tiers.reader import Reader, type_name

if TYPE_CHECKING:
    from packaging.dependency_groups import DependencyGroupResolver

EXTRAS_TABLE = "project.optional-dependencies"
GROUPS_TABLE = "dependency-groups"


class Metadata(Frozen):
    """What ``[project]`` and ``[dependency-groups]`` declare, names normalised."""

    _fields = ("name", "requires_python", "dynamic", "dependencies", "extras", "groups", "group_table", "resolver")

    name: NormalizedName | None
    requires_python: str | None
    dynamic: tuple[str, ...]
    dependencies: tuple[Requirement, ...]
    extras: Mapping[NormalizedName, tuple[Requirement, ...]]
    """Each normalised extra -> the requirements of every declaration of it, in order, each once."""
    groups: Mapping[NormalizedName, str]
    """Each normalised group -> its spelling in ``[dependency-groups]``."""
    group_table: Mapping[str, Any]
    """``[dependency-groups]`` without the refused second spellings."""
    resolver: DependencyGroupResolver | None

    def __init__(  # noqa: PLR0917 (the signature it had as a dataclass)
        self,
        name: NormalizedName | None,
        requires_python: str | None,
        dynamic: tuple[str, ...],
        dependencies: tuple[Requirement, ...],
        extras: Mapping[NormalizedName, tuple[Requirement, ...]],
        groups: Mapping[NormalizedName, str],
        group_table: Mapping[str, Any],
        resolver: DependencyGroupResolver | None,
    ) -> None:
        self._init(name, requires_python, dynamic, dependencies, extras, groups, group_table, resolver)


def read_metadata(r: Reader, data: Mapping[str, Any]) -> Metadata:
    """Read the standard metadata of the parsed pyproject *data*, reporting problems through *r*; a project
    whose dependencies only Poetry's tables hold is refused (:mod:`tierlock.tiers.elsewhere`)."""
    _refuse_poetry_only(r, data)
    project = r.table(data.get("project", {}), "project")
    requires_python = _requires_python(r, project)
    dependencies = r.requirements(project.get("dependencies", []), "project", "dependencies")
    extras = _extras(r, project)
    groups, group_table = _groups(r, data)
    return Metadata(
        name=_name(project),
        requires_python=requires_python,
        dynamic=_dynamic(project),
        dependencies=tuple(dependencies),
        extras=extras,
        groups=groups,
        group_table=group_table,
        resolver=_resolver(group_table),
    )


def _refuse_poetry_only(r: Reader, data: Mapping[str, Any]) -> None:
    if "project" in data or "tool" not in data:
        return
    from tierlock.tiers import elsewhere

    found = elsewhere.poetry(data)
    if found is not None:
        from tierlock.errors import ConfigError

        raise ConfigError(
            f"{r.pyproject}: {elsewhere.message(found)}",
            file=str(r.pyproject),
            line=r.line_of("tool.poetry.dependencies", None),
            remedy=found.remedy("tierlock tiers", r.pyproject.parent),
        )


def _name(project: Mapping[str, Any]) -> NormalizedName | None:
    raw = project.get("name")
    return canonicalize_name(raw) if isinstance(raw, str) else None


def _requires_python(r: Reader, project: Mapping[str, Any]) -> str | None:
    value = project.get("requires-python")
    if value is None or isinstance(value, str):
        return value
    r.problem("must be a string", "project", "requires-python")
    return None


def _dynamic(project: Mapping[str, Any]) -> tuple[str, ...]:
    value = project.get("dynamic", [])
    return tuple(v for v in value if isinstance(v, str)) if isinstance(value, list) else ()


def _extras(r: Reader, project: Mapping[str, Any]) -> dict[NormalizedName, tuple[Requirement, ...]]:
    """Every extra by its normalised name; the declarations of one name are merged (see the module docstring)."""
    table = project.get("optional-dependencies", {})
    if not isinstance(table, dict):
        r.problem(f"must be a table, not {type_name(table)}", "project", "optional-dependencies")
        table = {}
    merged: dict[NormalizedName, dict[str, Requirement]] = {}
    for extra, values in table.items():
        into = merged.setdefault(canonicalize_name(extra), {})
        for req in r.requirements(values, EXTRAS_TABLE, extra):
            into.setdefault(str(req), req)
    return {name: tuple(reqs.values()) for name, reqs in merged.items()}


def _groups(r: Reader, data: Mapping[str, Any]) -> tuple[dict[NormalizedName, str], dict[str, Any]]:
    """Normalised group -> its spelling, and the table without second spellings (each refused at its line)."""
    table = data.get(GROUPS_TABLE, {})
    if not isinstance(table, dict):
        r.problem(f"must be a table, not {type_name(table)}", GROUPS_TABLE)
        table = {}
    spelled: dict[NormalizedName, str] = {}
    kept: dict[str, Any] = {}
    for group, value in table.items():
        norm = canonicalize_name(group)
        first = spelled.get(norm)
        if first is None:
            spelled[norm] = group
            kept[group] = value
            continue
        r.problem(
            f"dependency groups {_at(r, group)} and {_at(r, first)} are two spellings of one name ({norm!r}), "
            "which pip and uv refuse: merge them into one group",
            GROUPS_TABLE,
            group,
        )
    return spelled, kept


def _at(r: Reader, group: str) -> str:
    line = r.line_of(GROUPS_TABLE, group)
    return f"{group!r} (line {line})" if line is not None else repr(group)


def _resolver(table: Mapping[str, Any]) -> DependencyGroupResolver | None:
    """The resolver of *table*; its only check at construction, two spellings of one name, was made above
    (each group's own problems are found when it is resolved, :func:`resolve_group`)."""
    if not table:
        return None
    from packaging.dependency_groups import DependencyGroupResolver  # (only a project that has groups loads it)

    return DependencyGroupResolver(table)


def _reason(exc: BaseException) -> str:
    """What went wrong, from the leaves of an exception group (packaging wraps its reasons in one)."""
    if isinstance(exc, BaseExceptionGroup):
        return "; ".join(_reason(e) for e in exc.exceptions)
    return str(exc)


def resolve_group(
    r: Reader, meta: Metadata, group: NormalizedName
) -> tuple[tuple[Requirement, ...], tuple[NormalizedName, ...]]:
    """The requirements of *group* with its includes resolved, and the groups it includes (normalised)."""
    if meta.resolver is None:
        return (), ()
    spelling = meta.groups[group]
    try:
        resolved = meta.resolver.resolve(spelling)
    except Exception as exc:  # packaging raises ValueError/TypeError subclasses
        r.problem(f"cannot resolve dependency group: {_reason(exc)}", GROUPS_TABLE, spelling)
        return (), ()
    included: list[NormalizedName] = []
    stack = [group]
    while stack:
        body = meta.group_table.get(meta.groups.get(stack.pop(), ""), [])
        for item in body if isinstance(body, list) else []:
            if isinstance(item, dict) and isinstance(item.get("include-group"), str):
                name = canonicalize_name(item["include-group"])
                if name not in included:
                    included.append(name)
                    stack.append(name)
    return tuple(resolved), tuple(included)


def expand_self(requirements: Sequence[Requirement], meta: Metadata) -> list[Requirement]:
    """*requirements* with each ``project[extra]`` self-reference replaced by that extra's requirements.

    The project itself is left out (a reference to it without extras adds nothing); an extra the project
    does not declare adds nothing, as pip installs nothing for it.
    """
    if meta.name is None:
        return list(requirements)
    out: dict[str, Requirement] = {}
    seen_extras: set[NormalizedName] = set()

    def add(items: Sequence[Requirement]) -> None:
        for req in items:
            if canonicalize_name(req.name) != meta.name:
                out.setdefault(str(req), req)
                continue
            for extra in sorted(canonicalize_name(e) for e in req.extras):
                if extra in meta.extras and extra not in seen_extras:
                    seen_extras.add(extra)
                    add(meta.extras[extra])

    add(requirements)
    return list(out.values())
