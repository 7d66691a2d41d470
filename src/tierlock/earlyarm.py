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

import contextlib
import marshal
import os
import sys

from tierlock._version import __version__
from tierlock.keptrun import digest, failed, listing, scan, stat_sig, terminal
from tierlock.probing.libcache import folder

TYPE_CHECKING = False
if TYPE_CHECKING:
    import subprocess
    from collections.abc import Mapping, Sequence
    from typing import Any

#: Bump when the kept plan's shape or meaning changes.
SCHEMA = 1
#: Stands for the target environment's folder in a kept plan.
HERE = "@T"
#: Stands for the requirements file in the kept backend command.
REQUIREMENTS = "@R"
#: The folder of tierlock's own files in the target (its install lock among them).
OWN = "tierlock"
#: Lines of ``pyvenv.cfg`` that say how the environment was made (the interpreter does not read them).
_UNREAD = ("command", "prompt")
#: The options of a plain ``install`` an early start is proven for (anything else: no early start).
SAFE = frozenset({"--project", "--python", "--backend", "--json", "-q", "--quiet"})


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
        self.proc: subprocess.Popen[str] | None = None
        self.adopted = False
        self.other = False
        """The install's command was another: the plan no longer holds."""


#: The early backend of this process, while it has one (at most one).
current: list[Early] = []


def plan_path(where: str, argv: Sequence[str]) -> str:
    """The kept plan of *argv* (the target's folder in it as :data:`HERE`) run here."""
    from tierlock.keptrun import _sha256

    data = "\0".join(["arm", *argv, "", os.getcwd(), sys.executable, sys.version, __version__, "", *sys.path])
    return os.path.join(where, f"arms-{_sha256(data.encode('utf-8', 'surrogateescape')).hexdigest()[:24]}.marshal")


def who(argv: Sequence[str]) -> list[object]:
    """What a kept plan is for besides what the run read (the command line with the target as :data:`HERE`)."""
    machine = [part for i, part in enumerate(os.uname()) if i != 1] if hasattr(os, "uname") else [sys.platform]
    return [SCHEMA, list(argv), os.getcwd(), sys.executable, sys.version, __version__, list(sys.path), machine]


def eligible(argv: Sequence[str]) -> bool:
    """Whether *argv* (after the command) holds only tiers and options an early start is proven for."""
    it = iter(argv)
    for token in it:
        if token.startswith("-"):
            name, eq, _ = token.partition("=")
            if name not in SAFE:
                return False
            if name in ("--project", "--python", "--backend") and not eq:
                next(it, None)
    return folder() is not None and not terminal()


def relative(text: str, prefix: str) -> str | None:
    """*text* with the folder *prefix* as :data:`HERE` when it is that folder or under it; else None."""
    if text == prefix:
        return HERE
    if text.startswith(prefix + os.sep):
        return HERE + text[len(prefix) :]
    return None


def placed(text: str, prefix: str) -> str:
    """*text* with :data:`HERE` as the folder *prefix* (the inverse of :func:`relative`)."""
    return prefix + text[len(HERE) :] if text.startswith(HERE) else text


def target_of(kept: Sequence[str], argv: Sequence[str], old: str) -> str | None:
    """This run's target folder: where *argv* names a path that the kept command line named under the
    target (``--python VENV/bin/python``), the same place under the folder it names now; else the kept one.
    None when *argv* is not the kept command line but for that."""
    if len(kept) != len(argv):
        return None
    prefix: str | None = None
    for was, now in zip(kept, argv, strict=True):
        if was == now:
            continue
        if not was.startswith(HERE):
            return None
        tail = was[len(HERE) :]
        if not now.endswith(tail) or not now[: len(now) - len(tail)]:
            return None
        here = os.path.abspath(now[: len(now) - len(tail)]) if tail else os.path.abspath(now)
        if prefix is not None and here != prefix:
            return None
        prefix = here
    return prefix or old


# -- facts inside the target, by content ---------------------------------------------------------------------
def inner_sig(path: str, prefix: str) -> tuple[object, ...]:
    """What a path inside the target is known by: its mode and size (a folder: its mode), a link's text (the
    target's folder in it relative) and what it leads to outside the target by identity; ``(-errno,)``."""
    try:
        st = os.lstat(path)
    except OSError as exc:
        return (failed(exc),)
    if st.st_mode & 0o170000 == 0o120000:
        try:
            text = os.readlink(path)
        except OSError as exc:
            return (failed(exc),)
        real = os.path.realpath(path)
        if relative(real, prefix) is None:
            return (st.st_mode, relative(text, prefix) or text, stat_sig(real))
        return (st.st_mode, relative(text, prefix) or text, inner_sig(real, prefix))
    if st.st_mode & 0o170000 == 0o040000:
        return (st.st_mode,)
    return (st.st_mode, st.st_size)


def inner_bytes(path: str) -> bytes | int:
    """A digest of what a file inside the target holds (``pyvenv.cfg`` without the lines that only say how
    the environment was made), or ``-errno``."""
    if os.path.basename(path) != "pyvenv.cfg":
        found = digest(path)
        return found if not isinstance(found, tuple) else -1
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except OSError as exc:
        return failed(exc)
    from tierlock.keptrun import _sha256

    kept = [line for line in data.splitlines() if line.partition(b"=")[0].strip().decode("latin-1") not in _UNREAD]
    return bytes(_sha256(b"\n".join(kept)).digest())


