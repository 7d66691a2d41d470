"""tierlock: a fast base install and opt-in dependency tiers from exact lockfiles.

Library API::

    project = tierlock.load_project(".")
    for tier in project.tiers.values():
        print(tier.name, [str(r) for r in tier.requirements])
"""

from tierlock._version import __version__
from tierlock.errors import TierlockError
from tierlock.tiers import Project, Tier, load_project

__all__ = ["Project", "Tier", "TierlockError", "__version__", "load_project"]
