"""Keeping the plan of an arming for :mod:`tierlock.earlyarm`: what the part before the backend read, and the
backend command it then ran.

A plain ``install-tier TIER...`` that is not started early is watched as :mod:`tierlock.keptrecord` watches a
read-only command (an audit hook, :func:`os.stat`, :func:`os.lstat`, :func:`os.access` and ``os.environ``
watched) from its start until its backend step (:func:`capture`). The only writes allowed meanwhile are the
target's install lock (its folder and file); anything else written, a process started (the target's
interpreter asked, say), a modification less than two seconds before the run of a file it rests on, and no
plan is kept. The plan is written when the install ends with exit 0, and only when its probe before the
backend found none of the tiers' packages in the target (a fresh environment: what the early start then
takes for granted of the target, by its kept listings).

Every path inside the target environment is kept relative to its folder and by content
(:func:`tierlock.armplan.inner_sig`, :func:`~tierlock.armplan.inner_bytes`); every other one by identity
then bytes, as a kept answer is.
"""

from __future__ import annotations

import os

from tierlock import armplan
from tierlock.keptfirst import digest, folder
from tierlock.keptrecord import Recorder, _real_stat
from tierlock.keptrun import SETTLE_NS, listing, scan, stat_sig
from tierlock.keptsig import module_files, shadows, unsettled, writes
from tierlock.probing.libcache import dump

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from types import TracebackType
    from typing import Any


class ArmRecorder(Recorder):
    """A :class:`~tierlock.keptrecord.Recorder` of an install's part before the backend (its output not kept)."""

    TEE = False

    def __init__(self, cache: str) -> None:
        super().__init__(cache)
        self.own_writes: set[str] = set()
        self.write_tests: set[str] = set()
        self.entry_data: dict[str, Any] | None = None
        self.done = False
        self.captured = False
        self.noted = False
        """The facts of the part before the backend taken, or given up (:func:`capture` ran)."""

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.stop()
        if kind is not None:
            self.taint(f"ended with {kind.__name__}")

    def stop(self) -> None:
        if self.done:
            return
        self.done = True
        super().__exit__(None, None, None)

    def _ours(self, path: str, *, writing: bool = False) -> bool:
        if super()._ours(path, writing=writing):
            return True
        lock = os.sep + armplan.OWN
        if writing and (path.endswith((lock, lock + os.sep + "install.lock"))):
            self.own_writes.add(path)
            return True
        return False

    def _open(self, given: Any, mode: str | None, flags: int) -> None:
        path = self._path(given)
        if writes(mode, flags) and path is not None and _is_folder(path):  # only an unnamed temporary file opens a
            self.write_tests.add(path)  # folder to write: the install's test that it may write there, kept, done again
            return
        super()._open(given, mode, flags)

    def facts(self, prefix: str) -> dict[str, Any] | None:
        """What the run read, split at the target's folder *prefix*; None when it may not be kept."""
        if self.tainted is not None:
            return None
        tested = [armplan.relative(p, prefix) for p in sorted(self.write_tests)]
        if any(armplan.relative(p, prefix) is None for p in self.own_writes) or None in tested:
            return None  # a lock taken, or a folder's writing tested, elsewhere than in this target
        code_files, sources = module_files()
        inner: dict[str, Any] = {"stats": {}, "lists": {}, "scans": {}, "files": {}, "writable": tested}
        outer: dict[str, Any] = {"stats": {}, "lstats": {}, "lists": {}, "scans": {}, "files": {}}

        def split(paths: set[str], table: str, inner_of: Callable[[str], Any], outer_of: Callable[[str], Any]) -> None:
            for path in sorted(paths):
                rel = armplan.relative(path, prefix)
                if rel is not None:
                    inner[table if table != "lstats" else "stats"][rel] = inner_of(path)
                else:
                    outer[table][path] = outer_of(path)

        sig = lambda p: armplan.inner_sig(p, prefix)  # noqa: E731
        split(self.opened - code_files, "files", armplan.inner_bytes, lambda p: (stat_sig(p), digest(p)))
        split(self.stats | sources, "stats", sig, stat_sig)
        split(self.lstats, "lstats", sig, lambda p: stat_sig(p, follow=False))
        split(self.listed, "lists", listing, listing)
        split(self.scanned, "scans", lambda p: scan(p, sig), scan)  # type: ignore[arg-type]
        settled = self.started - SETTLE_NS
        outer["shadows"], portions = shadows(settled)  # (a module put first on sys.path: what a full run imports)
        outer["lists"].update((path, listing(path)) for path in sorted(portions - outer["lists"].keys()))
        looked = [*outer["stats"].values(), *outer["lstats"].values(), *(v[0] for v in outer["files"].values())]
        if unsettled(looked, outer["scans"], settled):
            return None
        env = {k: (None if v is None else armplan.relative(v, prefix) or v) for k, v in self.env.items()}
        return {"outer": {**outer, "env": env}, "inner": inner}


