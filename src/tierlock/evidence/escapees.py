"""Processes that escaped their command's process group (``setsid``, a daemon) and outlived the run.

Every command of a run starts with :data:`~tierlock.evidence.RUN_MARK` set to the run id in its
environment, and its descendants inherit it. When the last command has ended, any process still
carrying the mark escaped: :func:`end` finds them (``/proc/<pid>/environ``, on Linux), stops
them (SIGTERM, then SIGKILL after the grace period) and says which they were, before the tree
is checked a last time. Elsewhere (no ``/proc``) nothing is found, and the receipt says so.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
from typing import Any

from tierlock.evidence import RUN_MARK
from tierlock.evidence.tails import clean

PROC = "/proc"


def find(run_id: str, proc: str = PROC) -> list[int] | None:
    """Pids of live processes marked with *run_id* (None when the system has no ``/proc`` to look in)."""
    try:
        names = os.listdir(proc)
    except OSError:
        return None
    mark = f"{RUN_MARK}={run_id}".encode()
    me = os.getpid()
    found: list[int] = []
    for name in names:
        if not name.isdigit() or int(name) == me:
            continue
        try:
            with open(os.path.join(proc, name, "environ"), "rb") as handle:
                environ = handle.read()
        except OSError:  # gone, or another user's
            continue
        if mark in environ.split(b"\0"):
            found.append(int(name))
    return sorted(found)


def _command_line(pid: int, proc: str) -> list[str]:
    try:
        with open(os.path.join(proc, str(pid), "cmdline"), "rb") as handle:
            raw = handle.read()
    except OSError:
        return []
    return [part.decode("utf-8", "replace") for part in raw.split(b"\0") if part]


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # pragma: no cover - another user's process took the pid
        return False
    try:
        with open(os.path.join(PROC, str(pid), "stat"), "rb") as handle:
            return handle.read().rsplit(b")", 1)[1].split()[0] != b"Z"  # a zombie waits only for its reaper
    except (OSError, IndexError):
        return True


def _signal(pid: int, signum: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.kill(pid, signum)


def end(run_id: str, grace: float, shown: Any = str) -> list[dict[str, Any]] | None:
    """Stop every process still marked with *run_id*; what each was (its command line without control
    characters, through *shown*: the run's redaction).

    None when processes cannot be looked for on this system.
    """
    pids = find(run_id)
    if pids is None:
        return None

    found = [{"pid": pid, "command": shown(clean(" ".join(_command_line(pid, PROC))))} for pid in pids]
    for pid in pids:
        _signal(pid, signal.SIGTERM)
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline and any(_alive(pid) for pid in pids):
        time.sleep(0.02)
    for pid in pids:
        if _alive(pid):
            _signal(pid, signal.SIGKILL)
    end_by = time.monotonic() + 1.0
    while time.monotonic() < end_by and any(_alive(pid) for pid in pids):
        time.sleep(0.01)
    for entry in found:
        entry["stopped"] = not _alive(int(entry["pid"]))
    return found
