"""What one ``.dist-info`` folder says, read once and kept while the folder is unchanged.

:func:`read` gathers everything the probe derives from the folder's own
files - the METADATA version, RECORD's rows (with their absolute paths,
sizes and hashes, and which of them provide an import root on the target),
the console scripts an installer must have written, an editable install's
source, and the reasons any of these are wrong - into a :class:`DistInfo`.
It is kept per process, keyed by the folder's identity (its inode and
modification time, and the inode, size and modification time of METADATA
and RECORD) and by the target's extension suffixes, so a probe that meets
the folder again stats it instead of reading and splitting its files: what
remains per probe is one ``stat`` of each installed file
(:mod:`tierlock.probing.distribution`).

A folder touched in the last second is read but not kept (a file rewritten
within the file system's clock tick keeps its modification time: git's
"racy" entries). ``entry_points.txt`` and ``direct_url.json`` are read with
the folder; rewriting them in place, which no installer does, is not noticed
until the folder changes.
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from collections.abc import Set as AbstractSet
from itertools import compress, repeat
from operator import itemgetter, methodcaller
from pathlib import Path
from typing import Any

from tierlock.probing import compiled, distcache, distfiles
from tierlock.probing.keptrows import Row, Rows
from tierlock.probing.site import DistInfoDir

_KEEP = 4096
"""How many folders are kept per process (then the memory starts again)."""
_RACY_NS = 1_000_000_000
_MEMO: dict[tuple[str, tuple[str, ...]], DistInfo] = {}
_PREPARED: dict[tuple[str, tuple[str, ...]], tuple[distfiles.Held, DistInfo]] = {}
"""The facts :func:`prepare` made ahead, with the bytes they were made from, by folder and suffixes."""
_FINISHED = frozenset(("METADATA", "RECORD", "INSTALLER"))
"""What a folder an installer finished lists (:func:`prepare` waits for them)."""
_REL = itemgetter(1)
Stamp = tuple[int, int, int, int]
"""A file's inode, size, modification time and status change time (ns): a rewrite that puts the size and the
modification time back (``cp -p``, ``touch -r``, ``rsync -t --inplace``) still moves the last, which no call sets."""


class DistInfo:
    """Everything the probe derives from one ``.dist-info`` folder's own files (plain class: built per folder)."""

    __slots__ = (
        "_loadable",
        "_modules",
        "_providers",
        "_records",
        "compiled",
        "compiled_sizes",
        "excluded",
        "heads",
        "key",
        "listing",
        "meta_resized",
        "near",
        "outside",
        "own",
        "path",
        "paths",
        "problems",
        "record_problem",
        "recorded_roots",
        "rels",
        "site",
        "sizes",
        "source",
        "source_problem",
        "suffixes",
        "unfinished",
        "version_raw",
        "watched",
        "wheel_tags",
        "whole",
        "wholes",
    )

    wheel_tags: tuple[str, ...]
    """The tags the WHEEL file lists: the wheel the distribution was installed from (none without one; set by the
    reader of the folder's files, :func:`tierlock.probing.distfiles.build`, or from the facts kept on disk)."""

    def __init__(self, info: DistInfoDir, key: tuple[object, ...], suffixes: tuple[str, ...] = ()) -> None:
        self.path = info.path
        self.site = info.site
        self.own = (f"{info.path}{os.sep}METADATA", f"{info.path}{os.sep}RECORD")
        """METADATA's and RECORD's paths."""
        self.key = key
        self.suffixes = suffixes
        """The target's extension suffixes (which files provide modules to it)."""
        self.meta_resized: str | None = None
        """``METADATA-PATH (N bytes, RECORD says M)`` when METADATA has another size than RECORD says (checked once,
        here: its identity is in the key)."""
        self.problems: list[str] = []
        """What is wrong with METADATA (missing, unreadable, no Version)."""
        self.version_raw: str | None = None
        self.listing: frozenset[str] | None = None
        """The names in the folder (None when it cannot be listed)."""
        self.source: Path | None = None
        """An editable install's source folder."""
        self.source_problem: str | None = None
        self.record_problem: str | None = None
        self._records: Sequence[Row] = ()
        self.rels: list[str] = []
        """The RECORD paths of :attr:`records`, in order."""
        self.excluded: tuple[str, ...] = ()
        """METADATA's and RECORD's paths when RECORD lists them and the key holds their identity: not stat-ed again."""
        self.paths: tuple[str, ...] = ()
        """The absolute paths a probe stats in C (:func:`os.stat` mapped over them): :attr:`records` but
        :attr:`excluded` and the :attr:`compiled` files."""
        self.near: tuple[str, ...] = ()
        """:attr:`paths` as a probe looks them up from the site folder (an open folder's descriptor: the folders
        above it are not walked again for each file): each file's RECORD path, or its absolute path when it is not
        below the site folder (a console script, a data file)."""
        self.sizes: list[int] | None = None
        """Their recorded sizes, when RECORD gives every one (else None: the probe compares them row by row)."""
        self.compiled: tuple[tuple[str, str], ...] = ()
        """(absolute path, RECORD path) of the compiled artifacts RECORD lists."""
        self.watched: tuple[str, ...] = ()
        """The folder, METADATA, RECORD and the compiled files: the files whose identity a distribution found whole
        keeps (:attr:`whole`)."""
        self.compiled_sizes: tuple[int | None, ...] = ()
        """Their recorded sizes: a probe stats them apart from :attr:`paths` and keeps their identity for the
        shared-library check (one ``stat`` per file in all)."""
        self.heads: dict[str, bool] = {}
        """First parts of RECORD's paths, in order -> whether they are folders."""
        self._modules: list[str] | None = None
        self._loadable: frozenset[str] | None = None
        self._providers: dict[str, list[str]] | None = None
        self.outside: list[str] = []
        """RECORD paths that leave the site folder (console scripts in ``bin/``, data files)."""
        self.unfinished: list[str] = []
        """Signs that an installer never finished (INSTALLER, its own RECORD, the console scripts), or a venv moved."""
        self.recorded_roots: tuple[str, ...] = ()
        """The import roots RECORD's first path parts name (``top_level.txt``'s without a RECORD)."""
        self.whole: dict[tuple[str | None, tuple[str, ...]], tuple[Any, list[Stamp], tuple[Any, ...]]] = {}
        """(locked version, declared roots) -> the verdict last given when the distribution was found whole, with
        what the files of :attr:`watched` were then (inode, size, modification time) and its extension modules with
        their identities (:func:`tierlock.probing.distribution.probe_distribution` keeps and reuses it)."""
        self.wholes: dict[tuple[str | None, tuple[str, ...]], list[Any]] = {}
        """The same, as the facts kept on disk hold it (:mod:`tierlock.probing.distcache`): the identities, the
        extension modules', and what the verdict said (its version, import roots, RECORD's size)."""

    @property
    def records(self) -> Sequence[Row]:
        """(absolute path, RECORD path, size, hash) of every file RECORD lists, byte-code caches left out (facts
        read back from disk: :class:`Rows`, decoded when first looked into)."""
        return self._records

    @records.setter
    def records(self, rows: Sequence[Row]) -> None:
        self._records = rows

    def kept_records(self) -> bytes:
        """:attr:`records` as the facts kept on disk hold them (:meth:`Rows.kept`)."""
        return Rows.kept(self._records, self.site)

    @property
    def files_checked(self) -> int:
        return len(self._records)

    @property
    def rows(self) -> tuple[tuple[str, int | None, str], ...]:
        """(absolute path, size, RECORD path) of the files a probe stats, for the row-by-row comparison (made when a
        file is missing or resized)."""
        return tuple((full, size, rel) for full, rel, size, _hash in self.records if full not in self.excluded)

    @property
    def modules(self) -> list[str]:
        """The RECORD paths that may provide a module to the target (``.py`` files, files ending with one of its
        extension suffixes), picked in C when first asked."""
        if self._modules is None:
            ends = repeat((".py", *self.suffixes))
            self._modules = list(compress(self.rels, map(str.endswith, self.rels, ends)))
        return self._modules

    @property
    def loadable(self) -> frozenset[str]:
        """The modules (``pkg/_core``) RECORD's ``.py`` files and extension modules provide to the target (asked only
        of a distribution with an extension built for another Python)."""
        if self._loadable is None:
            suffixes = self.suffixes
            self._loadable = frozenset(
                compiled.module_path(rel)
                for rel in self.modules
                if rel.endswith(".py") or compiled.loads(rel, suffixes)
            )
        return self._loadable

    def provides(self, root: str, gone: AbstractSet[str] = frozenset()) -> bool:
        """Whether a RECORD file that is not *gone* provides the top-level module *root* to the target (the first
        one found answers: the files below *root* picked in C, looked at until one provides it)."""
        if self._providers is not None:
            return any(rel not in gone for rel in self._providers.get(root, ()))
        from tierlock.probing import roots  # (facts kept whole give their providers: the module stays unloaded)

        candidates = filter(methodcaller("startswith", root), self.modules)
        return any(name == root and rel not in gone for name, rel in roots.provided(candidates, self.suffixes))

    @property
    def providers(self) -> dict[str, list[str]]:
        """Top-level module -> the RECORD paths that provide it on the target (made when first asked)."""
        if self._providers is None:
            from tierlock.probing import roots

            self._providers = roots.providers(self.modules, self.suffixes)
        return self._providers


