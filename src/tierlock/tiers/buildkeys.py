"""The readers of ``[tool.tierlock].platforms`` and ``[tool.tierlock].no-build`` (one small reader per key).

Each takes the loader's problem collector, so a bad value is reported with
every other problem of the table, with its line and place.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import TYPE_CHECKING

from packaging.utils import NormalizedName, canonicalize_name

from tierlock.tiers.model import BASE
from tierlock.tiers.platforms import Platform, parse

if TYPE_CHECKING:
    from tierlock.tiers.reader import Reader as _Reader

TABLE = "tool.tierlock"


def read_platforms(r: _Reader, value: object) -> tuple[Platform, ...]:
    """``platforms = ["linux-x86_64", "manylinux_2_17_aarch64", ...]``: each once, each known."""
    if value is None:
        return ()
    out: list[Platform] = []
    for index, item in _strings(r, value, "platforms"):
        try:
            platform = parse(item)
        except ValueError as exc:
            r.problem(str(exc), TABLE, "platforms", index)
            continue
        twin = next((p for p in out if p.tag == platform.tag), None)
        if twin is not None:
            r.problem(f"{item!r} and {twin.name!r} are one platform ({platform.tag})", TABLE, "platforms", index)
            continue
        out.append(platform)
    return tuple(out)


def read_no_build(r: _Reader, value: object, tiers: Collection[NormalizedName]) -> tuple[NormalizedName, ...]:
    """``no-build = ["base", ...]``: declared tiers, each once; absent means ``["base"]``."""
    if value is None:
        return (BASE,)
    out: list[NormalizedName] = []
    for index, item in _strings(r, value, "no-build"):
        name = canonicalize_name(item)
        if name not in tiers:
            r.unknown_tier(item, list(tiers), TABLE, "no-build", index)
        elif name in out:
            r.problem(f"tier {item!r} is listed twice", TABLE, "no-build", index)
        else:
            out.append(name)
    return tuple(out)


def _strings(r: _Reader, value: object, key: str) -> list[tuple[int, str]]:
    """The strings of the array *value* with their places in it (anything else is reported once, by its place)."""
    if r.string_list(value, TABLE, key) is None or not isinstance(value, list):
        return []
    return [(index, item) for index, item in enumerate(value) if isinstance(item, str)]
