"""tierlock: a fast base install and opt-in dependency tiers from exact lockfiles.

Library API::

    project = tierlock.load_project(".")
    for tier in project.tiers.values():
        print(tier.name, [str(r) for r in tier.requirements])
"""

from __future__ import annotations

from tierlock import _lazy
from tierlock._version import __version__

# Not ``typing.TYPE_CHECKING``: ``typing`` imports ``re``, and ``import tierlock`` is on every start-up path.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from tierlock.errors import TierlockError
    from tierlock.probing import DistributionProbe, TierProbe, probe, probe_distribution
    from tierlock.tiers import Project, Tier, load_project
    from tierlock.validators import ValidationResult, validate_runtime_config

#: Names imported on first use (``tierlock.probe(...)``), so ``import tierlock`` stays light.
_LAZY = {
    "TierlockError": "tierlock.errors",
    "Project": "tierlock.tiers",
    "Tier": "tierlock.tiers",
    "load_project": "tierlock.tiers",
    "probe": "tierlock.probing",
    "probe_distribution": "tierlock.probing",
    "TierProbe": "tierlock.probing",
    "DistributionProbe": "tierlock.probing",
    "validate_runtime_config": "tierlock.validators",
    "ValidationResult": "tierlock.validators",
}


__getattr__ = _lazy.attributes(__name__, _LAZY)


__all__ = [
    "DistributionProbe",
    "Project",
    "Tier",
    "TierProbe",
    "TierlockError",
    "ValidationResult",
    "__version__",
    "load_project",
    "probe",
    "probe_distribution",
    "validate_runtime_config",
]