def read(info: DistInfoDir, suffixes: Sequence[str], *, again: bool = False) -> tuple[DistInfo, bool]:
    """The facts of the folder *info* for a target importing *suffixes*, and whether the caller must still
    confirm METADATA's and RECORD's identity (:func:`own_unchanged`): kept facts are given on one ``stat`` of
    the folder, and the caller stats those two files with the others anyway. *again*: read them now."""
    memo_key = (info.path, suffixes if isinstance(suffixes, tuple) else tuple(suffixes))
    kept = None if again else _MEMO.get(memo_key)
    if kept is not None:
        try:
            st = os.stat(info.path)
        except OSError:
            st = None
        if st is not None and kept.key[0] == (st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns):
            return kept, True
    key = _identity(info.path)
    settled = _settled(key)
    facts = None if again or not settled else _kept(info, memo_key[1], key)
    if memo_key in _PREPARED:  # made ahead while an installer wrote the folder: given when it is still the same
        ahead = _PREPARED.pop(memo_key)
        if facts is None and not again:
            facts = _prepared(ahead, info.path, key)
    if facts is None:
        facts = _build(info, key, memo_key[1])
        if settled:
            distcache.put(facts, memo_key[1])
    if settled:
        if len(_MEMO) >= _KEEP:
            _MEMO.clear()
        _MEMO[memo_key] = facts
    return facts, False


