"""A project's census: its tiers, its pytest settings and ``[tool.tierlock.census]``, the disk and the cache.

This is the edge around :func:`tierlock.census.engine.survey`: it reads the
project's configuration, walks the disk through :class:`DiskTree`, keeps the
per-file cache in ``.pytest_cache`` when pytest made that folder, and adds
the CI warnings (``census-ci``).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from tierlock import projectparts
from tierlock.census.cache import CACHE_KEY, FolderCache, Memo
from tierlock.census.engine import DEFAULT_PATHS, DEFAULT_PATTERNS, survey
from tierlock.census.keptresult import Kept
from tierlock.census.remedy import ci_warnings
from tierlock.census.report import Census, CensusTier
from tierlock.census.tree import DiskTree
from tierlock.importnames import import_names


def census_tiers(
    project: Any, accept: Mapping[str, Sequence[str]] | None = None, required: Iterable[str] | None = None
) -> list[CensusTier]:
    """The census view of a :class:`tierlock.tiers.Project`'s tiers.

    A tier's import roots are its declared ``import-roots``, else each probe
    distribution's likely import names (:func:`tierlock.importnames.import_names`:
    ``pyyaml`` -> ``yaml``, ``python-dotenv`` -> ``dotenv``). *required*: the tiers of an
    explicit ``ci-require`` (they gate tests by markers even without globs).
    """
    wanted = set(required or ())
    out: list[CensusTier] = []
    for tier in project.tiers.values():
        roots: list[str] = []
        for dist in tier.probe:
            roots.extend(tier.import_roots.get(dist) or import_names(str(dist)))
        above = [t.name for t in project.tiers.values() if t.name != tier.name and tier in project.chain(t.name)]
        out.append(
            CensusTier(
                name=str(tier.name),
                roots=tuple(dict.fromkeys(roots)),
                globs=tuple(tier.tests),
                covered_by=tuple(str(a) for a in above),
                accept=tuple((accept or {}).get(str(tier.name), ())),
                required=str(tier.name) in wanted,
            )
        )
    return out


def _pytest_options(base: str) -> dict[str, Any]:
    """``[pytest]`` of pytest.ini, else ``[tool.pytest.ini_options]`` (or ``[tool.pytest]``) of pyproject.toml."""
    import tomllib

    ini = os.path.join(base, "pytest.ini")
    if os.path.isfile(ini):
        import configparser  # only a project with a pytest.ini pays for it

        parser = configparser.ConfigParser()
        parser.read(ini, encoding="utf-8")
        return dict(parser["pytest"]) if parser.has_section("pytest") else {}
    try:
        data = projectparts.read(os.path.join(base, "pyproject.toml"))  # a FIFO is refused
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        data = {}
    tool = data.get("tool", {})
    pytest_table = tool.get("pytest", {}) if isinstance(tool, dict) else {}
    options = pytest_table.get("ini_options", pytest_table) if isinstance(pytest_table, dict) else {}
    return options if isinstance(options, dict) else {}


def _gates_by_markers(project: Any, tier: Any) -> bool:
    """Whether an explicit ``ci-require`` tier gates its tests by markers: not one that carries a test runner,
    a linter or a docs builder (``pytest``, ``ruff``...): that tier is what runs the suite, not a part of it."""
    from tierlock.tiers.tooling import is_tooling_package

    return tier.name in project.ci_require and not any(is_tooling_package(d) for d in tier.probe)


def pytest_settings(root: str | os.PathLike[str]) -> tuple[list[str], list[str]]:
    """(testpaths, python_files) from the project's pytest configuration (pyproject.toml or pytest.ini).

    Without ``testpaths`` the census reads the whole project (minus
    ``norecursedirs``'s defaults and virtual environments).
    """
    options = _pytest_options(os.fspath(root))
    paths = _strings(options.get("testpaths"))
    patterns = _strings(options.get("python_files"))
    return paths or ["."], patterns or list(DEFAULT_PATTERNS)


def import_paths(root: str | os.PathLike[str]) -> list[str]:
    """Where the project's own modules are imported from: the root, ``src/`` and pytest's ``pythonpath``."""
    options = _pytest_options(os.fspath(root))
    extra = [p.replace("\\", "/").strip("/").removeprefix("./") for p in _strings(options.get("pythonpath"))]
    return list(dict.fromkeys([*DEFAULT_PATHS, *(p if p != "." else "" for p in extra)]))


def _strings(value: object) -> list[str]:
    if isinstance(value, str):
        return value.split()
    if isinstance(value, list):
        return [str(v) for v in value]
    return []


def _census_table(pyproject: str | os.PathLike[str]) -> tuple[Any, bool]:
    """(``[tool.tierlock.census]``, whether ``ci-require`` is declared)."""
    data = projectparts.read(pyproject)  # the safe reader: a FIFO is refused, never waited on
    tierlock = data.get("tool", {}).get("tierlock", {})
    if not isinstance(tierlock, dict):
        return {}, False
    return tierlock.get("census", {}), "ci-require" in tierlock


def accept_table(pyproject: str | os.PathLike[str], tiers: Iterable[str]) -> dict[str, list[str]]:
    """``[tool.tierlock.census.accept]``: tier -> globs of files whose use of the tier is accepted.

    A ``ConfigError`` names an unknown tier or a value that is not a list of globs.
    """
    from tierlock.errors import ConfigError

    table, _ = _census_table(pyproject)
    where = "[tool.tierlock.census]"
    if not isinstance(table, dict):
        raise ConfigError(f"{where} must be a table", file=str(pyproject), remedy=f"make {where} a table")
    unknown = [k for k in table if k != "accept"]
    if unknown:
        raise ConfigError(
            f"{where}: unknown key {unknown[0]!r} (known: accept)", file=str(pyproject), remedy=f"remove {unknown[0]!r}"
        )
    accept = table.get("accept", {})
    if not isinstance(accept, dict):
        raise ConfigError(f"{where}.accept must be a table of tier = [globs]", file=str(pyproject))
    known = set(tiers)
    out: dict[str, list[str]] = {}
    for name, globs in accept.items():
        from tierlock.probing import normalize  # (the probe's names: loaded when something is accepted)

        tier = normalize(name)
        if tier not in known:
            raise ConfigError(
                f"{where}.accept: unknown tier {name!r}; declared: {', '.join(sorted(known))}",
                file=str(pyproject),
                remedy=f"remove {name!r} from {where}.accept or declare the tier",
            )
        if not isinstance(globs, list) or not all(isinstance(g, str) and g.strip() for g in globs):
            raise ConfigError(f"{where}.accept.{name} must be a list of path globs", file=str(pyproject))
        out[tier] = list(globs)
    return out


def project_census(project: Any, names: Sequence[str] | None = None) -> Census:
    """The census of a :class:`tierlock.tiers.Project` (only the tiers *names* when given)."""
    accept = accept_table(project.pyproject, project.tiers)
    _, ci_declared = _census_table(project.pyproject)
    required = [str(t.name) for t in project.tiers.values() if ci_declared and _gates_by_markers(project, t)]
    tiers = census_tiers(project, accept, required)
    wanted = {str(project.tier(n).name) for n in names} if names else {t.name for t in tiers}
    folders, patterns = pytest_settings(project.root)
    cache = FolderCache(project.root) if os.path.isdir(os.path.join(project.root, ".pytest_cache")) else None
    memo = lambda: Memo(cache.get(CACHE_KEY, None) if cache is not None else None)  # noqa: E731 (read only when needed)
    # Every tier takes part (a tier layered on a named one covers its files); only the named ones are reported.
    result = survey(
        DiskTree(project.root),
        tiers,
        folders=folders,
        patterns=patterns,
        paths=import_paths(project.root),
        report=wanted,
        memo=memo,
        kept=Kept(os.path.abspath(project.root)),
    )
    if cache is not None and result.cache_entry is not None:
        cache.set(CACHE_KEY, result.cache_entry)
    result.warnings = ci_warnings(result, ci_declared)
    return result
