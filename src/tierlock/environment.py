"""The target environment: where tiers are probed and installed.

Every fact about a target (its paths, marker environment, extension-module
suffixes, wheel tags) comes from the target interpreter itself, never from
the Python tierlock runs on. :func:`current` describes the running
interpreter in-process (no subprocess: the fast path). :func:`inspect` asks
another interpreter once, through the subprocess helper, for everything at
once, and remembers the answer by the interpreter's identity (its path, its
file, its ``pyvenv.cfg`` and its site folders, which change when a ``.pth``
file comes or goes): the parts of one command that describe the same
interpreter start it once. What it runs there, and how its answer is read,
is :mod:`tierlock.targetanswer`. The wheel tags are computed from the reported
facts in this process (:mod:`tierlock.wheeltags`): packaging need not import
on the target (it does not on 3.9).
"""

from __future__ import annotations

import os
import sys
import sysconfig
from pathlib import Path
from typing import TYPE_CHECKING

from tierlock.errors import UsageError
from tierlock.frozen import replace
from tierlock.targetanswer import inspection as _inspection
from tierlock.targetanswer import parse as _parse
from tierlock.targetanswer import unrunnable as _unrunnable
from tierlock.targetmodel import Target
from tierlock.venvbase import base_of

if TYPE_CHECKING:
    import subprocess

    from tierlock import subproc

#: ``Target`` (:mod:`tierlock.targetmodel`) is handed back by this module and imported from it by name.
__all__ = [
    "Pending",
    "Target",
    "base_of",
    "current",
    "end_early",
    "inspect",
    "interpreter",
    "resolve",
    "start",
    "start_early",
]


def current() -> Target:
    """The running interpreter, described in-process (what cannot change while it runs is worked out once;
    its import path is read each time: a program may change ``sys.path``)."""
    paths = tuple(Path(p) for p in sys.path if p)
    known = _CURRENT.get(sys.executable)
    if known is None or known.paths != paths:
        known = _CURRENT[sys.executable] = _current(paths) if known is None else replace(known, paths=paths)
    return known


_CURRENT: dict[str, Target] = {}


def _current(paths: tuple[Path, ...]) -> Target:
    from packaging.markers import default_environment

    folders = sysconfig.get_paths()
    return Target(
        python=Path(sys.executable),
        prefix=Path(sys.prefix),
        base_prefix=Path(sys.base_prefix),
        paths=paths,
        purelib=Path(folders["purelib"]),
        platlib=Path(folders["platlib"]),
        stdlib=Path(folders["stdlib"]),
        marker_env={k: str(v) for k, v in default_environment().items()},
        platform=sysconfig.get_platform(),
        version=(sys.version_info[0], sys.version_info[1], sys.version_info[2]),
    )


def interpreter(python: str | Path) -> Path:
    """The executable *python* names (an environment folder means its ``bin/python``)."""
    exe = Path(python)
    own = "Scripts/python.exe" if os.name == "nt" else "bin/python"
    if exe.is_dir():
        exe = exe / own
    elif not exe.name.startswith("python") and (exe.parent.parent / "pyvenv.cfg").is_file():
        exe = exe.parent.parent / own  # one of the environment's console scripts: its interpreter
    return exe


class Pending:
    """An inspection started early (:func:`start`); :meth:`target` takes its answer (or raises what went wrong).

    No thread (one cost a full ``probe`` 3-4 ms of CPU: its start, and the two threads taking turns on the
    interpreter's lock): an answer kept that holds (:func:`_kept`) is read at once, else the interpreter is
    started at once (:func:`_start`) and runs beside the command (its answer fits in the pipe)."""

    def __init__(self, exe: Path) -> None:
        self.exe = exe
        self._outcome: list[Target | Exception] = []
        self._started: subprocess.Popen[str] | None = None
        self._before: tuple[object, ...] = ()
        """The interpreter's files as its process was started (:func:`_made`)."""
        try:
            kept = _kept(exe)
            if kept is None:
                self._before = _made(exe)
                self._started = _start(exe)
            else:
                self._outcome.append(kept)
        except Exception as exc:  # (raised by target, where the answer is taken)
            self._outcome.append(exc)

    def target(self) -> Target:
        started, self._started = self._started, None
        if started is not None:
            try:
                self._outcome.append(_described(self.exe, started, self._before))
            except Exception as exc:  # (given again to a second caller)
                self._outcome.append(exc)
        outcome = self._outcome[0]
        if isinstance(outcome, Exception):
            raise outcome
        return outcome

    def close(self) -> None:
        """Not wanted any more (its command ended before it asked): its process ended and reaped."""
        started, self._started = self._started, None
        if started is not None:
            from tierlock import subproc

            try:
                started.kill()
                started.communicate()
            finally:
                subproc.forget(started)


