"""What is installed in the target: ``.dist-info`` folders found on its path, judged by the probe.

An edge module: it lists folders and asks :mod:`tierlock.probe` (which reads
files, never imports) whether each locked distribution is whole.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from packaging.utils import NormalizedName
from packaging.version import InvalidVersion, Version

from tierlock.installer.plan import Installed
from tierlock.installer.receipts import InstalledDist, read_record
from tierlock.lockfiles.model import LockEntry


def states(
    entries: Iterable[LockEntry],
    site_paths: Sequence[Path],
    import_roots: Mapping[NormalizedName, Sequence[str]],
) -> dict[NormalizedName, Installed]:
    """The probe's verdict for each locked entry that has any ``.dist-info`` in the target (one scan)."""
    from tierlock.probing import SiteIndex, probe_distribution

    index = SiteIndex.scan(site_paths)
    out: dict[NormalizedName, Installed] = {}
    for entry in entries:
        if not index.find(entry.name):
            continue
        result = probe_distribution(
            entry.name,
            locked_version=entry.version,
            import_roots=tuple(import_roots.get(entry.name, ())),
            index=index,
        )
        out[entry.name] = Installed(entry.name, result.version, result.state, tuple(result.reasons))
    return out


def _version(value: object) -> Version | None:
    if value is None:
        return None
    if isinstance(value, Version):
        return value
    try:
        return Version(str(value))
    except InvalidVersion:
        return None


def installed_dists(entries: Iterable[LockEntry], site_paths: Sequence[Path], prefix: Path) -> list[InstalledDist]:
    """For each entry: its installed ``.dist-info`` at the locked version, with its RECORD files and sizes.

    Site folders are recorded relative to *prefix* (so a copied environment keeps a meaningful receipt).
    """
    from tierlock.probing import SiteIndex

    index = SiteIndex.scan(site_paths)
    out: list[InstalledDist] = []
    for entry in entries:
        for info in index.find(entry.name):
            try:
                matches = Version(info.folder_version) == entry.version
            except InvalidVersion:
                matches = False
            if matches:
                folder = os.path.basename(info.path)
                files = read_record(Path(info.site), folder)
                site = os.path.relpath(info.site, prefix)
                out.append(InstalledDist(entry.name, str(entry.version), site, folder, files))
                break
    return out


def installed_names(site_paths: Sequence[Path]) -> set[str]:
    """Normalized names of every distribution with a ``.dist-info`` on *site_paths*."""
    from tierlock.probing import SiteIndex

    return set(SiteIndex.scan(site_paths).dists)
