"""pip's ``~name`` leftovers: what an interrupted uninstall or upgrade moved aside and never deleted.

pip moves a folder it replaces to an adjacent ``~``-name (``corelib`` to
``~orelib``, ``corelib-1.0.dist-info`` to ``~orelib-1.0.dist-info``) and
deletes it only when the new version is in place. Killed in between, those
folders stay, and the probe rightly flags the package. Before the backend
repairs a package, :func:`clear` deletes the leftovers that belong to it, and
only those: a leftover belongs to a package when pip made its name from one of
the package's top-level names (its ``.dist-info`` folder, its import roots,
the first parts of its RECORD), or from those of a moved-aside ``.dist-info``
whose METADATA names the package. :func:`specials` deletes a FIFO, socket or device standing in a ``.dist-info``
folder of a package the backend is about to repair (no installer writes one there, and one named RECORD holds the
backend's uninstall forever).
"""

from __future__ import annotations

import os
import shutil
import stat
from collections.abc import Collection, Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from tierlock.probing.site import normalize, pip_leftover_of

if TYPE_CHECKING:
    from tierlock.probing import DistributionProbe


def clear(sites: Sequence[Path], names: Collection[str], probes: Mapping[str, DistributionProbe]) -> list[str]:
    """Delete the ``~`` leftovers of the packages *names* in the site folders; return the paths deleted."""
    deleted: list[str] = []
    wanted = {normalize(n) for n in names}
    for site in dict.fromkeys(os.fspath(s) for s in sites):
        for name in sorted(owned(site, wanted, probes)):
            path = os.path.join(site, name)
            if os.path.isdir(path) and not os.path.islink(path):
                shutil.rmtree(path, ignore_errors=True)
            else:
                try:
                    os.unlink(path)
                except OSError:
                    continue
            deleted.append(path)
    return deleted


def specials(names: Collection[str], probes: Mapping[str, DistributionProbe]) -> list[str]:
    """Delete what stands in the ``.dist-info`` folder of each package of *names* and is no file an installer writes
    there (a FIFO, a socket, a device: the backend, reading RECORD to uninstall, would wait on a FIFO forever);
    return the paths deleted."""
    deleted: list[str] = []
    for name in sorted({normalize(n) for n in names}):
        probe = probes.get(name)
        folder = None if probe is None else probe.dist_info_dir
        try:
            entries = list(os.scandir(folder)) if folder is not None else []
        except OSError:
            continue
        for entry in entries:
            try:
                mode = entry.stat(follow_symlinks=False).st_mode
                if stat.S_ISREG(mode) or stat.S_ISDIR(mode) or stat.S_ISLNK(mode):
                    continue
                os.unlink(entry.path)
            except OSError:
                continue
            deleted.append(entry.path)
    return deleted


def owned(site: str, names: Collection[str], probes: Mapping[str, DistributionProbe]) -> set[str]:
    """The ``~`` entries of *site* that pip made from the top-level names of the packages *names*."""
    try:
        tildes = [n for n in os.listdir(site) if n.startswith("~")]
    except OSError:
        return set()
    if not tildes:
        return set()
    tops: set[str] = set()
    for name in names:
        probe = probes.get(name)
        if probe is None or probe.dist_info_dir is None or os.path.dirname(probe.dist_info_dir) != site:
            continue
        tops.add(os.path.basename(probe.dist_info_dir))
        tops.update(probe.import_roots)
        tops.update(_heads(rel for _full, rel, _size, _hash in probe.records))
    out: set[str] = set()
    for tilde in tildes:
        if tilde.endswith(".dist-info") and _metadata_name(os.path.join(site, tilde)) in names:
            out.add(tilde)
            tops.update(_heads(_record_paths(os.path.join(site, tilde, "RECORD"))))
    out.update(t for t in tildes if any(pip_leftover_of(t, top) for top in tops))
    return out


def _heads(paths: Iterable[str]) -> set[str]:
    heads: set[str] = set()
    for rel in paths:
        if not rel.startswith(("..", "/")):
            heads.add(rel.partition("/")[0])
    return heads


def _record_paths(record: str) -> list[str]:
    import csv

    try:
        with open(record, encoding="utf-8", newline="") as handle:
            return [row[0] for row in csv.reader(handle) if row]
    except (OSError, csv.Error, UnicodeDecodeError):
        return []


def _metadata_name(dist_info: str) -> str | None:
    """The normalized ``Name`` of a ``.dist-info`` folder's METADATA (None when unreadable)."""
    try:
        with open(os.path.join(dist_info, "METADATA"), encoding="utf-8", errors="replace") as handle:
            for line in handle:
                if not line.strip():
                    return None
                if line[:5].lower() == "name:":
                    return normalize(line[5:].strip())
    except OSError:
        return None
    return None
