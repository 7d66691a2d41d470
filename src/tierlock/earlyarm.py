"""Arming a tier again: the backend started from a kept plan while tierlock itself is still starting.

Arming a small tier into a fresh environment costs the backend plus tierlock's own start (the interpreter,
the modules, the project, the drift check: about a hundred milliseconds) in front of it. A plain
``install-tier TIER...`` that armed the same tiers before (into this environment or one made the same way)
ran a backend command that followed from what it read; :mod:`tierlock.armrecord` kept both - every file,
look-up, listing and environment variable of the part before the backend, and the exact command. This
module is what the next run does before it imports the tier model:

* the kept plan for this command line is loaded and every fact it rests on checked again (as
  :mod:`tierlock.keptrun` checks a read-only command's answer); facts inside the target environment are
  kept relative to its folder and by content (names listed, kinds, sizes, bytes), so a fresh venv made
  the same way at another folder holds them too;
* when every one holds, the target's install lock can be taken at once and nothing is installed of the
  tiers, the kept backend command is started with this target's folder put in (:func:`start`);
* the normal install then runs in full beside it (every check, the verification, the receipt) and, at its
  backend step, takes the running process over only when the command it would start is the very same
  (:func:`adopt`: argv, requirements bytes, environment, folder); else it waits for it to end and runs its
  own.

Nothing here refuses anything: a plan that does not hold is no early start, and the install runs as
without one. ``TIERLOCK_CACHE_DIR=`` (empty) turns it off, as it turns off every kept answer.
"""

from __future__ import annotations

import os

from tierlock.armplan import OWN, REQUIREMENTS, config_holds, eligible, find, inner_holds, outer_holds, placed
from tierlock.earlyyield import DEEP, YIELD, Yielded, regained
from tierlock.keptfirst import folder
from tierlock.spawning import Spawned, as_popen, spawn, watch

TYPE_CHECKING = False
if TYPE_CHECKING:
    import subprocess
    from collections.abc import Callable, Mapping, Sequence
    from typing import Any


class Early:
    """A backend started early: its process, the command it runs and the install lock it holds."""

    def __init__(self, prefix: str, argv: list[str], requirements: bytes, file: str, lock_fd: int) -> None:
        self.plan = ""
        """The kept plan it was started from (removed when the install ran another command)."""
        self.prefix = prefix
        self.real = os.path.realpath(prefix)
        self.argv = argv
        self.requirements = requirements
        self.file = file
        """Its requirements file (:func:`_private_file`; removed once it has ended)."""
        self.lock_fd: int | None = lock_fd
        """The target's install lock (None once the install let it go)."""
        self.env = dict(os.environ)
        self.cwd = os.getcwd()
        self.spawned: Spawned | None = None
        """The process as started (:mod:`tierlock.spawning`: no :mod:`subprocess` before it runs)."""
        self.proc: subprocess.Popen[str] | None = None
        """The same process as a :class:`subprocess.Popen`, once the install handles it (:func:`popen`)."""
        self.adopted = False
        self.registered = False
        """Told to :mod:`tierlock.subproc` (counted by its observers) already."""
        self.other = False
        """The install's command was another: the plan no longer holds."""


#: The early backend of this process, while it has one (a process runs one backend early at most).
current: Early | None = None


# -- the early start -------------------------------------------------------------------------------------------
def start(argv: Sequence[str]) -> Early | None:
    """Check the kept plan of ``install`` *argv* and start its backend (see the module); None when not started.

    Never raises: anything unexpected is no early start (the install then runs as without one).
    """
    try:
        if not eligible(argv):
            return None
        return _start(argv)
    except Exception:
        return None


def _start(argv: Sequence[str]) -> Early | None:
    where = folder()
    assert where is not None
    found = find(where, argv)
    if found is None:
        return None
    plan, prefix, entry = found
    if not outer_holds(entry["outer"], prefix) or not inner_holds(entry["inner"], prefix, own=False, writes=False):
        return None  # (checked before the lock: a target the plan is not for gets no tierlock folder; its write test
        # under the lock only: a site-packages that cannot be written is refused by the install after it takes that
        # very lock, so the folder is made for it anyway)
    if not config_holds(entry["config"], prefix):
        return None  # the backend's own configuration changed (its variables, its files)
    fd = _lock(prefix)
    if fd is None:
        return None
    try:  # under the lock, the target's facts once more: another install may have come in between
        if inner_holds(entry["inner"], prefix, own=False) and inner_holds(entry["inner"], prefix, own=True):
            return _launched(plan, prefix, entry["command"], fd)
    except BaseException:
        if current is None:  # nothing was started: the lock let go (the install takes it as without an early start)
            os.close(fd)
        raise
    os.close(fd)
    return None