def inner_holds(inner: Mapping[str, Any], prefix: str, *, own: bool) -> bool:
    """Whether the facts inside the target hold at *prefix*; *own*: only those in tierlock's folder there,
    else only the others (checked before the lock is taken, which creates that folder)."""

    def mine(rel: str) -> bool:
        return (rel == HERE + os.sep + OWN or rel.startswith(HERE + os.sep + OWN + os.sep)) == own

    for rel, was in inner["stats"].items():
        if mine(rel) and inner_sig(placed(rel, prefix), prefix) != was:
            return False
    for rel, was in inner["lists"].items():
        if mine(rel) and listing(placed(rel, prefix)) != was:
            return False
    for rel, was in inner["scans"].items():
        if mine(rel) and scan(placed(rel, prefix), lambda p: inner_sig(p, prefix)) != was:  # type: ignore[arg-type,return-value]
            return False
    if any(mine(rel) and inner_bytes(placed(rel, prefix)) != was for rel, was in inner["files"].items()):
        return False
    return own or all(writable(placed(rel, prefix)) for rel in inner["writable"])


def writable(folder: str) -> bool:
    """Whether a file can be made in *folder* (the install's own test: an unnamed temporary file)."""
    try:
        os.close(os.open(folder, os.O_TMPFILE | os.O_WRONLY, 0o600))
    except OSError:
        return False
    return True


def outer_holds(entry: Mapping[str, Any], prefix: str) -> bool:
    """Whether every fact outside the target holds: each path looked up, folder listed and module source by its
    identity, each file read by its bytes (the project's files: a few, small), each variable read by its value
    (the target's folder put in)."""
    from tierlock.keptrun import holds
    from tierlock.keptrun import who as kept_who

    environ = os.environ
    if any(environ.get(name) != (None if v is None else placed(v, prefix)) for name, v in entry["env"].items()):
        return False
    if not holds({**entry, "who": kept_who(()), "env": {}, "files": {}, "out": [], "code": 0}, ()):
        return False
    return all(digest(path) == was for path, (_sig, was) in entry["files"].items())


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
    plan, prefix, entry = _find(where, argv)
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
    early = Early(prefix, list(command["argv"]), command["requirements"], _scratch(), fd)
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
        if early.lock_fd == fd and early.proc is None:
            current.remove(early)
            _remove(early.folder)
    if not any(e.lock_fd == fd for e in current):
        os.close(fd)


def _find(where: str, argv: Sequence[str]) -> tuple[str, str | None, dict[str, Any] | None]:
    """The kept plan that *argv* matches (its file, the target folder it names now, the plan)."""
    for kept in kept_forms(argv):
        path = plan_path(where, kept)
        entry = _load(path)
        if entry is None or entry.get("schema") != SCHEMA or entry.get("who") != who(kept):
            continue
        prefix = target_of(kept, argv, entry["prefix"])
        if prefix is not None:
            return path, prefix, entry
    return "", None, None


def kept_forms(argv: Sequence[str]) -> list[list[str]]:
    """The command lines a plan for *argv* may be kept under: with ``--python`` inside a venv, that path
    relative to the venv's folder (:data:`HERE`) first; then *argv* as it is."""
    python = python_of(argv)
    forms = [list(argv)]
    if python is not None:
        base = os.path.abspath(python)
        for _up in range(3):
            base = os.path.dirname(base)
            if os.path.isfile(os.path.join(base, "pyvenv.cfg")):
                forms.insert(0, [relative(os.path.abspath(a), base) or a if a == python else a for a in argv])
                break
    return forms


def python_of(argv: Sequence[str]) -> str | None:
    """The value of ``--python`` in *argv* (None: not given)."""
    for i, token in enumerate(argv):
        if token == "--python" and i + 1 < len(argv):
            return argv[i + 1]
        if token.startswith("--python="):
            return token.partition("=")[2]
    return None


def _load(path: str) -> dict[str, Any] | None:
    try:
        with open(path, "rb") as fh:
            data = marshal.loads(fh.read())
    except (OSError, ValueError, EOFError, TypeError):
        return None
    return data if isinstance(data, dict) else None


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


def _scratch() -> str:
    """A new folder of this process's own for the requirements file (``tempfile`` costs an import here)."""
    import time

    base = os.environ.get("TMPDIR") or os.environ.get("TEMP") or os.environ.get("TMP") or "/tmp"
    path = os.path.join(base, f"tierlock-early-{os.getpid()}-{time.time_ns()}")
    os.mkdir(path, 0o700)
    return path


def _launch(early: Early) -> None:
    """Start the backend as :func:`tierlock.subproc.start` starts every process (its own group, the output read
    back, no input), registered with :mod:`tierlock.subproc` when the install takes it over (that module's
    import costs more than the start itself)."""
    import subprocess

    early.proc = subprocess.Popen(
        early.argv,
        env=early.env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        stdin=subprocess.DEVNULL,
        process_group=0,
    )


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
    if not current or current[0].adopted or current[0].proc is None:
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

    proc = early.proc
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

    if early.proc is not None and early.proc.pid not in subproc._live:
        for observer in subproc.observers:
            observer(tuple(early.argv))
        subproc._live[early.proc.pid] = early.proc


def finish(code: int) -> None:
    """At the end of the command: an early backend nobody took over is waited for (or, after an interrupt,
    stopped with its grace period); its scratch folder removed."""
    from tierlock.exitcodes import EXIT_INTERRUPTED

    while current:
        early = current.pop()
        if not early.adopted or (early.proc is not None and early.proc.poll() is None):
            settle(early, stop=code == EXIT_INTERRUPTED)
        else:
            _remove(early.folder)
        if early.other and early.plan:
            with contextlib.suppress(OSError):
                os.unlink(early.plan)


def _remove(path: str) -> None:
    import shutil

    shutil.rmtree(path, ignore_errors=True)
