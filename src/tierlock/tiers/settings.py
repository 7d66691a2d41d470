"""The project-wide keys of ``[tool.tierlock]``, one reader per key.

Each reader takes the :class:`~tierlock.tiers.reader.Reader` (which collects the problems) and the
table, and returns the key's value or its default when the value is wrong (the problem is reported,
reading goes on).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from packaging.utils import NormalizedName, canonicalize_name

from tierlock.tiers.model import BASE, Tier
from tierlock.tiers.reader import Reader, type_name

if TYPE_CHECKING:
    from tierlock.tiers.model import BackendName, LockFormat

TABLE = "tool.tierlock"
TOP_KEYS = (
    "lock-dir",
    "format",
    "backend",
    "ci-require",
    "conflicts",
    "tiers",
    "runtime",
    "venv",
    "census",
    "platforms",
    "no-build",
    "lock",
)
FORMATS: tuple[LockFormat, ...] = ("requirements", "pylock")
BACKENDS: tuple[BackendName, ...] = ("auto", "uv", "pip")


def tool_table(r: Reader, data: Mapping[str, Any]) -> tuple[dict[str, Any], bool]:
    """``[tool.tierlock]`` (empty when missing), and whether the project has one at all."""
    tool = data.get("tool", {})
    tool = tool if isinstance(tool, dict) else {}
    table = r.table(tool.get("tierlock", {}), "tool", "tierlock")
    r.unknown_keys(table, TOP_KEYS, TABLE)
    return table, "tierlock" in tool


def lock_dir(r: Reader, table: Mapping[str, Any], root: Path) -> Path:
    """``lock-dir``: the folder of the tier lockfiles, relative to the project root (default ``lockfiles``)."""
    value = table.get("lock-dir", "lockfiles")
    if not isinstance(value, str) or not value.strip():
        r.problem("must be a non-empty string (a folder relative to the project root)", TABLE, "lock-dir")
        value = "lockfiles"
    return root / value


def lock_format(r: Reader, table: Mapping[str, Any]) -> LockFormat:
    """``format``: ``requirements`` (default) or ``pylock``."""
    value = table.get("format", "requirements")
    return cast("LockFormat", value) if r.choice(value, FORMATS, TABLE, "format") else "requirements"


def backend(r: Reader, table: Mapping[str, Any]) -> BackendName:
    """``backend``: ``auto`` (default), ``uv`` or ``pip``."""
    value = table.get("backend", "auto")
    return cast("BackendName", value) if r.choice(value, BACKENDS, TABLE, "backend") else "auto"


def venv(r: Reader, table: Mapping[str, Any]) -> str | None:
    """``venv``: the project's environment folder (None: ``.venv``)."""
    value = table.get("venv")
    if value is not None and (not isinstance(value, str) or not value.strip()):
        r.problem("must be a non-empty string (a folder relative to the project root)", TABLE, "venv")
        return None
    return value


def runtime(r: Reader, table: Mapping[str, Any]) -> dict[str, Any] | None:
    """``runtime``: the runtime config table, validated later by :mod:`tierlock.validators`."""
    value = table.get("runtime")
    if value is not None and not isinstance(value, dict):
        r.problem(f"must be a table, not {type_name(value)}", TABLE, "runtime")
        return None
    return value


def ci_require(r: Reader, table: Mapping[str, Any], tiers: Mapping[NormalizedName, Tier]) -> list[NormalizedName]:
    """``ci-require``: the tiers CI must find present (default: every tier that gates tests)."""
    value = table.get("ci-require")
    if value is None:
        return [t.name for t in tiers.values() if t.tests]
    out: list[NormalizedName] = []
    for i, written in enumerate(r.string_list(value, TABLE, "ci-require") or []):
        name = canonicalize_name(written)
        if name not in tiers:
            r.unknown_tier(written, list(tiers), TABLE, "ci-require", i)
        elif name in out:
            r.problem(f"tier {written!r} is listed twice", TABLE, "ci-require", i)
        else:
            out.append(name)
    return out


def conflicts(
    r: Reader, table: Mapping[str, Any], tiers: Mapping[NormalizedName, Tier]
) -> tuple[frozenset[NormalizedName], ...]:
    """``conflicts = [["polars", "pandas"]]``: sets of tiers never armed together (like ``[tool.uv].conflicts``)."""
    value = table.get("conflicts")
    if value is None:
        return ()
    if not isinstance(value, list):
        r.problem(f"must be an array of arrays of tier names, not {type_name(value)}", TABLE, "conflicts")
        return ()
    out: list[frozenset[NormalizedName]] = []
    for i, item in enumerate(value):
        if not isinstance(item, list):
            message = f'must be an array of tier names such as ["a", "b"], not {type_name(item)}'
            r.problem(message, TABLE, "conflicts", i)
            continue
        before = len(r.errors.problems)
        names = _conflict_set(r, item, i, tiers)
        if len(names) < 2 and len(r.errors.problems) == before:
            r.problem("a conflict set needs at least two different tiers", TABLE, "conflicts", i)
        elif len(names) >= 2:
            out.append(frozenset(names))
    return tuple(out)


def _conflict_set(r: Reader, item: list[Any], index: int, tiers: Mapping[NormalizedName, Tier]) -> list[NormalizedName]:
    names: list[NormalizedName] = []
    for entry in item:
        if not isinstance(entry, str):
            r.problem(f"must hold tier names (strings), not {type_name(entry)}", TABLE, "conflicts", index)
            continue
        name = canonicalize_name(entry)
        if name not in tiers:
            r.unknown_tier(entry, list(tiers), TABLE, "conflicts", index)
        elif name == BASE:
            r.problem("base is part of every tier; it cannot conflict with one", TABLE, "conflicts", index)
        elif name not in names:
            names.append(name)
    return names