def _launched(plan: str, prefix: str, command: Mapping[str, Any], fd: int) -> Early:
    """The kept *command* started into the target at *prefix*, holding its install lock *fd*."""
    global current  # noqa: PLW0603 (the one early backend of this process)
    early = Early(prefix, list(command["argv"]), command["requirements"], "", fd)
    early.plan = plan
    try:
        early.file = _private_file("tierlock-early-", early.requirements)
        early.argv = [early.file if a == REQUIREMENTS else placed(a, prefix) for a in early.argv]
        current = early  # before the start: an interrupt from here on stops what was started
        priority = Yielded()
        # as :func:`tierlock.subproc.start` starts every process (its own group, the output read back, no input)
        # but on :mod:`os` alone (:mod:`subprocess` costs more than the start); the install handles it as one of
        # its own from its takeover on (:func:`popen`)
        early.spawned = spawn(early.argv, env=early.env, capture=True)
        # its end noted as it comes: its time (``backend_s``) is its own, not tierlock's wait; then its requirements
        # file gone (nothing reads it any more: also when this process ends without :func:`finish`), the priority back
        watch(early.spawned, then=lambda: _ended(early, priority))
    except BaseException:
        if early.spawned is None:  # it did not start: nothing kept of it
            current = None
            _remove(early.file)
        raise
    # the backend is the critical path: tierlock's own start yields to it (a positive increment cannot fail), as far
    # as it can where its priority comes back once the backend has ended
    priority.lower(DEEP if regained(priority.before) else YIELD)
    _swept(early.file)
    return early


def _swept(file: str) -> None:
    """What early starts of killed processes left beside *file* removed (:mod:`tierlock.earlysweep`), while the
    backend runs (a listing of the temporary folder: ~0.03 ms, ~1 ms when it holds 2,000 entries)."""
    try:
        from tierlock.earlysweep import sweep

        sweep(os.path.dirname(file))
    except Exception:  # (nothing of it is needed: a file left is removed by a later run)
        pass


def _ended(early: Early, priority: Yielded) -> None:
    """*early*'s backend has ended (in the thread that watched it): its requirements file removed, then tierlock's
    priority given back."""
    try:
        _remove(early.file)
    finally:
        priority.restore()


def _lock(prefix: str) -> int | None:
    """The install lock of the target at *prefix*, taken without waiting (None: held by another, or unwritable)."""
    import fcntl

    own = os.path.join(prefix, OWN)
    try:
        if not os.path.isdir(own):
            os.mkdir(own)
        fd = os.open(os.path.join(own, "install.lock"), os.O_RDWR | os.O_CREAT, 0o644)
    except OSError:
        return None
    holder = f"{os.getpid()}\n".encode()
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        os.pwrite(fd, holder, 0)
        os.ftruncate(fd, len(holder))  # (a longer pid written before is cut to this one)
    except OSError:
        os.close(fd)
        return None
    return fd


def popen(early: Early) -> subprocess.Popen[str] | None:
    """*early*'s process as a :class:`subprocess.Popen` (made at the first call; None when none was started)."""
    if early.proc is None and early.spawned is not None:
        early.proc = as_popen(early.argv, early.spawned)
    return early.proc


# -- the install's side ----------------------------------------------------------------------------------------
def held(prefix: str) -> int | None:
    """The install lock's descriptor when an early start holds the lock of the target at *prefix* (the install
    takes it over: no other tierlock can come in between)."""
    if current is not None and current.real == os.path.realpath(prefix):
        return current.lock_fd
    return None


def release(fd: int) -> None:
    """The install is done with the lock an early start took for it (*fd*: what :func:`held` gave)."""
    if current is not None:
        current.lock_fd = None
    os.close(fd)