def start(python: str | Path | None) -> Pending | None:
    """Start asking the interpreter :func:`resolve` would ask, in the background; None when none is asked.

    The caller does other work (loading the project, the drift check) meanwhile, then passes it to :func:`resolve`.
    """
    foreign = _foreign(python)
    if foreign is None or not foreign.exists():
        return None  # the running interpreter, or a missing one (resolve reports it)
    return Pending(foreign)


#: What :func:`start_early` started, by interpreter: collected by the first :func:`inspect` of it.
_STARTED: dict[Path, Pending] = {}


def start_early(python: str | Path | None) -> None:
    """:func:`start` for a command that asks *python* later, deep in its work (probe, status, admit): the
    first :func:`inspect` of the same interpreter collects it. The target's start-up (or the read of its
    kept answer) then runs while the command loads its modules and reads the project. What an earlier command of
    this process started and never collected (it failed first) is ended first: never taken for this one."""
    end_early()
    pending = start(python)
    if pending is not None:
        _STARTED[pending.exe] = pending


def end_early() -> None:
    """End what :func:`start_early` started and no :func:`inspect` collected (its command ended before it asked:
    a usage error, a failed check): its process ended and reaped, none left running after the command."""
    while _STARTED:
        _STARTED.popitem()[1].close()


def inspect(python: str | Path, *, pending: Pending | None = None) -> Target:
    """Ask the interpreter at *python* once for its environment (or collect what *pending*, or an earlier
    :func:`start_early` of it, asked)."""
    exe = interpreter(python)
    if pending is None:
        pending = _STARTED.pop(exe, None)
    if pending is not None and pending.exe == exe:
        return pending.target()
    if not exe.exists():
        from tierlock.venvbase import remedy_for_none, why_none

        raise UsageError(f"no interpreter at {exe}{why_none(exe)}", remedy=remedy_for_none(exe))
    return _described(exe)


# -- one inspection per interpreter identity ---------------------------------------------------

_SEEN: dict[str, tuple[tuple[object, ...], Target]] = {}


def _stamp(exe: Path, target: Target | None) -> tuple[object, ...]:
    """What the interpreter's answer depends on: its file, its ``pyvenv.cfg``, its site folders' ``.pth`` files
    and ``sitecustomize`` (:func:`tierlock.targetcache.stamp`; a package installed there changes none of them)."""
    from tierlock import targetcache

    sites = tuple(dict.fromkeys((str(target.purelib), str(target.platlib)))) if target is not None else ()
    return tuple(targetcache.stamp(os.path.abspath(exe), _cfg_folders(exe), sites))


def _described(exe: Path, started: subprocess.Popen[str] | None = None, before: tuple[object, ...] = ()) -> Target:
    """The target at *exe*: remembered while its identity (:func:`_stamp`) holds, else asked now (*started*: the
    process asking it, started by :class:`Pending` after :func:`_kept` found nothing, when the interpreter's files
    were *before*: its answer is taken when they still are)."""
    key = os.path.abspath(exe)
    seen = _SEEN.get(key) if started is None else None
    if seen is not None and seen[0] == _stamp(exe, seen[1]):
        return seen[1]
    answer, same = _answer(exe, started, before)
    target = _parse(exe, answer)
    if same:  # (else the interpreter's files changed while it answered: nothing remembered)
        _SEEN[key] = (_stamp(exe, target), target)
    return target


def _kept(exe: Path) -> Target | None:
    """The target at *exe* as :func:`_described` gives it when that needs no interpreter started: remembered by
    this process, or told by an earlier command (:func:`_told`); else None. Raises what :func:`_described` would
    raise on the same answer."""
    key = os.path.abspath(exe)
    seen = _SEEN.get(key)
    if seen is not None and seen[0] == _stamp(exe, seen[1]):
        return seen[1]
    told = _told(exe)
    if told is None:
        return None
    target = _parse(exe, told)
    _SEEN[key] = (_stamp(exe, target), target)
    return target


