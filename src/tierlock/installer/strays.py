"""Metadata folders of another version left beside a package the install repairs or replaces.

A tool that installed over a package and left the old ``.dist-info`` (or a folder copied in) leaves two for one name:
``importlib.metadata`` may read either, and the probe finds the package partial. uv's reinstall removes the one it
uninstalls; pip's ``--force-reinstall`` uninstalls the one it finds first and leaves the other, so the repair ended
"still not present" and its printed fix (the same command) looped. Before the backend runs, every metadata folder of
a changed package beyond one is removed - the one at the locked version kept when there is one (the backend then
reinstalls over it). Only the folders are removed, never the files their RECORD lists (another version's RECORD
lists the package's own files too); the backend writes every file of the locked version again.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterable, Sequence

from tierlock.installer.receiptfiles import canonical, metadata_folders


def _name_and_version(folder: str) -> tuple[str, str]:
    stem = folder.rpartition(".")[0]
    name, _, rest = stem.partition("-")
    return canonical(name), rest.partition("-")[0]


def removed(sites: Sequence[str | os.PathLike[str]], packages: Iterable[tuple[str, str]]) -> list[str]:
    """Remove the metadata folders beyond one of each *packages* (canonical name, locked version) in *sites*;
    the paths removed."""
    wanted = dict(packages)
    if not wanted:
        return []
    found: dict[str, list[str]] = {}
    for place in sites:
        site = os.fspath(place)
        by_name = metadata_folders(site)  # (the fast path's listing: one reading of a folder's names)
        for name in wanted:
            for entry in sorted(by_name.get(name, ())):
                found.setdefault(name, []).append(os.path.join(site, entry))
    out: list[str] = []
    for name, folders in found.items():
        if len(folders) < 2:
            continue
        at_lock = [f for f in folders if _name_and_version(os.path.basename(f))[1] == wanted[name]]
        keep = (at_lock or folders)[0]
        for folder in folders:
            if folder != keep and os.path.isdir(folder) and not os.path.islink(folder):
                shutil.rmtree(folder)
                out.append(folder)
    return out