def fresh(prefix: str) -> bool:
    """Whether an early backend runs into the target at *prefix* (the install's probe before the backend then
    takes what the kept plan proved at the start: none of the tiers' packages there)."""
    return current is not None and not current.adopted and current.real == os.path.realpath(prefix)


def adopt(argv: Sequence[str], requirements: str) -> subprocess.Popen[str] | None:
    """The early backend's process when *argv* (with the requirements file *requirements*) is exactly its
    command - same argv, requirements bytes, environment and folder; else None, after waiting for it to end."""
    early = current
    if early is None or early.adopted or popen(early) is None:
        return None
    early.adopted = True
    _register(early)
    mine = early.file
    try:
        with open(requirements, "rb") as fh:
            same = fh.read() == early.requirements
    except OSError:
        same = False
    same = same and [mine if a == requirements else a for a in argv] == early.argv
    same = same and dict(os.environ) == early.env and os.getcwd() == early.cwd
    if same:
        return early.proc
    early.other = True
    settle(early)
    return None


def take(argv_for: Callable[[str], list[str]], requirements: bytes) -> tuple[list[str], subprocess.Popen[str]] | None:
    """The early backend's command and process when the install's command, made with the early backend's own
    requirements file (*argv_for* of its path), and the install's *requirements* are exactly its own (same
    environment and folder): then the install writes no requirements file of its own to compare (:func:`adopt`
    reads one back). None otherwise, having waited for nothing: the install then writes its file and asks
    :func:`adopt`."""
    early = current
    if early is None or early.adopted or not early.file or popen(early) is None:
        return None
    argv = argv_for(early.file)
    if requirements != early.requirements or argv != early.argv:
        return None
    if dict(os.environ) != early.env or os.getcwd() != early.cwd:
        return None
    early.adopted = True
    _register(early)
    assert early.proc is not None
    return argv, early.proc


def settle(early: Early, *, stop: bool = False) -> None:
    """Wait for *early*'s process to end (*stop*: ask it to stop first, with the backend's grace period)."""
    from tierlock import subproc

    proc = popen(early)
    if proc is not None:
        _register(early)
        try:
            if stop:
                subproc.stop(proc)
            else:
                proc.communicate()
        finally:
            subproc.forget(proc)
    _remove(early.file)


def _register(early: Early) -> None:
    """Tell :mod:`tierlock.subproc` of the process (its observers count it, an interrupt stops it), once."""
    from tierlock import subproc

    proc = popen(early)
    if proc is not None and not early.registered:
        early.registered = True
        for observer in subproc.observers:
            observer(tuple(early.argv))
        subproc._live[proc.pid] = proc


def finish(code: int) -> None:
    """At the end of the command: an early backend nobody took over is waited for (or, after an interrupt,
    stopped with its grace period); its scratch folder removed."""
    from tierlock.exitcodes import EXIT_INTERRUPTED

    global current  # noqa: PLW0603 (the one early backend of this process)
    early = current
    if early is None:
        return
    try:
        settle(early, stop=code == EXIT_INTERRUPTED)
    finally:  # (kept until its process is settled: an interrupt while it is waited for stops it, finish() again)
        if current is early and (early.proc is None or early.proc.returncode is not None):
            current = None
    if early.other:
        try:  # noqa: SIM105
            os.unlink(early.plan)
        except OSError:
            pass


def _private_file(prefix: str, data: bytes) -> str:
    """A new file holding *data* that only this process uses, in the temporary folder (``tempfile``'s choice of it,
    without importing ``tempfile``), made with ``O_EXCL`` and mode 0600: one file made before the spawn, where a
    folder with the file in it made two (each ~0.5 ms on a journalling file system)."""
    base = next((os.environ[n] for n in ("TMPDIR", "TEMP", "TMP") if os.environ.get(n)), "/tmp")
    path = os.path.join(base, f"{prefix}{os.getpid()}-{os.urandom(6).hex()}.txt")
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0), 0o600)
    try:
        with open(fd, "wb", closefd=False) as fh:
            fh.write(data)
    except BaseException:
        os.close(fd)
        _remove(path)
        raise
    os.close(fd)
    return path


def _remove(path: str) -> None:
    try:  # noqa: SIM105 (contextlib is an import more on the early start)
        os.unlink(path)
    except OSError:
        pass