def _told(exe: Path) -> str | None:
    """What the interpreter at *exe* says about itself, without starting it: kept from an earlier command while
    nothing it depends on changed (:mod:`tierlock.targetcache`), or told by a venv made like it (kept for it from
    now on); None when it must be asked."""
    from tierlock import targetcache

    key = os.path.abspath(exe)
    folders = _cfg_folders(exe)
    kept = targetcache.load(key, folders)
    if kept is not None:
        return kept
    told = targetcache.from_sibling(key, folders)  # a new venv made like one asked before: no start
    if told is not None:
        try:
            sites = _sites(_parse(exe, told))
        except (UsageError, ValueError):
            sites = ()
        if sites and targetcache.plain(sites):
            targetcache.save(key, folders, sites, told)
            return told
    return None


def _answer(
    exe: Path, started: subprocess.Popen[str] | None = None, before: tuple[object, ...] = ()
) -> tuple[str, bool]:
    """What the interpreter at *exe* says about itself: :func:`_told` when it tells, else asked now and kept
    (*started*: already asked, when its files were *before*, :func:`_told` having found nothing); and whether the
    interpreter's files were the same before and after it answered. An interpreter whose files changed meanwhile
    (the venv removed and made again while a command's early inspection ran) may not be the one there now: asked
    again, and its answer kept only when its files held still while it answered."""
    from tierlock import targetcache

    if started is None:
        told = _told(exe)
        if told is not None:
            return told, True
        before = _made(exe)
    answer = _ask(exe, started).stdout
    after = _made(exe)
    if after != before and started is not None:
        before = after  # (the process started early answered for files no longer there)
        answer = _ask(exe).stdout
        after = _made(exe)
    if after != before:
        return answer, False
    key = os.path.abspath(exe)
    folders = _cfg_folders(exe)
    sites = _sites(_parse(exe, answer))
    targetcache.save(key, folders, sites, answer)
    targetcache.remember_venv(key, folders, sites, answer)
    return answer, True


def _made(exe: Path) -> tuple[object, ...]:
    """The interpreter's own files as they are now (its file and ``pyvenv.cfg``, by identity: what a venv made again
    at the same folder changes)."""
    from tierlock import targetcache

    return tuple(targetcache.stamp(os.path.abspath(exe), _cfg_folders(exe), ()))


def _sites(target: Target) -> tuple[str, ...]:
    return tuple(dict.fromkeys((str(target.purelib), str(target.platlib))))


def _cfg_folders(exe: Path) -> tuple[str, str]:
    """Where the interpreter at *exe* looks for ``pyvenv.cfg``: beside the path it is started from, and one up
    (symlinks are not followed first: a link to a venv's interpreter elsewhere runs as the base interpreter)."""
    folder = os.path.dirname(os.path.abspath(exe))
    return folder, os.path.dirname(folder)


def _ask(exe: Path, started: subprocess.Popen[str] | None = None) -> subproc.Result:
    """The interpreter's answer (*started*: the process of :func:`_start`, read and reaped here)."""
    from tierlock import subproc

    try:
        return subproc.run(_inspection(exe), what=f"inspecting {exe}", started=started)
    except OSError as exc:  # (there, but not a program this system runs: not executable, not a binary)
        raise _unrunnable(exe, exc) from exc


def _start(exe: Path) -> subprocess.Popen[str]:
    """The interpreter at *exe* asked now, as :func:`_ask` asks it (its observers told, stopped on an interrupt),
    its answer read by :func:`_ask` later."""
    from tierlock import subproc

    argv = _inspection(exe)
    for observer in subproc.observers:
        observer(argv)
    try:
        return subproc.start(argv, cwd=None, env=None, what=f"inspecting {exe}", remedy=None)
    except OSError as exc:
        raise _unrunnable(exe, exc) from exc


def _foreign(python: str | Path | None) -> Path | None:
    """The interpreter :func:`resolve` asks in a subprocess, or None when it describes this one in-process."""
    if python is not None:
        return interpreter(python)
    active = os.environ.get("VIRTUAL_ENV")
    if active and Path(active).resolve() != Path(sys.prefix).resolve():
        return interpreter(Path(active))
    return None


def resolve(python: str | Path | None = None, *, pending: Pending | None = None) -> Target:
    """The target: *python* when given, else the active virtual environment, else this interpreter."""
    foreign = _foreign(python)
    if foreign is None:
        return current()
    return inspect(foreign, pending=pending)
