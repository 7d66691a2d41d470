"""Recording a read-only command for :mod:`tierlock.keptrun`: what it read, looked up, listed, and printed.

Only a run that is a function of what it looked at is kept (see :mod:`tierlock.keptrun` for the rules);
this module watches the run and writes the entry.
"""

from __future__ import annotations

import contextlib
import marshal
import os
import sys
import time

from tierlock import keptnote
from tierlock.collector import Paused
from tierlock.keptfirst import digest, entry_path, failed, folder, terminal
from tierlock.keptnote import Packed, packed_bytes
from tierlock.keptrun import EFFECTS, SCHEMA, SETTLE_NS, WRITES, _sha256, identity, modified_since, stat_sig, who
from tierlock.keptseal import seal
from tierlock.keptsig import looked, module_files, parent, recent, unsettled, writes
from tierlock.keptwatch import Tee, WatchedEnviron
from tierlock.probing.libcache import dump

#: What is taken from here besides :class:`Recorder` (the other recorders take the rest from :mod:`tierlock.keptsig`).
__all__ = ["Recorder", "module_files", "run"]

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from types import TracebackType
    from typing import Any

_real_stat = os.stat
_real_lstat = os.lstat
_real_access = os.access
#: Whether a path that begins with ``/`` is absolute (the look-up wrappers' short way).
_POSIX = os.sep == "/"
#: The recorder of the run in progress (an audit hook cannot be removed: it asks this).
_active: list[Recorder] = []
#: Whether :func:`_hook` was added to this process (once: it stays).
_hooked: list[bool] = []


def _hook(event: str, args: tuple[Any, ...]) -> None:
    if _active:
        _active[0].event(event, args)