def _kept(info: DistInfoDir, suffixes: tuple[str, ...], key: tuple[object, ...]) -> DistInfo | None:
    """The facts an earlier process kept for the folder (:mod:`tierlock.probing.distcache`), when its identity is
    still *key*; None when none are kept or the entry is of another shape."""
    entry = distcache.get(info, suffixes, key)
    if entry is None:
        return None
    facts = DistInfo(info, key, suffixes)
    try:
        facts.source = None if entry[1] is None else Path(entry[1])
        for name, value in zip(distcache.PLAIN, entry[2:], strict=True):
            setattr(facts, name, value)
    except (ValueError, TypeError):
        return None
    blob = facts.records
    if (
        not isinstance(blob, bytes)
        or len(facts.watched) != 3 + len(facts.compiled)
        or len(facts.near) != len(facts.paths)
    ):
        return None  # (rows that are not kept as their bytes: of another shape)
    facts.records = Rows(blob, facts.rels, facts.site, lambda: _build(info, key, suffixes).records)
    return facts


def known(info: DistInfoDir, suffixes: tuple[str, ...]) -> DistInfo | None:
    """The facts this process kept for the folder *info* (for a target importing *suffixes*), not confirmed: the
    caller stats the folder, METADATA and RECORD (:attr:`DistInfo.stamps`) before it trusts them."""
    return _MEMO.get((info.path, suffixes))


