"""The verification's stats taken while the backend runs, and the proof at its end that none of them went stale.

The verification after the backend stats every file RECORD lists (the closure verdict). For a package the backend
finished while it still installs the others (its ``.dist-info`` folder read ahead: :mod:`tierlock.installer.ahead`),
the read-ahead thread takes them then, in this order:

1. every file the package's verdict rests on (each file RECORD lists, METADATA, RECORD, every entry of the
   ``.dist-info`` folder) and every folder on the way from the site folder down to them is watched (inotify:
   :mod:`tierlock.installer.inotify`), and the highest of those folders (the site folder; the folder of a file
   outside it: a console script) has its identity (device, inode) noted;
2. then, and only then, the folder's facts are confirmed as the verification would (its identity, its listing and
   files byte for byte those they were made from) and every file is stat-ed as it would be (:func:`tierlock.probing.
   filechecks.stat_rows`): kept only when every one is there with the size RECORD gives it.

Once the backend has ended, :meth:`Proof.proven` reads every event queued since: a package is proven - its in-run
stats given to the verification in place of new ones (:attr:`tierlock.probing.site.SiteIndex.checked`) - only when no
event touched a file or folder it rests on (a file written, truncated, its times, mode or links changed, removed,
renamed or replaced; an entry of a folder on the way created, removed or renamed; a watched folder deleted or moved;
any entry of its ``.dist-info`` folder) and each highest folder is still the same one at its path. An event is
queued by the very system call that makes the change, before it returns; a file's own watch sees a change made
through any of its names (uv installs hard links into its cache). The events queued before a package's watches were
added are read (and counted against the packages taken before it) first. The queue overflowing, a watch the system
refuses (its limit), anything unexpected: the package, or every one, is stat-ed after the backend as without this.
Nothing here is kept past the process; elsewhere than Linux nothing is taken in-run.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from tierlock.installer import inotify

if TYPE_CHECKING:
    from collections.abc import Callable

    from tierlock.probing.site import DistInfoDir

#: How many paths are watched between two looks at whether the install stopped waiting (the backend ended).
BATCH = 256
#: The share of the system's limit of watches per user (``fs.inotify.max_user_watches``) one arming may hold: the
#: user's other programs that watch files (editors, build tools) keep the rest; a package past it is stat-ed after.
SHARE = 4
#: The limit assumed when it cannot be read (the kernel's old default).
LIMIT = 8192
_SELF = inotify.DELETE_SELF | inotify.MOVE_SELF | inotify.UNMOUNT | inotify.IGNORED

Taken = tuple[Any, Any, dict[str, tuple[int, int, int]]]
"""What the verification's probe keeps of a folder (:attr:`SiteIndex.checked`): facts, stats, compiled files."""


