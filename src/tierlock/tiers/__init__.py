"""The tier model: which tiers a project declares and what belongs to each.

The names are imported on first use, so that ``tierlock.tiers.globs`` (used by
the pytest plugin on every run) does not pull in the loader and
``packaging.requirements``.
"""

from __future__ import annotations

from tierlock import _lazy

TYPE_CHECKING = False
if TYPE_CHECKING:
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


__getattr__ = _lazy.attributes(__name__, _LAZY)


__all__ = ["BASE", "Project", "Tier", "find_pyproject", "load_project", "parse_project"]