class Recorder:
    """The run in progress: what it read, looked up, listed and printed, and whether it may be kept."""

    TEE = True
    """Whether what the run prints is noted (to be given again)."""

    def __init__(self, cache: str, *, gives_up: bool = False) -> None:
        self.cache = os.path.join(os.path.abspath(cache), "")
        self.gives_up = gives_up
        """Whether the run stops noting once it opened a file modified too recently to keep it by (:meth:`give_up`:
        a read-only command; a lock or an install keeps what it read by other rules)."""
        self.cwd = os.getcwd()
        self.started = time.time_ns()
        self.opened: set[str] = set()
        self.opens: dict[str, int] = {}
        """How many times each file was opened to read (to tell whether the census was its only reader)."""
        self.told_reads: dict[str, int] = {}
        self.looks: dict[str, int] = {}
        """How many times each path was looked up (to tell whether the census was the only one to look it up)."""
        self.told_looks: dict[str, int] = {}
        self.told: dict[str, list[Any]] = {}
        """What the census took from each file (see :mod:`tierlock.keptnote`); None in the list: kept by bytes."""
        self.told_parts: dict[str, list[object]] = {}
        """What :func:`tierlock.projectparts.read` took from each file at each reading (its parts' fingerprint)."""
        self.handed: dict[str, list[Any]] = {}
        """Each hand-out of a file's bytes by :func:`tierlock.fsutil.read_bytes`: ``(reader, whether it opened it)``."""
        self.surveys: list[list[Any]] = []
        """Each census worked out: [its root, [its inputs, its result]] (to work it out again from the facts)."""
        self.stats: set[str] = set()
        self.lstats: set[str] = set()
        self.found: dict[str, os.stat_result | int] = {}
        """What the first look-up of each path in :attr:`stats` found (its ``-errno`` when it failed): the entry
        keeps that, no second look-up (a path only asked about with :func:`os.access` is looked up then)."""
        self.lfound: dict[str, os.stat_result | int] = {}
        """The same, of :attr:`lstats` (not following a last link)."""
        self.listed: set[str] = set()
        self.scanned: set[str] = set()
        self.env: dict[str, str | None] = {}
        self.out: list[tuple[int, str]] = []
        self.tainted: str | None = None
        self.settled = self.started - SETTLE_NS
        """A file modified since is too recent to keep the run by (:meth:`entry`)."""
        self.recent: str | None = None
        """The first file the run opened that was modified since :attr:`settled`: the run cannot be kept (the first
        run after an edit), so nothing more is noted from then on (:meth:`give_up`)."""
        self._saved: tuple[Any, ...] = ()

    # -- watching ------------------------------------------------------------------------------------
    def __enter__(self) -> Recorder:
        if not _hooked:
            sys.addaudithook(_hook)
            _hooked.append(True)
        environ = os.environ
        watched = WatchedEnviron(
            environ._data,  # type: ignore[attr-defined]
            environ.encodekey,
            environ.decodekey,
            environ.encodevalue,
            environ.decodevalue,
        )
        watched.recorder = self
        self._saved = (environ, sys.stdout, sys.stderr)
        os.environ = watched  # noqa: B003 (the same variables: it shares their table)
        if self.TEE:
            sys.stdout = Tee(sys.stdout, 1, self)
            sys.stderr = Tee(sys.stderr, 2, self)
        os.stat, os.lstat, os.access = self._stat, self._lstat, self._access
        _active.append(self)
        keptnote.listen(self.hear)
        keptnote.look_with(self.stat_all)
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        _active.clear()
        keptnote.stop()
        self._unwatch()
        os.environ, sys.stdout, sys.stderr = self._saved
        if kind is not None:
            self.taint(f"ended with {kind.__name__}")

    def _unwatch(self) -> None:
        os.stat, os.lstat, os.access = _real_stat, _real_lstat, _real_access

    def give_up(self, path: str) -> None:
        """The run opened *path*, modified too recently to keep the run by: no entry can be made (:meth:`entry`
        would say so at the end), so the look-ups, opens and tells from here on are not noted (the probe's one
        ``stat`` per file of the closure goes unwrapped), the audit hook hands it no event more, and what the
        census kept is not told again (:func:`tierlock.keptnote.give_up`)."""
        self.recent = path
        self._unwatch()
        _active[:] = [r for r in _active if r is not self]  # (~500 imports, opens and execs a full run dropped)
        keptnote.give_up()

    def hear(self, kind: str, path: str, detail: object) -> None:
        """What a reader told (:func:`tierlock.keptnote.tell`)."""
        if self.recent is not None:
            return
        if kind == "read":
            self.told_reads[path] = self.told_reads.get(path, 0) + 1
        elif kind == "stat":
            self.told_looks[path] = self.told_looks.get(path, 0) + 1
        elif kind == "survey":
            self.surveys.append([path, detail])
        elif kind in ("parts", "bytes"):
            self.heard_parts(kind, path, detail)
        else:
            self.told.setdefault(path, []).append(detail)

    def heard_parts(self, kind: str, path: str, detail: object) -> None:
        """A reading of *path* by :func:`tierlock.projectparts.read` (*kind* ``"parts"``: the fingerprint of the
        parts it gave), or a hand-out of its bytes by :func:`tierlock.fsutil.read_bytes` (``"bytes"``)."""
        name = self._path(path)
        if name is not None:
            (self.told_parts if kind == "parts" else self.handed).setdefault(name, []).append(detail)

    def parts(self, files: dict[str, Any]) -> dict[str, object]:
        """The files whose bytes went only to :func:`tierlock.projectparts.read` (every hand-out of them was one
        of its readings, every open of them one of those hand-outs: none by another reader, none that failed),
        each time with the same parts: path -> their fingerprint, kept besides the file's bytes
        (:func:`tierlock.keptrun.parts_hold`)."""
        out: dict[str, object] = {}
        for path, found in self.told_parts.items():
            handed = self.handed.get(path, [])
            opened = sum(1 for _reader, did in handed if did)
            alone = len(handed) == len(found) and all(reader == "parts" for reader, _did in handed)
            if path in files and alone and self.opens.get(path, 0) == opened and len(set(found)) == 1:
                out[path] = found[0]
        return out

    def taint(self, why: str) -> None:
        if self.tainted is None:
            self.tainted = why

    def taint_env(self) -> None:
        self.taint("read the whole environment")

    def _path(self, path: Any) -> str | None:
        """*path* as an absolute ``str`` (None for a file descriptor or anything else)."""
        if isinstance(path, int) or path is None:
            return None
        try:
            text = os.fsdecode(path)
        except TypeError:
            return None
        return text if os.path.isabs(text) else os.path.join(self.cwd, text)

    def _ours(self, path: str, *, writing: bool = False) -> bool:
        """Whether *path* is in tierlock's cache folder; when *writing*, also one of the folders the cache folder
        is made in, or compiled byte code (the import system's)."""
        if path.startswith(self.cache) or path == self.cache[:-1]:
            return True
        if not writing:
            return False
        made = self.cache.startswith(os.path.join(path, ""))
        return made or "__pycache__" in (os.path.basename(path), parent(path))

    def _stat(self, path: Any, *args: Any, **kwargs: Any) -> os.stat_result:
        if _POSIX and not kwargs and type(path) is str and path[:1] == "/":  # the probe's look-ups: the short way
            if path.startswith(self.cache) or path == self.cache[:-1]:
                return _real_stat(path)
            self.stats.add(path)
            self.looks[path] = self.looks.get(path, 0) + 1
            try:
                found = _real_stat(path)
            except OSError as exc:
                self.found.setdefault(path, failed(exc))
                raise
            self.found.setdefault(path, found)
            return found
        return self._look(_real_stat, path, args, kwargs, follow=kwargs.get("follow_symlinks", True))

    def stat_all(self, paths: Sequence[str]) -> list[os.stat_result]:
        """What ``list(map(os.stat, paths))`` gives with :meth:`_stat` in place, each path noted as :meth:`_stat`
        notes it, the look-ups themselves made in C (``OSError``: nothing noted, the caller looks them up again)."""
        found = list(map(_real_stat, paths))
        cache, stats, looks, first = self.cache, self.stats, self.looks, self.found
        for path, result in zip(paths, found, strict=True):
            if _POSIX and type(path) is str and path[:1] == "/":
                if path.startswith(cache) or path == cache[:-1]:
                    continue
                stats.add(path)
                looks[path] = looks.get(path, 0) + 1
                first.setdefault(path, result)
            else:
                text = self._noted(path, stats, {})
                if text is not None:
                    first.setdefault(text, result)
        return found

    def _lstat(self, path: Any, *args: Any, **kwargs: Any) -> os.stat_result:
        return self._look(_real_lstat, path, args, kwargs, follow=False)

    def _look(
        self, real: Callable[..., os.stat_result], path: Any, args: Any, kwargs: Any, *, follow: bool
    ) -> os.stat_result:
        """*real* (:func:`os.stat` or :func:`os.lstat`) of *path*, noted (:meth:`_noted`) with what it found first."""
        text = self._noted(path, self.stats if follow else self.lstats, kwargs)
        firsts = self.found if follow else self.lfound
        try:
            found = real(path, *args, **kwargs)
        except OSError as exc:
            if text is not None:
                firsts.setdefault(text, failed(exc))
            raise
        if text is not None:
            firsts.setdefault(text, found)
        return found

    def _access(self, path: Any, mode: int, *args: Any, **kwargs: Any) -> bool:
        self._noted(path, self.stats, kwargs)
        return _real_access(path, mode, *args, **kwargs)

    def _noted(self, path: Any, table: set[str], kwargs: dict[str, Any]) -> str | None:
        """*path* as an absolute ``str``, added to *table* and counted as looked up; None when it is not kept (a
        descriptor, tierlock's own cache folder, or a look-up relative to a folder descriptor: that taints the run)."""
        if kwargs.get("dir_fd") is not None:
            self.taint("looked a path up relative to a folder descriptor")
            return None
        text = path if _POSIX and type(path) is str and path[:1] == "/" else self._path(path)  # the common case first
        if text is None or self._ours(text):
            return None
        table.add(text)
        self.looks[text] = self.looks.get(text, 0) + 1
        return text

    def event(self, event: str, args: tuple[Any, ...]) -> None:
        if self.recent is not None:
            return
        if event == "open":
            self._open(*args[:3])
        elif event in ("os.listdir", "os.scandir"):
            path = self._path("." if not args or args[0] is None else args[0])
            if path is None:
                self.taint(f"{event} of a folder descriptor")
            elif not self._ours(path):
                (self.listed if event == "os.listdir" else self.scanned).add(path)
        elif event in WRITES:
            for arg in args:
                path = self._path(arg) if isinstance(arg, (str, bytes, os.PathLike)) else None
                if path is not None and not self._ours(path, writing=True):
                    self.taint(f"{event} {path}")
        elif event.startswith(EFFECTS) or event == "os.chdir":
            self.taint(event)

    def _open(self, given: Any, mode: str | None, flags: int) -> None:
        path = self._path(given)
        if path is None:
            return
        if writes(mode, flags):
            if not self._ours(path, writing=True):
                self.taint(f"opened {path} to write")
        elif not self._ours(path):
            self.opened.add(path)
            self.opens[path] = self.opens.get(path, 0) + 1
            if self.gives_up and not path.endswith((".py", ".pyc")) and recent(path, self.settled):
                self.give_up(path)  # (a module's files are known only at the end: :func:`module_files`)

    # -- keeping ------------------------------------------------------------------------------------------
    def entry(self, who: list[object], code: int) -> dict[str, Any] | None:
        """The entry to keep (None when the run may not be kept)."""
        if self.tainted is not None or self.recent is not None or code not in (0, 1):
            return None
        code_files, sources = module_files()
        settled = self.settled
        if any(modified_since(stat_sig(path), settled) for path in self.opened - code_files):
            return None  # a file it read was modified just now (the first run after an edit): nothing more made
        summaries = self.summaries(code_files)
        files = {path: (identity(path), digest(path)) for path in sorted(self.opened - code_files - set(summaries))}
        found = (self.found, self.lfound)
        seen = looked(self.stats | sources, self.lstats, settled, listed=self.listed, scanned=self.scanned, found=found)
        sigs = [*seen["stats"].values(), *seen["lstats"].values()]
        sigs += map(stat_sig, [*files, *seen["lists"], *seen["scans"], *summaries])
        if unsettled(sigs, seen["scans"], settled):
            return None  # modified too recently to be sure a later change would be seen
        return {"who": who, "env": dict(self.env), **{k: seen[k] for k in ("stats", "lstats", "lists", "scans")}} | {
            "files": files,
            "shadows": seen["shadows"],
            "parts": self.parts(files),
            "summaries": summaries,
            "rerun": {"calls": {path: self.told[path] for path in summaries}, "surveys": self.surveys},
            "out": list(self.out),
            "code": code,
            "schema": SCHEMA,
        }

    def summaries(self, code_files: set[str]) -> dict[str, tuple[tuple[int, ...], object, list[Any], bytes | None]]:
        """The files the census alone read, by what it took from them: path -> (identity, digest (None when it
        was not read: its facts came from the census's own cache), ``[name, words, digest of the facts]``
        of each of its readings, and what the census's result shows of it (:meth:`shown`))."""
        if not self.told:
            return {}
        from tierlock.census.factdigest import facts_digest, shown_by  # (the census ran: loaded with it)

        out: dict[str, tuple[tuple[int, ...], object, list[Any], bytes | None]] = {}
        shown = shown_by(self.surveys)
        for path, calls in sorted(self.told.items()):
            if None in calls or path in code_files or self.opens.get(path, 0) != self.told_reads.get(path, 0):
                continue  # unreadable, or read by something besides the census: kept by its bytes
            if self.looks.get(path, 0) != self.told_looks.get(path, 0):
                continue  # looked up by something besides the census (which takes only its kind): kept by its bytes
            told = [call.told() if isinstance(call, Packed) else [*call[:2], facts_digest(call[2])] for call in calls]
            out[path] = (identity(path), digest(path) if path in self.opened else None, told, shown.get(path))
        return out

    def keep(self, path: str, who: list[object], code: int) -> None:
        """Write the entry for this run to *path* (atomically), or remove a stale one when it may not be kept."""
        entry = self.entry(who, code)
        if entry is not None:
            if entry["summaries"]:  # the facts and results, read only to work a census out again: a file apart
                data = entry["rerun"]
                calls = {path: packed_bytes(found) for path, found in data["calls"].items()}  # decoded one by one
                surveys = [
                    [root, [inputs, marshal.dumps(was), *apart]] for root, (inputs, was, *apart) in data["surveys"]
                ]
                rerun = marshal.dumps({"calls": calls, "surveys": surveys})
                dump(f"{path}.rerun", {"rerun": rerun})
                entry["rerun"] = [f"{path}.rerun", _sha256(rerun).digest()]
            seal(path, entry)
            return
        with contextlib.suppress(OSError):
            os.unlink(path)


def run(argv: Sequence[str], command: Callable[[], int]) -> int:
    """*command*'s exit code, printing what it prints; recorded and kept when it is a function of what it read
    (the next run of *argv* may then be answered by :func:`tierlock.keptrun.replay`)."""
    where = None if terminal() else folder()
    if where is None:
        return command()
    with Paused():  # (a run builds ~10^5 objects and no cycles worth collecting: :mod:`tierlock.collector`)
        recorder = Recorder(where, gives_up=True)
        with recorder:
            code = command()
        recorder.keep(entry_path(where, argv), who(argv), code)
    return code
