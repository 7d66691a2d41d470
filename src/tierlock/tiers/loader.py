"""Read and validate a project's tiers from pyproject.toml.

:func:`parse_project` is pure (a parsed TOML document in, a :class:`Project`
out); :func:`load_project` is the thin edge that finds and reads the file.
Each setting has its own small reader: the standard metadata in
:mod:`tierlock.tiers.projectmeta`, the project-wide ``[tool.tierlock]`` keys in
:mod:`tierlock.tiers.settings` (``lock``, the project's own lock, in
:mod:`tierlock.tiers.lockkey`), each tier's keys in
:mod:`tierlock.tiers.tierkeys`. Validation collects every problem and raises
one :class:`ConfigError`.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from packaging.utils import NormalizedName

from tierlock import fsutil, projectparts
from tierlock.errors import ConfigError
from tierlock.frozen import replace
from tierlock.tiers import buildkeys, lockkey, settings, tierkeys
from tierlock.tiers.model import Project, Tier
from tierlock.tiers.projectmeta import read_metadata
from tierlock.tiers.reader import Reader, parse_toml, where_key

if TYPE_CHECKING:
    from tierlock.tiers.model import LockFormat

__all__ = ["find_pyproject", "load_project", "parse_project", "parse_toml", "where_key"]


def find_pyproject(start: Path) -> Path:
    """The nearest ``pyproject.toml`` at or above *start* (:func:`tierlock.fsutil.find_pyproject`)."""
    return fsutil.find_pyproject(start)


def load_project(path: str | Path = ".") -> Project:
    """Load the tiers of the project at *path* (a folder or a pyproject.toml).

    A folder without a pyproject.toml is searched upward, like pip and uv do.
    The document is read by :func:`tierlock.projectparts.read` (the parts of it an answer rests on); its text
    is read again only to place a problem (:class:`~tierlock.tiers.reader.Reader`) or a syntax error.
    """
    pyproject = find_pyproject(Path(path))
    try:
        data = projectparts.read(pyproject)
    except OSError as exc:
        raise ConfigError(f"cannot read {pyproject}: {exc.strerror}", file=str(pyproject)) from exc
    except UnicodeDecodeError as exc:
        raise ConfigError(
            f"{pyproject} is not UTF-8 text ({exc.reason} at byte {exc.start})", file=str(pyproject)
        ) from exc
    except (ValueError, RecursionError):  # not TOML: the text read again, for the place of the error
        text = fsutil.read_text(pyproject)
        return parse_project(parse_toml(text, pyproject), pyproject=pyproject, text=text)
    return parse_project(data, pyproject=pyproject, text=None)


def parse_project(data: Mapping[str, Any], *, pyproject: Path, text: str | None = "") -> Project:
    """Build the :class:`Project` from a parsed pyproject document (pure).

    The settings are read in the order their problems are reported: the standard metadata, the
    project-wide keys (``lock`` first: :mod:`tierlock.tiers.lockkey`), each tier's source, the
    layering, each tier's other keys, then the keys that name tiers (``ci-require``, ``conflicts``,
    and with ``lock = "uv.lock"`` uv's own conflicts). *text* places each problem (None: the file is read
    again for it, only when there is one).
    """
    r = Reader(pyproject, text)
    meta = read_metadata(r, data)
    table, configured = settings.tool_table(r, data)
    own_lock = lockkey.read(r, data, table, pyproject.parent)  # lock: the project's uv.lock or pylock
    lock_dir = settings.lock_dir(r, table, pyproject.parent)
    fmt = settings.lock_format(r, table)
    backend = settings.backend(r, table)
    venv = settings.venv(r, table)
    runtime = settings.runtime(r, table)
    declared = tierkeys.declared_tiers(r, table, meta)
    layers = tierkeys.layers(r, declared)
    tiers: dict[NormalizedName, Tier] = {}
    for norm, info in declared.items():
        lockfile = own_lock.path or lock_dir / _lockfile_name(norm, fmt)
        tiers[norm] = _tier(r, info, name=norm, project=meta.name, layered_on=layers.get(norm), lockfile=lockfile)
    ci_require = settings.ci_require(r, table, tiers)
    conflicts = settings.conflicts(r, table, tiers)
    platforms = buildkeys.read_platforms(r, table.get("platforms"))
    no_build = buildkeys.read_no_build(r, table.get("no-build"), list(tiers))
    if own_lock.path is not None and own_lock.path.name == "uv.lock":
        sources = {name: tier.source for name, tier in tiers.items()}
        conflicts += tuple(c for c in lockkey.uv_conflicts(data, meta.name, sources) if c not in conflicts)
    r.raise_if_any()
    return Project(
        root=pyproject.parent,
        pyproject=pyproject,
        name=meta.name,
        requires_python=meta.requires_python,
        tiers={n: _required(t, n in ci_require) for n, t in tiers.items()},
        lock_dir=lock_dir,
        format=fmt,
        backend=backend,
        ci_require=tuple(ci_require),
        configured=configured,
        runtime=runtime,
        conflicts=conflicts,
        venv=venv,
        platforms=platforms,
        no_build=no_build,
        lock=own_lock.path,
        package=own_lock.package,
        version=own_lock.version,
    )


def _tier(
    r: Reader,
    info: tierkeys.Declared,
    *,
    name: NormalizedName,
    project: NormalizedName | None,
    layered_on: NormalizedName | None,
    lockfile: Path,
) -> Tier:
    return Tier(
        name=name,
        source=info.source.text,
        requirements=info.source.requirements,
        layered_on=layered_on,
        probe=tuple(tierkeys.probe(r, info, project)),
        import_roots=tierkeys.import_roots(r, info),
        tests=tierkeys.tests(r, info),
        lockfile=lockfile,
        ci_required=False,
        include_groups=info.source.include_groups,
    )


def _lockfile_name(tier: NormalizedName, fmt: LockFormat) -> str:
    return f"{tier}.txt" if fmt == "requirements" else f"pylock.{tier}.toml"


def _required(tier: Tier, ci_required: bool) -> Tier:
    return replace(tier, ci_required=ci_required)
