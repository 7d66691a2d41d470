"""What is installed in the target: ``.dist-info`` folders found on its path, judged by the probe.

An edge module: it lists folders and asks :mod:`tierlock.probe` (which reads
files, never imports) whether each locked distribution is whole.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from contextlib import suppress
from operator import itemgetter
from pathlib import Path
from typing import TYPE_CHECKING

from tierlock.installer.plan import Installed
from tierlock.installer.receipts import InstalledDist, file_rows
from tierlock.lockfiles.locks import LockEntry

_FULL = itemgetter(0)

if TYPE_CHECKING:
    from packaging.utils import NormalizedName

    from tierlock.environment import Target
    from tierlock.probing import DistributionProbe


def probe_all(
    entries: Iterable[LockEntry],
    target: Target,
    import_roots: Mapping[NormalizedName, Sequence[str]],
    *,
    deep: bool = False,
) -> dict[NormalizedName, DistributionProbe]:
    """The probe of each locked entry that has any ``.dist-info`` in *target* (one scan of its site folders,
    extension modules judged by its suffixes). *deep* also checks every file's RECORD hash.
    """
    from tierlock.probing import SiteIndex, probe_distribution

    index = SiteIndex.of(target)
    out: dict[NormalizedName, DistributionProbe] = {}
    for entry in entries:
        if not index.find(entry.name):
            continue
        out[entry.name] = probe_distribution(
            entry.name,
            locked_version=entry.version,
            import_roots=tuple(import_roots.get(entry.name, ())),
            index=index,
            deep=deep,
        )
    return out


def verdicts(probes: Mapping[NormalizedName, DistributionProbe]) -> dict[NormalizedName, Installed]:
    """What the plan needs of each probe.

    A distribution whose files are whole but which needs a library the system lacks is no work for the
    backend (reinstalling it brings no system library): the plan counts it as present, and
    :func:`tierlock.installer.verification.require_libraries` stops the install with the remedy.
    """
    from tierlock.probing.libremedy import only_libraries

    out: dict[NormalizedName, Installed] = {}
    for name, result in probes.items():
        whole = result.state == "partial" and only_libraries(result)
        state = "present" if whole else result.state
        out[name] = Installed(name, result.version, state, () if whole else tuple(result.reasons))
    return out


def dists_of(
    entries: Iterable[LockEntry], probes: Mapping[NormalizedName, DistributionProbe], prefix: Path
) -> list[InstalledDist]:
    """What a receipt records, from the probes that just verified the install (no second scan, no second read).

    Each probe read RECORD and stat()ed its files; the receipt keeps the rows
    with a size (``.pyc`` left out) and RECORD itself with its size (a RECORD
    swapped for the wheel's own is then seen by the no-op fast path), the site
    folder relative to *prefix* and the ``.dist-info`` folder name.
    """
    from tierlock.probing.relied import relied_outside_each

    found: list[tuple[LockEntry, DistributionProbe, str, str, str]] = []
    for entry in entries:
        result = probes.get(entry.name)
        if result is None or result.dist_info_dir is None or result.version != entry.version:
            continue
        site, folder = os.path.split(result.dist_info_dir)
        found.append((entry, result, result.dist_info_dir, site, folder))
    # The system libraries its extensions rely on: the no-op fast path then notices one going away.
    relied = relied_outside_each((map(_FULL, result.records), [site]) for _entry, result, _info, site, _folder in found)
    written = _written() if found else {}
    out: list[InstalledDist] = []
    for (entry, result, info, site, folder), libraries in zip(found, relied, strict=True):
        files = file_rows(result.records, written)
        files += tuple((os.path.relpath(lib, site), size) for lib, size in libraries)
        if result.record_size is not None:  # RECORD gives no size of its own: the size it had when verified
            files += ((f"{folder}/RECORD", result.record_size),)
        else:
            with suppress(OSError):
                files += ((f"{folder}/RECORD", os.stat(os.path.join(info, "RECORD")).st_size),)
        out.append(InstalledDist(entry.name, str(entry.version), os.path.relpath(site, prefix), folder, files))
    return out


def _written() -> dict[str, int]:
    """Full path -> ``st_mtime_ns`` of every extension and library the probe's library verdicts of this process were
    given for (their identities: size, time, inode), so that a receipt dates them without a second ``stat``."""
    from tierlock.probing import libraries

    out: dict[str, int] = {}
    for (path, _environment), (identity, libs) in libraries._VERDICTS.items():
        out[path] = identity[1]
        for library, (_size, mtime, *_rest) in libs:
            out.setdefault(library, mtime)
    return out


def project_dist(probe: DistributionProbe, prefix: Path) -> list[InstalledDist]:
    """What a receipt records of the project itself, installed from its source (marked as such: its version is
    its source's, not a lock's)."""
    if probe.dist_info_dir is None or probe.version_text is None:
        return []
    site, folder = os.path.split(probe.dist_info_dir)
    files = file_rows(probe.records)
    relsite = os.path.relpath(site, prefix)
    return [InstalledDist(probe.name, probe.version_text, relsite, folder, files, project=True)]


def installed_names(site_paths: Sequence[Path]) -> set[str]:
    """Normalized names of every distribution with a ``.dist-info`` on *site_paths*."""
    from tierlock.probing import SiteIndex

    return set(SiteIndex.scan(site_paths).dists)
