"""The tier model: which tiers a project declares and what belongs to each.

The names are imported on first use, so that ``tierlock.tiers.globs`` (used by
the pytest plugin on every run) does not pull in the loader and
``packaging.requirements``.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from tierlock.tiers.loader import find_pyproject, load_project, parse_project
    from tierlock.tiers.model import BASE, Project, Tier

_LAZY = {
    "BASE": "tierlock.tiers.model",
    "Project": "tierlock.tiers.model",
    "Tier": "tierlock.tiers.model",
    "find_pyproject": "tierlock.tiers.loader",
    "load_project": "tierlock.tiers.loader",
    "parse_project": "tierlock.tiers.loader",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'tierlock.tiers' has no attribute {name!r}")
    # __import__, not importlib.import_module: the same import, but one that ``-X importtime`` reports.
    value = getattr(__import__(module, fromlist=[name]), name)
    globals()[name] = value
    return value


__all__ = ["BASE", "Project", "Tier", "find_pyproject", "load_project", "parse_project"]