def keep(facts: DistInfo) -> None:
    """Keep *facts* on disk again (a whole verdict was added), when they are the ones this process keeps."""
    if _MEMO.get((facts.path, facts.suffixes)) is facts:
        distcache.put(facts, facts.suffixes)


def own_unchanged(facts: DistInfo) -> bool:
    """Whether METADATA and RECORD are still the files *facts* were read from (one ``stat`` each: the ones every
    probe of the folder makes of them anyway, as of every file RECORD lists)."""
    try:
        meta = os.stat(facts.own[0])
        record = os.stat(facts.own[1])
    except OSError:
        return False
    return (meta.st_ino, meta.st_size, meta.st_mtime_ns, meta.st_ctime_ns) == facts.key[1] and (
        record.st_ino,
        record.st_size,
        record.st_mtime_ns,
        record.st_ctime_ns,
    ) == facts.key[2]


def _identity(path: str) -> tuple[object, ...]:
    """(inode, size, modification time, status change time) of the folder, its METADATA and its RECORD (None for
    one missing)."""
    out: list[object] = []
    stat = os.stat
    for place in (path, f"{path}{os.sep}METADATA", f"{path}{os.sep}RECORD"):
        try:
            st = stat(place)
        except OSError:
            out.append(None)
            continue
        out.append((st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns))
    return tuple(out)


def _settled(key: tuple[object, ...]) -> bool:
    """Whether nothing the key names was modified within the last second (else a rewrite could hide)."""
    newest = max((part[2] for part in key if isinstance(part, tuple)), default=0)
    return isinstance(newest, int) and newest < time.time_ns() - _RACY_NS


def _build(
    info: DistInfoDir, key: tuple[object, ...], suffixes: tuple[str, ...], held: distfiles.Held | None = None
) -> DistInfo:
    facts = DistInfo(info, key, suffixes)
    distfiles.build(facts, held)
    return facts


def prepare(info: DistInfoDir, suffixes: tuple[str, ...]) -> bool:
    """Make the facts of the folder *info* ahead of :func:`read`, while an installer may still be writing it
    (:mod:`tierlock.installer.ahead`), from its listing and files read at one moment; kept with those bytes and given by
    :func:`read` only when the folder is then byte for byte the same (:func:`_prepared`). True when they were kept:
    the folder looked finished (METADATA, RECORD listing INSTALLER, nothing wrong with them); else it is tried again
    later, or read as usual."""
    held = distfiles.take(info.path, _FINISHED)
    if held is None or b".dist-info/INSTALLER" not in held.data["RECORD"]:
        return False  # not finished yet: the wheel's own RECORD (an installer's lists INSTALLER) or none
    sizes = ((0, len(held.data["METADATA"]), 0, 0), (0, len(held.data["RECORD"]), 0, 0))  # the identities come at read
    facts = _build(info, (None, *sizes), suffixes, held)
    if facts.problems or facts.record_problem or facts.unfinished:
        return False
    facts.modules  # noqa: B018 (made now, while the installer runs: the import roots' check asks it after)
    _PREPARED[(info.path, suffixes)] = (held, facts)
    return True


def _prepared(ahead: tuple[distfiles.Held, DistInfo], path: str, key: tuple[object, ...]) -> DistInfo | None:
    """The facts :func:`prepare` made of the folder, when its listing and files are still the bytes they were made
    from and METADATA and RECORD have those sizes now (*key*: their identity, stat-ed before this read); given with
    *key* as their own."""
    held, facts = ahead
    meta, rec = key[1], key[2]
    if not (isinstance(meta, tuple) and isinstance(rec, tuple)) or (meta[1], rec[1]) != (
        facts.key[1][1],  # type: ignore[index]
        facts.key[2][1],  # type: ignore[index]
    ):
        return None
    if distfiles.take(path) != held:
        return None
    facts.key = key
    return facts
