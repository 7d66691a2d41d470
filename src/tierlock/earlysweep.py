"""What a tierlock killed outright left in the temporary folder, removed by a later one.

An early backend's requirements file (:func:`tierlock.earlyarm._private_file`) is removed when the backend ends, and
at the end of the command; a lock's scratch folders (``tierlock-lock-PID-*`` of each tier's compile,
``tierlock-lock-early-PID-*`` of a compile started early, ``tierlock-lock-kept-PID-*`` of a kept lock's compile)
when its compile is done. A tierlock killed outright (SIGKILL, a machine that lost power) removes nothing. The next
arming that starts a backend early removes such requirements files while its backend runs
(``tierlock.earlyarm._swept``, :func:`sweep`); the next ``tierlock lock`` that ran in full removes such scratch
folders as it ends (:func:`sweep_locks`, from :func:`tierlock.lockrecord.run`). Only this user's, only of the exact
form tierlock names them, only of a process id no process has now, and only once old enough: a minute for a
requirements file, an hour for a lock's folder (a compile's output is written only when it ends).
"""

from __future__ import annotations

import os
import time

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator

#: How old a requirements file of a process that is gone must be before :func:`sweep` removes it (its backend,
#: which a killed tierlock leaves running, reads it as it starts).
STALE_S = 60
#: How old a lock's scratch folder of a process that is gone must be before :func:`sweep_locks` removes it (the
#: compile a killed tierlock leaves running writes its output there when it ends; a tierlock that another process
#: namespace sharing this temporary folder runs, whose process id is not seen here, keeps its folder while it works).
LOCK_STALE_S = 3600
#: The names of a lock's scratch folders, each followed by ``PID-`` and the rest of its name (the longest first).
LOCK_PREFIXES = ("tierlock-lock-early-", "tierlock-lock-kept-", "tierlock-lock-")


def sweep(base: str) -> None:
    """Remove from the temporary folder *base* what an early start of a process that is gone left there (killed:
    no :func:`tierlock.earlyarm.finish` ran): this user's requirements files (and the folders earlier versions
    made), named for a process id that no process has now, modified more than :data:`STALE_S` ago. A process id in
    use again keeps its file."""
    for path, rest, st in _left(base, ("tierlock-early-",), STALE_S):
        if not _hex(rest.removesuffix(".txt")):
            continue
        if st.st_mode & 0o170000 == 0o100000 and rest.endswith(".txt"):
            _remove(path)
        elif st.st_mode & 0o170000 == 0o040000 and not rest.endswith(".txt"):
            _remove_folder(path)


def sweep_locks(base: str) -> None:
    """Remove from the temporary folder *base* the scratch folders of a lock whose process is gone (killed before it
    removed them): this user's folders (not a link) named ``PREFIX-PID-NAME`` (:data:`LOCK_PREFIXES`) for a process
    id that no process has now, modified more than :data:`LOCK_STALE_S` ago, with all they hold. A folder named
    without a process id (an earlier version's) is left: whose it is cannot be told."""
    found = _left(base, LOCK_PREFIXES, LOCK_STALE_S)
    doomed = [path for path, rest, st in found if st.st_mode & 0o170000 == 0o040000 and _tail(rest)]
    if doomed:
        import shutil

        for path in doomed:
            shutil.rmtree(path, ignore_errors=True)  # (by its descriptors: a link inside is removed, not followed)


def _left(base: str, prefixes: tuple[str, ...], stale_s: int) -> Iterator[tuple[str, str, os.stat_result]]:
    """Each entry of *base* named ``PREFIX`` (one of *prefixes*, the first that fits) ``PID-REST``, this user's, not
    modified for *stale_s* seconds, of a process id no process has now: its path, ``REST`` and its ``lstat``."""
    try:
        names = [n for n in os.listdir(base) if n.startswith(prefixes)]
    except OSError:
        return
    old = time.time() - stale_s
    for name in names:
        for prefix in prefixes:
            pid, dash, rest = name[len(prefix) :].partition("-") if name.startswith(prefix) else ("", "", "")
            if dash and pid.isdigit() and rest:
                break
        else:
            continue
        path = os.path.join(base, name)
        try:
            st = os.lstat(path)
        except OSError:
            continue
        if st.st_uid != os.getuid() or st.st_mtime > old or _alive(int(pid)):
            continue
        yield path, rest, st


def _tail(text: str) -> bool:
    """Whether *text* is the random end of a scratch folder's name (:func:`tempfile.mkdtemp`'s letters, digits and
    ``_``; :func:`tierlock.keptrun.private_folder`'s hexadecimal digits)."""
    return bool(text) and all(c in "abcdefghijklmnopqrstuvwxyz0123456789_" for c in text)


def _hex(text: str) -> bool:
    return bool(text) and all(c in "0123456789abcdef" for c in text)


def _alive(pid: int) -> bool:
    """Whether a process of id *pid* is there (one of another user's too)."""
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # (not ours to signal: it is there)
        return True
    return True


def _remove_folder(path: str) -> None:
    """An earlier version's scratch folder: its files, then the folder (what cannot be removed is left)."""
    try:
        for name in os.listdir(path):
            _remove(os.path.join(path, name))
        os.rmdir(path)
    except OSError:
        pass


def _remove(path: str) -> None:
    try:  # noqa: SIM105 (as tierlock.earlyarm)
        os.unlink(path)
    except OSError:
        pass
