"""A distribution's verdict kept while it stays whole, and given again once each file it rests on is confirmed.

A distribution found whole (one ``.dist-info``, every file there with its size, its import roots provided by
those files, no pip leftover beside it) gives the same verdict as the last time its unchanged folder was found
whole with the same lock and roots: :func:`keep` keeps that verdict with the folder's facts (in this process and
on disk, :mod:`tierlock.probing.distinfo`), with what the files it watches were then (the folder, METADATA,
RECORD, the compiled files) and its extension modules' identities; :func:`again` gives it back when each of those
still holds, each file stat-ed once (:func:`tierlock.probing.filechecks.still_whole`), and :func:`kept_whole`
finds it for :mod:`tierlock.probing.verdict`, which confirms a round's at once. Anything else sends the probe the
full way (:func:`tierlock.probing.distribution.probe_distribution`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tierlock.probing import distinfo, filechecks, metadata
from tierlock.probing.distprobe import DistributionProbe
from tierlock.probing.site import DistInfoDir, SiteIndex, normalize

# A verdict given when the distribution was found whole, the identities its watched files had, its extensions'.
Whole = tuple[
    "DistributionProbe", list[tuple[int, int, int, int]], tuple[tuple[str, "tuple[int, int, int, int] | None"], ...]
]


def keep(
    facts: distinfo.DistInfo, key: tuple[str | None, tuple[str, ...]], result: DistributionProbe, seen: dict[str, Any]
) -> DistributionProbe:
    """Keep *result*, the verdict of a distribution found whole, with what the files it watches are now (the
    folder, METADATA and RECORD: the facts' key; the compiled files: what the file checks took, *seen*) and its
    extension modules' identities (what their library verdicts are about); on disk too when that is new."""
    from tierlock.probing.libraries import is_extension

    stamps: list[Any] = [part for part in facts.key if isinstance(part, tuple)]
    for path, _rel in facts.compiled:
        taken = seen.get(path)  # (size, modification time, inode, status change); none when stat-ed one by one
        stamps.append(None if taken is None else (taken[2], taken[0], taken[1], taken[3]))
    extensions = tuple((path, seen.get(path)) for path, rel in facts.compiled if is_extension(rel))
    facts.whole[key] = (result, stamps, extensions)
    said = [stamps, extensions, result.version_text, result.import_roots, result.record_size]
    if facts.wholes.get(key) != said:
        facts.wholes[key] = said
        distinfo.keep(facts)
    return result


def whole(name: str, facts: distinfo.DistInfo, key: tuple[str | None, tuple[str, ...]]) -> Whole | None:
    """The whole verdict kept with *facts* for *key*: this process's, else the one the facts kept on disk hold."""
    kept = facts.whole.get(key)
    if kept is not None or key not in facts.wholes:
        return kept
    stamps, extensions, version, import_roots, record_size = facts.wholes[key]
    result = DistributionProbe(
        name=name,
        state="present",
        version_text=version,
        locked_text=key[0],
        dist_info_dir=facts.path,
        files_checked=facts.files_checked,
        records=facts.records,
        import_roots=import_roots,
        record_size=record_size,
    )
    facts.whole[key] = (result, stamps, extensions)
    return facts.whole[key]


def again(info: DistInfoDir, index: SiteIndex, key: tuple[str | None, tuple[str, ...]]) -> DistributionProbe | None:
    """The verdict given the last time the folder was found whole with the same lock and roots, when it still is:
    the checks the full way makes of it (the folder, METADATA and RECORD unchanged, every file there with its
    size, no pip leftover beside it, the library verdict of each extension module still holding), each file
    stat-ed once and nothing built on the way; None sends the probe the full way."""
    found = _known_whole(info, index, key)
    if found is None or not filechecks.still_whole(found[0], found[1][1]):
        return None
    kept = found[1]
    if kept[2]:
        from tierlock.probing import libraries

        if not libraries.still_known(index, index.sites, kept[2], index.python):
            return None
    return kept[0]


def _known_whole(
    info: DistInfoDir, index: SiteIndex, key: tuple[str | None, tuple[str, ...]]
) -> tuple[distinfo.DistInfo, Whole] | None:
    """The facts kept for the folder and their whole verdict for *key*, when there is one to confirm."""
    facts = distinfo.known(info, index.suffixes)
    if facts is None or facts.sizes is None or index.leftovers.get(facts.site):
        return None
    kept = facts.whole.get(key) or whole(info.name, facts, key)
    return None if kept is None else (facts, kept)


def kept_whole(
    index: SiteIndex, name: str, locked: str | None, import_roots: Sequence[str]
) -> tuple[distinfo.DistInfo, Whole] | None:
    """:func:`_known_whole` for :func:`~tierlock.probing.distribution.probe_distribution` of *name* with these
    arguments (not deep), nothing stat-ed: :mod:`tierlock.probing.verdict` confirms a round's at once."""
    key = normalize(name)
    found = index.dists.get(key, ())
    if len(found) != 1:
        return None
    try:
        text = metadata.normalized(str(locked)) if locked is not None else None
    except ValueError:  # InvalidVersion: the full way says it
        return None
    return _known_whole(found[0], index, (text, tuple(import_roots)))
