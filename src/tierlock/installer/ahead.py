"""The verification's reading of ``.dist-info`` folders, done while the backend installs.

After the backend, the verification reads each installed ``.dist-info`` folder
and turns RECORD's rows into the paths and sizes it stats. That part depends
only on the folder's own files (METADATA, RECORD, the entry points), which the
backend writes as it finishes each package. While it runs, a thread looks at
the site folders every few milliseconds and makes the facts of each folder of
the packages being installed that looks finished
(:func:`tierlock.probing.distinfo.prepare`). The verification after the backend
takes them only when the folder's listing and those files are byte for byte
what they were made from, and still stats every file RECORD lists: what the
backend did after the facts were made (rewrote RECORD, deleted a file) is seen
as without them. Nothing is kept past the process. The thread helps only while the install waits for the
backend (the interpreter runs one thread's Python at a time): it is not started when an early backend has
ended already.

Once the install is at its backend step (no longer recorded for a kept plan: :func:`tierlock.armrecord.watching`),
the thread also does the one other piece of the work after the backend that does not depend on it (*also*: the
receipts' parts and their folder, :func:`tierlock.installer.receiptrecord.prepare`); the install takes that result,
or does that work itself after the backend when the thread did not get to it or it failed.

Every millisecond of CPU the thread spends is taken from a backend that keeps both cores busy, so a look costs
stats when nothing changed since the one before: the site folders are listed again only when one of them changed
(or changed too recently to tell: :data:`TICK_NS`), and a folder is read only once its ``INSTALLER`` is there and,
after a read that found it unfinished, once its ``RECORD`` changed. What a look skips costs no verdict: a folder
not made ahead is read after the backend, as without the thread.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Callable, Collection
from typing import TYPE_CHECKING, Any

from tierlock import interrupts
from tierlock.probing import distinfo
from tierlock.probing.site import SiteIndex
from tierlock.targetcache import identity

if TYPE_CHECKING:
    from tierlock.environment import Target
    from tierlock.probing.site import DistInfoDir


def ended() -> bool:
    """Whether the backend was started early and has ended already (its watcher saw it end: tierlock's own start
    outlasted it). Then nothing runs beside it: the folders are read after it as without the thread, which would
    only share the interpreter with what the install does until its verification."""
    early = sys.modules.get("tierlock.earlyarm")
    spawned = getattr(getattr(early, "current", None), "spawned", None)
    return getattr(spawned, "ended", None) is not None


def recorded() -> bool:
    """Whether the install's part before the backend is still being recorded (:func:`tierlock.armrecord.watching`):
    until the backend step, *also* waits (it writes: the receipts' folder), so the plan can be kept."""
    record = sys.modules.get("tierlock.armrecord")
    return record is not None and bool(record.watching())


def _attempt(work: Callable[[], Any]) -> Any:
    """*work*'s result; None when it failed (the install does it after the backend, and says what is wrong)."""
    try:
        return work()
    except Exception:
        return None


#: How long the thread waits between two looks at the site folders (seconds).
PAUSE = 0.01
#: How long an install that stops on an error or an interrupt waits for the thread to end (seconds).
GIVE_UP = 5.0
#: How old a file's modification time must be (ns, against the clock when it was stat-ed) for the next change to move
#: it: a file system stamps modifications from a clock that ticks coarser than the one read here (a few ms), never
#: this coarse. A stamp newer than that is looked at again at the next look.
TICK_NS = 20_000_000

Stamp = tuple[int, int, int, int]
"""A file's inode, size, modification and status change times (ns): :func:`tierlock.targetcache.identity`."""


class Ahead:
    """The thread that makes the facts of the folders of *names* in *target* while the backend runs (first *also*,
    whose result is :attr:`made`)."""

    def __init__(self, target: Target, names: Collection[str], also: Callable[[], Any] | None = None) -> None:
        self.sites = tuple(map(str, target.site_paths))
        self.suffixes = tuple(target.ext_suffixes)
        self.wanted = tuple(names)
        self.pending = list(dict.fromkeys(self.wanted))
        """The packages wanted with a folder not made yet (or none found yet)."""
        self.done: set[str] = set()
        self.also = also
        self.made: Any = None
        """What *also* returned in the thread (None: it did not run there, or failed)."""
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, name="tierlock-ahead", daemon=True)
        self.index: SiteIndex | None = None
        """The site folders as last listed."""
        self.listed: tuple[Stamp | None, ...] | None = None
        """Their stamps then, when settled (none changed within :data:`TICK_NS` before): a listing still true while
        they are the same."""
        self.tried: dict[str, Stamp] = {}
        """Folder -> its RECORD's settled stamp when a read found the folder unfinished: not read again until it
        changes."""

    def __enter__(self) -> Ahead:
        if not ended():
            try:
                with interrupts.sheltered():  # signals go to the main thread, which waits for the backend
                    self.thread.start()
            except BaseException as exc:  # an interrupt held while it started lands as the block ends: no __exit__
                self.__exit__(type(exc))
                raise
        return self

    def __exit__(self, kind: type[BaseException] | None, *exc: object) -> None:
        self.stop.set()
        if self.thread.ident is not None:
            # leaving on an error or an interrupt, nothing the thread makes is used: it is waited for a while only
            # (a thread stuck for good - on an import lock an interrupt left taken - must not hold the exit)
            self.thread.join(None if kind is None else GIVE_UP)

    def _run(self) -> None:
        try:
            while not self.stop.is_set():
                if self.also is not None and not recorded():
                    also, self.also = self.also, None
                    self.made = _attempt(also)
                self.look()
                self.stop.wait(PAUSE)
        except Exception:  # what was not made ahead is read after the backend, which says what is wrong
            return

    def look(self) -> None:
        """Make the facts of every folder of the packages wanted that looks finished and has none yet (a package whose
        every folder found has them is looked for no more)."""
        if not self.pending:
            return
        index = self._sites()
        for name in list(self.pending):
            found = index.find(name)
            for info in found:
                if self.stop.is_set():
                    return
                if info.path not in self.done:
                    self._make(info, index.suffixes)
            if found and all(info.path in self.done for info in found):
                self.pending.remove(name)

    def _make(self, info: DistInfoDir, suffixes: tuple[str, ...]) -> None:
        """Make the facts of the folder *info* when it looks finished."""
        now = time.time_ns()
        record = self._ready(info.path)
        if record is None:
            return
        if distinfo.prepare(info, suffixes):
            self.done.add(info.path)
        elif record[2] < now - TICK_NS:  # unfinished: read again once its RECORD (as stat-ed before) changed
            self.tried[info.path] = record

    def _sites(self) -> SiteIndex:
        """The site folders' ``.dist-info`` folders: listed again unless their stamps are the settled ones of the
        last listing."""
        now = time.time_ns()
        stamps = tuple(map(identity, self.sites))
        if self.index is None or stamps != self.listed:
            self.index = SiteIndex.scan(self.sites, self.suffixes)
            settled = all(s is not None and s[2] < now - TICK_NS for s in stamps)
            self.listed = stamps if settled else None
        return self.index

    def _ready(self, path: str) -> Stamp | None:
        """The stamp of the folder *path*'s RECORD when the folder may be finished: its ``INSTALLER`` is there (an
        installer writes it before RECORD, last) and its RECORD is not the one a read found unfinished; else None."""
        if identity(f"{path}{os.sep}INSTALLER") is None:
            return None
        record = identity(f"{path}{os.sep}RECORD")
        if record is None or record == self.tried.get(path):
            return None
        return record
