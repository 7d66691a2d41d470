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

from tierlock.armplan import OWN, REQUIREMENTS, eligible, find, inner_holds, outer_holds, placed
from tierlock.keptrun import private_folder
from tierlock.probing.libcache import folder
from tierlock.spawning import Spawned, as_popen, spawn

TYPE_CHECKING = False
if TYPE_CHECKING:
    import subprocess
    from collections.abc import Mapping, Sequence
    from typing import Any


class Early:
    """A backend started early: its process, the command it runs and the install lock it holds."""

    def __init__(self, prefix: str, argv: list[str], requirements: bytes, folder: str, lock_fd: int) -> None:
        self.plan = ""
        """The kept plan it was started from (removed when the install ran another command)."""
        self.prefix = prefix
        self.real = os.path.realpath(prefix)
        self.argv = argv
        self.requirements = requirements
        self.folder = folder
        self.lock_fd = lock_fd
        self.env = dict(os.environ)
        self.cwd = os.getcwd()
        self.spawned: Spawned | None = None
        """The process as started (:mod:`tierlock.spawning`: no :mod:`subprocess` before it runs)."""
        self.proc: subprocess.Popen[str] | None = None
        """The same process as a :class:`subprocess.Popen`, once the install handles it (:func:`popen`)."""
        self.adopted = False
        self.other = False
        """The install's command was another: the plan no longer holds."""


#: How much lower tierlock's own priority goes once its backend runs early (``nice``): with no idle core, the
#: backend (what the command waits for) is not slowed by the start-up running beside it.
YIELD = 10

#: The early backend of this process, while it has one (at most one).
current: list[Early] = []


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
    plan, prefix, entry = find(where, argv)
    if entry is None or prefix is None or not os.path.isdir(prefix):
        return None
    if not outer_holds(entry["outer"], prefix) or not inner_holds(entry["inner"], prefix, own=False):
        return None  # (checked before the lock: a target the plan is not for gets no tierlock folder)
    fd = _lock(prefix)
    if fd is None:
        return None
    try:  # under the lock, the target's facts once more: another install may have come in between
        if not (inner_holds(entry["inner"], prefix, own=False) and inner_holds(entry["inner"], prefix, own=True)):
            os.close(fd)
            return None
        return _launched(plan, prefix, entry["command"], fd)
    except BaseException:
        _abandon(fd)
        raise


def _launched(plan: str, prefix: str, command: Mapping[str, Any], fd: int) -> Early:
    """The kept *command* started into the target at *prefix*, holding its install lock *fd*."""
    early = Early(prefix, list(command["argv"]), command["requirements"], private_folder("tierlock-early-"), fd)
    early.plan = plan
    current.append(early)  # before the start: an interrupt from here on stops what was started
    path = os.path.join(early.folder, "requirements.txt")
    with open(path, "wb") as fh:
        fh.write(early.requirements)
    early.argv = [path if a == REQUIREMENTS else placed(a, prefix) for a in early.argv]
    _launch(early)
    return early


def _abandon(fd: int) -> None:
    """An early start that failed before its process ran: nothing kept of it, the lock let go (the install
    takes it as without an early start)."""
    for early in list(current):
        if early.lock_fd == fd and early.spawned is None and early.proc is None:
            current.remove(early)
            _remove(early.folder)
    if not any(e.lock_fd == fd for e in current):
        os.close(fd)


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
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
    except OSError:
        os.close(fd)
        return None
    return fd


def _launch(early: Early) -> None:
    """Start the backend as :func:`tierlock.subproc.start` starts every process (its own group, the output read
    back, no input) but on :mod:`os` alone (:mod:`tierlock.spawning`: :mod:`subprocess` costs more than the start
    itself); the install handles it as one of its own from its takeover on (:func:`popen`)."""
    early.spawned = spawn(early.argv, env=early.env, capture=True)
    # the backend is the critical path: tierlock's own start yields to it (no contextlib: an import more before it)
    try:  # noqa: SIM105
        os.nice(YIELD)
    except OSError:
        pass


def popen(early: Early) -> subprocess.Popen[str] | None:
    """*early*'s process as a :class:`subprocess.Popen` (made at the first call; None when none was started)."""
    if early.proc is None and early.spawned is not None:
        early.proc = as_popen(early.argv, early.spawned)
    return early.proc


# -- the install's side ----------------------------------------------------------------------------------------
def held(prefix: str) -> int | None:
    """The install lock's descriptor when an early start holds the lock of the target at *prefix* (the install
    takes it over: no other tierlock can come in between)."""
    real = os.path.realpath(prefix)
    for early in current:
        if early.real == real and early.lock_fd >= 0:
            return early.lock_fd
    return None


def release(fd: int) -> None:
    """The install is done with the lock an early start took for it."""
    for early in current:
        if early.lock_fd == fd:
            early.lock_fd = -1
    os.close(fd)


def fresh(prefix: str) -> bool:
    """Whether an early backend runs into the target at *prefix* (the install's probe before the backend then
    takes what the kept plan proved at the start: none of the tiers' packages there)."""
    real = os.path.realpath(prefix)
    return any(e.real == real and not e.adopted for e in current)


def adopt(argv: Sequence[str], requirements: str) -> subprocess.Popen[str] | None:
    """The early backend's process when *argv* (with the requirements file *requirements*) is exactly its
    command - same argv, requirements bytes, environment and folder; else None, after waiting for it to end."""
    if not current or current[0].adopted or popen(current[0]) is None:
        return None
    early = current[0]
    early.adopted = True
    _register(early)
    mine = os.path.join(early.folder, "requirements.txt")
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
    _remove(early.folder)


def _register(early: Early) -> None:
    """Tell :mod:`tierlock.subproc` of the process (its observers count it, an interrupt stops it), once."""
    from tierlock import subproc

    proc = popen(early)
    if proc is not None and proc.pid not in subproc._live:
        for observer in subproc.observers:
            observer(tuple(early.argv))
        subproc._live[proc.pid] = proc


def finish(code: int) -> None:
    """At the end of the command: an early backend nobody took over is waited for (or, after an interrupt,
    stopped with its grace period); its scratch folder removed."""
    from tierlock.exitcodes import EXIT_INTERRUPTED

    while current:
        early = current.pop()
        proc = popen(early)
        if not early.adopted or (proc is not None and proc.poll() is None):
            settle(early, stop=code == EXIT_INTERRUPTED)
        else:
            _remove(early.folder)
        if early.other and early.plan:
            try:  # noqa: SIM105
                os.unlink(early.plan)
            except OSError:
                pass


def _remove(path: str) -> None:
    import shutil

    shutil.rmtree(path, ignore_errors=True)