class Proof:
    """The packages stat-ed while the backend ran (:meth:`take`), and what may have changed since (:meth:`proven`)."""

    def __init__(self) -> None:
        self.watcher = inotify.Watcher()
        self.wds: dict[str, int] = {}
        """Path -> its watch."""
        self.paths: dict[int, list[str]] = {}
        """Watch -> the paths watched through it (one inode: one watch)."""
        self.tracked: dict[str, set[str]] = {}
        """A file's or folder's path -> the ``.dist-info`` folders whose in-run verdict rests on it."""
        self.listed: dict[str, str] = {}
        """A ``.dist-info`` folder -> itself: any entry of it created, removed or renamed spoils it."""
        self.tops: dict[str, tuple[tuple[int, int] | None, set[str]]] = {}
        """A highest watched folder -> its identity (device, inode) once watched, and the folders resting on it."""
        self.taken: dict[str, Taken] = {}
        self.suffixes: dict[str, tuple[str, ...]] = {}
        """The extension suffixes each package was taken for."""
        self.spoiled: set[str] = set()
        self.broken = False
        """Nothing is proven (an overflow, an event of an unknown watch, an error)."""
        self.budget = _limit() // SHARE
        """How many watches are left to take."""

    def take(self, info: DistInfoDir, suffixes: tuple[str, ...], stop: Callable[[], bool]) -> bool:
        """Watch, then stat, the package of the ``.dist-info`` folder *info* (read ahead: :func:`tierlock.probing.
        distinfo.prepare`); True when it was kept. *stop*: the install no longer waits (left as it is)."""
        from tierlock.probing import distinfo, filechecks

        if self.broken:
            return False
        self.note()  # what came before this package's watches is not about it
        made = distinfo.made_ahead(info, suffixes)
        if made is None:
            return False
        folder = info.path
        files = [row[0] for row in made.records]
        files += [*made.own, *(f"{folder}{os.sep}{name}" for name in made.listing or ())]
        folders = _folders(files, made.site)
        if not self._watch(folders, files, stop):
            return False
        tops = [d for d in folders if os.path.dirname(d) not in folders]
        for top in tops:
            if top not in self.tops:
                self.tops[top] = (_identity(top), set())
        facts = distinfo.confirmed(info, suffixes)  # (after the watches: any change from here on is an event)
        if facts is None or facts.record_problem is not None:
            return False
        seen: dict[str, tuple[int, int, int]] = {}
        stats = filechecks.stat_rows(facts, False, seen)
        if any(stats):  # a file missing or of another size: stat-ed again after the backend, which says it
            return False
        for path in (*files, *folders):
            self.tracked.setdefault(path, set()).add(folder)
        self.listed[folder] = folder
        for top in tops:
            self.tops[top][1].add(folder)
        self.taken[folder] = (facts, stats, seen)
        self.suffixes[folder] = suffixes
        return True

    def _watch(self, folders: dict[str, None], files: list[str], stop: Callable[[], bool]) -> bool:
        """Watch every one of *folders* and *files* not watched yet; False when one cannot be, or on *stop*."""
        add, wds, paths = self.watcher.add, self.wds, self.paths
        for i, path in enumerate((*folders, *files)):
            if i % BATCH == 0 and stop():
                return False
            if path in wds:
                continue
            if self.budget <= 0:
                return False
            self.budget -= 1
            wd = add(path)
            if wd is None:
                return False
            wds[path] = wd
            paths.setdefault(wd, []).append(path)
        return True

    def note(self) -> None:
        """Read the events queued so far: the packages taken whose files or folders they touched are spoiled."""
        tracked, spoiled = self.tracked, self.spoiled
        for wd, mask, name in self.watcher.events():
            if mask & inotify.Q_OVERFLOW or wd not in self.paths:
                self.broken = True
                return
            for path in self.paths[wd]:
                if not name or mask & _SELF:
                    spoiled.update(tracked.get(path, ()))
                if name:
                    spoiled.update(tracked.get(f"{path}{os.sep}{name}", ()))
                    if path in self.listed:
                        spoiled.add(path)

    def proven(self) -> dict[str, Taken]:
        """Once the backend has ended: the packages taken in-run that nothing touched since, by ``.dist-info``
        folder (each highest folder still the one watched at its path); the watches then let go (in a thread of
        their own: the system frees thousands of watches in milliseconds, while the install goes on)."""
        try:
            self.note()
            if self.broken:
                return {}
            for top, (identity, resting) in self.tops.items():
                if identity is None or _identity(top) != identity:
                    self.spoiled.update(resting)
            from tierlock.probing import distinfo

            proven = {k: v for k, v in self.taken.items() if k not in self.spoiled}
            for folder in proven:  # given as they are: not offered again to a later read of the folder
                distinfo.given(folder, self.suffixes[folder])
            return proven
        finally:
            _aside(self.watcher.close)


def _aside(work: Callable[[], None]) -> None:
    """Run *work* in a daemon thread (signals stay with the main thread); at once when no thread can start."""
    import threading

    from tierlock import interrupts

    try:
        with interrupts.sheltered():
            threading.Thread(target=work, name="tierlock-unwatch", daemon=True).start()
    except RuntimeError:
        work()


def _folders(files: list[str], site: str) -> dict[str, None]:
    """The folders of *files* and, for those below *site*, every folder up to *site* (in order, once each)."""
    out: dict[str, None] = {}
    inside = site.rstrip(os.sep) + os.sep
    for path in files:
        folder = os.path.dirname(path)
        if folder in out:
            continue
        if not path.startswith(inside):
            out[folder] = None
            continue
        while folder not in out:
            out[folder] = None
            if len(folder) < len(inside) or folder == site:
                break
            folder = os.path.dirname(folder)
    return out


def _limit() -> int:
    """The system's limit of inotify watches per user (:data:`LIMIT` when it cannot be read)."""
    try:
        with open("/proc/sys/fs/inotify/max_user_watches", "rb") as fh:
            return int(fh.read())
    except (OSError, ValueError):
        return LIMIT


def _identity(path: str) -> tuple[int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_dev, st.st_ino
