"""The facts of ``.dist-info`` folders, kept on disk so that the next command need not read RECORD again.

:mod:`tierlock.probing.distinfo` keeps what it read from a folder for the
rest of the process; this module keeps it across processes. One file per
site folder and target ABI (its extension suffixes), in the user's cache
folder (:func:`tierlock.probing.libcache.folder`: ``$TIERLOCK_CACHE_DIR``, an
empty value turning the cache off), in :mod:`marshal`'s format, with the
Python version that wrote it in its key. Each folder's facts are kept with
its identity (inode, size and modification time of the folder, its METADATA
and its RECORD) and given again only when all three are unchanged; a folder
touched within the last second is never kept (``distinfo`` decides that).
A verdict is kept only as what the distribution was when it was found whole
(:attr:`tierlock.probing.distinfo.DistInfo.wholes`): a probe that takes it from
here still stats every file RECORD lists and gives it only when each is as it
was then. The file is written when the process ends, and only
when something new was learnt; a file that cannot be read or written is no
cache.
"""

from __future__ import annotations

import marshal  # loaded by every interpreter at start-up: no import cost
import sys
from operator import attrgetter
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tierlock.probing.distinfo import DistInfo
    from tierlock.probing.site import DistInfoDir

SCHEMA = 7
_KEEP = 4096
"""At most this many folders per file (then it starts again)."""

#: The fields kept as they are (what only a rare probe asks is derived from them when it is asked), but ``records``:
#: RECORD's sizes and hashes as ``marshal`` bytes, decoded only when a probe looks into its rows
#: (:class:`tierlock.probing.keptrows.Rows`). The paths repeat RECORD's, which :mod:`marshal` writes once.
PLAIN = (
    "meta_resized",
    "problems",
    "version_raw",
    "listing",
    "source_problem",
    "record_problem",
    "records",
    "compiled",
    "heads",
    "outside",
    "unfinished",
    "recorded_roots",
    "wholes",
    "rels",
    "paths",
    "near",
    "sizes",
    "excluded",
    "compiled_sizes",
    "watched",
    "wheel_tags",
)

#: The fields named in :data:`PLAIN` of a distribution's facts, at once; RECORD's rows are kept as their bytes.
_PLAIN_OF = attrgetter(*PLAIN)
_RECORDS = PLAIN.index("records")

_FILES: dict[tuple[str, tuple[str, ...]], _File] = {}
_UNSAVED: list[_File] = []


class _File:
    """The kept facts of one site folder for one ABI: read on first use, written at exit when it grew."""

    def __init__(self, site: str, suffixes: tuple[str, ...]) -> None:
        self.path = _path(site, suffixes)
        self.key = [SCHEMA, site, list(suffixes), list(sys.version_info[:2])]
        self.entries: dict[str, list[Any]] = self._load()
        self.dirty = False

    def _load(self) -> dict[str, list[Any]]:
        if self.path is None:
            return {}
        try:
            with open(self.path, "rb") as fh:
                data = marshal.loads(fh.read())
            if data["key"] != self.key or not isinstance(data["entries"], dict):
                return {}
        except (OSError, ValueError, EOFError, KeyError, TypeError):
            return {}
        entries: dict[str, list[Any]] = data["entries"]
        return entries

    def save(self) -> None:
        if self.path is None or not self.dirty:
            return
        from tierlock.probing.libcache import dump

        dump(self.path, {"key": self.key, "entries": self.entries})
        self.dirty = False


def _path(site: str, suffixes: tuple[str, ...]) -> str | None:
    from tierlock.keptfirst import folder
    from tierlock.probing.libcache import named

    where = folder()
    return None if where is None else named(where, "distinfo", "\0".join((site, *suffixes)))


def _file(site: str, suffixes: tuple[str, ...]) -> _File:
    kept = _FILES.get((site, suffixes))
    if kept is None:
        kept = _FILES[(site, suffixes)] = _File(site, suffixes)
    return kept


def get(info: DistInfoDir, suffixes: tuple[str, ...], key: tuple[object, ...]) -> list[Any] | None:
    """The entry kept for the folder *info* when its identity is still *key* (the source folder, then the
    fields named in :data:`PLAIN`); else None. :func:`tierlock.probing.distinfo.read` rebuilds the facts."""
    entry = _file(info.site, suffixes).entries.get(info.path)
    if not isinstance(entry, list) or len(entry) != 2 + len(PLAIN) or tuple(entry[0]) != key:
        return None
    return entry


def put(facts: DistInfo, suffixes: tuple[str, ...]) -> None:
    """Keep *facts* (their folder was not touched within the last second); written when the process ends."""
    kept = _file(facts.site, suffixes)
    if kept.path is None:
        return
    if len(kept.entries) >= _KEEP:
        kept.entries.clear()
    source = None if facts.source is None else str(facts.source)
    fields = list(_PLAIN_OF(facts))  # (every field read in C: put runs for every distribution a cold run reads)
    fields[_RECORDS] = facts.kept_records()
    kept.entries[facts.path] = [list(facts.key), source, *fields]
    if not kept.dirty:
        kept.dirty = True
        if not _UNSAVED:
            import atexit

            atexit.register(save_all)
        _UNSAVED.append(kept)


def save_all() -> None:
    """Write every file this process added to (run when the process ends)."""
    while _UNSAVED:
        _UNSAVED.pop().save()
