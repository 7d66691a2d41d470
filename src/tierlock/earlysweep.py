"""What an early start of a process that is gone left in the temporary folder, removed by a later one.

An early backend's requirements file (:func:`tierlock.earlyarm._private_file`) is removed when the backend ends, and
at the end of the command; a tierlock killed outright (SIGKILL, a machine that lost power) removes nothing. The next
arming that starts a backend early removes such files while its backend runs (``tierlock.earlyarm._swept``): only
this user's, only of the exact form an early start names them, only of a process id no process has now, and only once a
minute old.
"""

from __future__ import annotations

import os
import time

#: How old a requirements file of a process that is gone must be before :func:`sweep` removes it (its backend,
#: which a killed tierlock leaves running, reads it as it starts).
STALE_S = 60


def sweep(base: str) -> None:
    """Remove from the temporary folder *base* what an early start of a process that is gone left there (killed:
    no :func:`tierlock.earlyarm.finish` ran): this user's requirements files (and the folders earlier versions
    made), named for a process id that no process has now, modified more than :data:`STALE_S` ago. A process id in
    use again keeps its file."""
    prefix = "tierlock-early-"
    try:
        names = [n for n in os.listdir(base) if n.startswith(prefix)]
    except OSError:
        return
    old = time.time() - STALE_S
    for name in names:
        pid, dash, rest = name[len(prefix) :].partition("-")
        if not dash or not pid.isdigit() or not rest or not _hex(rest.removesuffix(".txt")):
            continue
        path = os.path.join(base, name)
        try:
            st = os.lstat(path)
        except OSError:
            continue
        if st.st_uid != os.getuid() or st.st_mtime > old or _alive(int(pid)):
            continue
        if st.st_mode & 0o170000 == 0o100000 and rest.endswith(".txt"):
            _remove(path)
        elif st.st_mode & 0o170000 == 0o040000 and not rest.endswith(".txt"):
            _remove_folder(path)


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
