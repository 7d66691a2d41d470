"""The probe: is a tier consumable here? Decided from files alone, never by importing.

Public API (also available as ``tierlock.probe`` and friends)::

    result = tierlock.probe("brain")          # TierProbe
    result.state                              # "present" | "partial" | "absent"
    for root in result.roots:                 # DistributionProbe per root
        print(root.name, root.state, root.reasons, root.version, root.files_checked)

    probe_distribution("numpy", paths=target.site_paths, locked_version=Version("2.1.0"))

The names are imported on first use, so that the pytest plugin's cache-hit
path (:mod:`tierlock.probing.facts`) loads only what it runs.
"""

from __future__ import annotations

from tierlock import _lazy

TYPE_CHECKING = False
if TYPE_CHECKING:
    from tierlock.probing.compiled import is_compiled
    from tierlock.probing.distprobe import DistributionProbe, DistState, TierState
    from tierlock.probing.distribution import probe_distribution
    from tierlock.probing.installedfile import InstalledFile
    from tierlock.probing.site import SiteIndex, normalize
    from tierlock.probing.tier import Prober, TierProbe, probe, probe_tiers
    from tierlock.probing.verdict import probe_parts, tier_verdict

_LAZY = {
    "DistState": "tierlock.probing.distprobe",
    "DistributionProbe": "tierlock.probing.distprobe",
    "InstalledFile": "tierlock.probing.installedfile",
    "is_compiled": "tierlock.probing.compiled",
    "probe_distribution": "tierlock.probing.distribution",
    "SiteIndex": "tierlock.probing.site",
    "normalize": "tierlock.probing.site",
    "Prober": "tierlock.probing.tier",
    "TierProbe": "tierlock.probing.tier",
    "TierState": "tierlock.probing.distprobe",
    "probe": "tierlock.probing.tier",
    "probe_tiers": "tierlock.probing.tier",
    "probe_parts": "tierlock.probing.verdict",
    "tier_verdict": "tierlock.probing.verdict",
}


__getattr__ = _lazy.attributes(__name__, _LAZY)


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
    "probe_parts",
    "probe_tiers",
    "tier_verdict",
]