def _is_folder(path: str) -> bool:
    try:
        return _real_stat(path).st_mode & 0o170000 == 0o040000
    except OSError:
        return False


#: The recorder of this process's install, while one runs.
_current: list[ArmRecorder] = []


def begin() -> ArmRecorder | None:
    """Start watching this install (None when plans are not kept: no cache folder)."""
    where = folder()
    if where is None:
        return None
    recorder = ArmRecorder(where)
    recorder.__enter__()
    _current.append(recorder)
    return recorder


def watching() -> bool:
    """Whether this install's part before the backend is recorded and its facts not yet taken (:func:`capture`:
    what is in the target until then, a folder a thread made meanwhile too, would go into the plan)."""
    return bool(_current) and not _current[0].noted


def pause() -> None:
    """The backend step: what the install reads from here on is not part of its plan."""
    if _current:
        _current[0].stop()


def capture(argv: Sequence[str], requirements: str, data: bytes, prefix: str, *, fresh: bool, backend: str) -> None:
    """At the backend step: stop watching, note what was read and the command about to run (*argv* of *backend*,
    reading the requirements file *requirements* that holds *data*), and the backend's own configuration it will
    read (:func:`tierlock.armplan.config_facts`); *fresh*: the probe found none of the packages."""
    if not _current:
        return
    recorder = _current[0]
    try:
        _capture(recorder, argv, requirements, data, prefix, fresh=fresh, backend=backend)
    finally:
        recorder.noted = True


def _capture(
    recorder: ArmRecorder,
    argv: Sequence[str],
    requirements: str,
    data: bytes,
    prefix: str,
    *,
    fresh: bool,
    backend: str,
) -> None:
    recorder.stop()
    if recorder.captured or not fresh or _pins_tierlock(data):
        recorder.captured = True  # (a tier that installs tierlock: the self-guard reads what the backend writes)
        return
    facts = recorder.facts(prefix)
    if facts is None:
        return
    rel = [armplan.REQUIREMENTS if a == requirements else armplan.relative(a, prefix) or a for a in argv]
    recorder.captured = True
    facts["command"] = {"argv": rel, "requirements": data, "backend": backend}
    facts["config"] = armplan.config_facts(backend, prefix)  # (read after the watching: the whole environment)
    facts["prefix"] = prefix
    recorder.entry_data = facts


def _pins_tierlock(data: bytes) -> bool:
    """Whether the requirements *data* install a distribution named tierlock (any spelling)."""
    for line in data.splitlines():
        name = line.partition(b"==")[0].strip().lower().replace(b"_", b"-").replace(b".", b"-")
        if name == b"tierlock":
            return True
    return False


def end(argv: Sequence[str], code: int) -> None:
    """At the end of the install *argv*: keep the plan when it succeeded and may be kept."""
    if not _current:
        return
    recorder = _current.pop()
    recorder.stop()
    data = recorder.entry_data
    if code != 0 or data is None:
        return
    prefix = data["prefix"]
    python = armplan.python_of(argv)
    kept = [armplan.relative(os.path.abspath(a), prefix) or a if a == python else a for a in argv]
    data["who"] = armplan.who(kept)
    data["schema"] = armplan.SCHEMA
    dump(armplan.plan_path(recorder.cache, kept), data)


def forget_plan(argv: Sequence[str]) -> None:
    """Remove the kept plan *argv* was started from (it led to another command than the install's)."""
    where = folder()
    if where is None:
        return
    for kept in armplan.kept_forms(argv):
        try:
            os.unlink(armplan.plan_path(where, kept))
        except OSError:
            continue
