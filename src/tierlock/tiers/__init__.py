"""The tier model: which tiers a project declares and what belongs to each."""

from tierlock.tiers.loader import find_pyproject, load_project, parse_project
from tierlock.tiers.model import BASE, Project, Tier

__all__ = ["BASE", "Project", "Tier", "find_pyproject", "load_project", "parse_project"]
