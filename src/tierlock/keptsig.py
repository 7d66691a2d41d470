"""What a path or a module is, for a recorded run (:mod:`tierlock.keptrecord`, :mod:`tierlock.lockrecord`,
:mod:`tierlock.armrecord`): the signature a look-up found, whether a file was modified too recently to keep a run
by, the files of the modules loaded, and the tables every recorder keeps of what its run looked up, listed and
scanned (:func:`looked`, :func:`unsettled`)."""

from __future__ import annotations

import os
import sys
from _frozen_importlib_external import FileFinder

from tierlock.keptfirst import sig_of
from tierlock.keptrun import WRITE_FLAGS, listing, modified_since, scan, stat_sig

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import Any

#: The look-up of the file system itself (a recorded run replaces :func:`os.stat` with its own).
_real_stat = os.stat


def seen_sig(path: str, found: os.stat_result | int | None, *, follow: bool = True) -> tuple[int, ...]:
    """The :func:`~tierlock.keptrun.stat_sig` of *path* as the run's own look-up *found* it (a stat result, or a
    failed look-up's ``-errno``; None: never looked up by the run, e.g. a module's source: looked up now)."""
    if found is None:
        return stat_sig(path, follow=follow)
    if isinstance(found, int):
        return (found,)
    return sig_of(found)


def sig_table(
    paths: Iterable[str], found: dict[str, os.stat_result | int] | None = None, *, follow: bool = True
) -> dict[str, tuple[int, ...]]:
    """Each of *paths* (sorted) -> its signature: as the run's first look-up *found* it (:func:`seen_sig`), or
    looked up now when *found* is None (a lock's, an arming's: known by its look-up at the end)."""
    if found is None:
        return {path: stat_sig(path, follow=follow) for path in sorted(paths)}
    return {path: seen_sig(path, found.get(path), follow=follow) for path in sorted(paths)}


def looked(
    stats: Iterable[str],
    lstats: Iterable[str],
    settled_ns: int,
    *,
    listed: set[str],
    scanned: Iterable[str],
    found: tuple[dict[str, os.stat_result | int], dict[str, os.stat_result | int]] | None = None,
) -> dict[str, Any]:
    """What a recorded run looked at, as its entry keeps it: ``stats`` and ``lstats`` (:func:`sig_table` of
    *stats* and *lstats*, *found*: the run's first look-ups, following links and not), the ``shadows`` of the
    modules it loaded (:func:`shadows`), the ``lists`` of the folders it *listed* and of the namespace portions
    those shadows name, and the ``scans`` of the folders it *scanned*."""
    firsts, lfirsts = (None, None) if found is None else found
    stat_table = sig_table(stats, firsts)
    lstat_table = sig_table(lstats, lfirsts, follow=False)
    shadowed, portions = shadows(settled_ns)  # (a module put first on sys.path: what a full run would import)
    lists = {path: listing(path) for path in sorted(listed | portions)}
    scans = {path: scan(path) for path in sorted(scanned)}
    return {"stats": stat_table, "lstats": lstat_table, "lists": lists, "scans": scans, "shadows": shadowed}


def unsettled(sigs: Iterable[tuple[int, ...]], scans: dict[str, Any], since_ns: int) -> bool:
    """Whether any of the signatures *sigs*, or of the entries of the folders *scans* (:func:`tierlock.keptrun.scan`
    tables), is of a file modified at or after *since_ns*: too recently to be sure a later change would be seen."""
    if any(modified_since(sig, since_ns) for sig in sigs):
        return True
    return any(modified_since(sig, since_ns) for e in scans.values() if isinstance(e, tuple) for _name, sig in e)


def writes(mode: str | None, flags: int) -> bool:
    """Whether an ``open`` audit event of *mode* (None: :func:`os.open`'s, by its *flags*) opens to write."""
    return any(c in mode for c in "wax+") if mode is not None else bool(flags & WRITE_FLAGS)


def recent(path: str, since_ns: int) -> bool:
    """Whether *path* is a file modified at or after *since_ns* (:func:`~tierlock.keptrun.modified_since` of its
    :func:`~tierlock.keptrun.stat_sig`), looked up without being noted as one of the run's look-ups."""
    try:
        st = _real_stat(path)
    except OSError:
        return False
    return st.st_mode & 0o170000 != 0o040000 and st.st_mtime_ns >= since_ns


def parent(path: str) -> str:
    return os.path.basename(os.path.dirname(path))


def module_files() -> tuple[set[str], set[str]]:
    """The files the import system read for the modules loaded (source and byte code), and their sources."""
    read: set[str] = set()
    sources: set[str] = set()
    for module in list(sys.modules.values()):
        source, cached = getattr(module, "__file__", None), getattr(module, "__cached__", None)
        if isinstance(source, str):
            sources.add(source)
            read.add(source)
        if isinstance(cached, str):
            read.add(cached)
    return read, sources


def shadows(settled_ns: int) -> tuple[dict[str, tuple[int | None, dict[str, str]]], set[str]]:
    """What a module put in a folder of :data:`sys.path` would shadow: for each folder searched for a top-level
    module loaded from a file (the folders before its own, and its own), its modification time (ns; None when it
    was modified at or after *settled_ns*: a change within the clock's tick may leave it; ``-errno``: not there),
    and the names whose entries would be taken there (module name -> the entry it was loaded from in that folder,
    ``""`` for none: :func:`tierlock.keptrun.unshadowed`); and the folders of such a name already there (a
    namespace portion the path finder passed over, which an ``__init__`` put in it makes the module, with no change
    to the folder holding it): their listings are kept too. Submodules are found in their package's own folder."""
    try:
        here = os.getcwd()
    except OSError:
        here = ""
    paths = [entry or here for entry in sys.path if type(entry) is str]
    names_of: dict[str, dict[str, str]] = {}
    for name, module in list(sys.modules.items()):
        if "." in name:
            continue
        spec = getattr(module, "__spec__", None)
        origin = getattr(spec, "origin", None)
        if not getattr(spec, "has_location", False) or not isinstance(origin, str):
            continue
        found = os.path.dirname(origin) if spec.submodule_search_locations is not None else origin  # type: ignore[union-attr]
        container = os.path.dirname(found)
        if container not in paths:
            continue  # (found by a finder of its own: not through the folders of sys.path)
        for folder in paths[: paths.index(container)]:
            names_of.setdefault(folder, {})[name] = ""
        names_of.setdefault(container, {})[name] = os.path.basename(found)
    table: dict[str, tuple[int | None, dict[str, str]]] = {}
    portions: set[str] = set()
    for folder, names in names_of.items():
        try:
            st = _real_stat(folder)
        except OSError as exc:
            table[folder] = (-(exc.errno or 1), names)
            continue
        settled = st.st_mtime_ns < settled_ns
        entries = _entries(folder, st.st_mtime) if settled else None
        if entries is None:
            try:
                entries = frozenset(os.listdir(folder))
            except OSError:
                entries = frozenset()
        for name, allowed in names.items():
            if name in entries and name != allowed and os.path.isdir(os.path.join(folder, name)):
                portions.add(os.path.join(folder, name))
        table[folder] = (st.st_mtime_ns if settled else None, names)
    return table, portions


def _entries(folder: str, mtime: float) -> Any:
    """The names in *folder* as the import system's finder of it listed them, when it listed them at its modification
    time *mtime* (a time that had settled: nothing changed since); None otherwise."""
    finder = sys.path_importer_cache.get(folder)
    if type(finder) is not FileFinder or getattr(finder, "_path_mtime", None) != mtime:
        return None
    return getattr(finder, "_path_cache", None)
