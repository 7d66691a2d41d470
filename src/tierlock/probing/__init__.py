"""The probe: is a tier consumable here? Decided from files alone, never by importing.

Public API (also available as ``tierlock.probe`` and friends)::

    result = tierlock.probe("brain")          # TierProbe
    result.state                              # "present" | "partial" | "absent"
    for root in result.roots:                 # DistributionProbe per root
        print(root.name, root.state, root.reasons, root.version, root.files_checked)

    probe_distribution("numpy", paths=target.site_paths, locked_version=Version("2.1.0"))
"""

from tierlock.probing.distribution import DistributionProbe, DistState, InstalledFile, is_compiled, probe_distribution
from tierlock.probing.site import SiteIndex, normalize
from tierlock.probing.tier import Prober, TierProbe, TierState, probe, probe_tiers, tier_state

__all__ = [
    "DistState",
    "DistributionProbe",
    "InstalledFile",
    "Prober",
    "SiteIndex",
    "TierProbe",
    "TierState",
    "is_compiled",
    "normalize",
    "probe",
    "probe_distribution",
    "probe_tiers",
    "tier_state",
]
