"""Console scripts that run another environment's interpreter: a venv moved or copied to another path.

pip and uv write the interpreter's absolute path into the first line of each console script they install (``#!/
srv/app/.venv/bin/python``; a ``/bin/sh`` trampoline naming it on its second line when the path is long or holds a
space). A venv copied with ``cp -a``, moved with ``mv``, or copied by a container build to another path keeps those
lines: each script then runs the old path's interpreter (the one left behind, with its own packages), or fails with
``bad interpreter`` when nothing is there any more. Every file is still there at its recorded size, so neither
``pip check`` nor ``uv pip check`` sees it.

A venv's scripts are judged only (their folder's parent holds ``pyvenv.cfg``): a venv's installer always names the
venv's own interpreter, in the scripts' own folder. A script naming ``/usr/bin/env`` or no absolute path (uv's
relocatable venvs) is not judged, nor a system or ``--user`` install, whose scripts may name an interpreter
elsewhere. Read when a folder's facts are made (kept with them, keyed by the site folder's path: a moved venv is
read again).
"""

from __future__ import annotations

import os
import shlex

from tierlock.probing.regular import open_bytes

_HEAD = 512
"""Bytes read from a script's start: its first two lines (a trampoline's path may be long)."""
_TRAMPOLINE = b"'''exec' "
_PYTHONS = ("python", "pypy", "graalpy")


def interpreter(head: bytes) -> str | None:
    """The absolute path of the interpreter a script's first bytes *head* run, or None when they name none
    (no ``#!``, ``/usr/bin/env``, a relative path or a shell expression: a relocatable script)."""
    if not head.startswith(b"#!"):
        return None
    first, _, rest = head[2:].partition(b"\n")
    line = first.strip()
    if line == b"/bin/sh":  # pip's and uv's trampoline: ``'''exec' "/path/python" "$0" "$@"``
        second = rest.partition(b"\n")[0].strip()
        if not second.startswith(_TRAMPOLINE):
            return None
        try:
            words = shlex.split(second[len(_TRAMPOLINE) :].decode("utf-8", "surrogateescape"))
        except ValueError:
            return None
        path = words[0] if words else ""
    else:
        words = line.decode("utf-8", "surrogateescape").split()
        path = words[0] if words else ""
    if not os.path.isabs(path) or "$" in path or not os.path.basename(path).startswith(_PYTHONS):
        return None
    return path


def elsewhere(paths: list[str]) -> list[str]:
    """Why the console scripts at *paths* (absolute) run another interpreter than their venv's own: one line per
    script whose first line names an interpreter outside the script's own folder (missing, or another
    environment's). Scripts outside a venv, and those that cannot be read, are not judged here."""
    out: list[str] = []
    venvs: dict[str, bool] = {}
    for path in paths:
        folder = os.path.dirname(path)
        if folder not in venvs:
            venvs[folder] = os.path.isfile(os.path.join(os.path.dirname(folder), "pyvenv.cfg"))
        if not venvs[folder]:
            continue
        try:
            with open_bytes(path, buffering=0) as script:
                head = script.read(_HEAD)
        except OSError:
            continue  # missing or not a file: the stat of every recorded file says so
        named = interpreter(head)
        if named is None or os.path.dirname(named) == folder:
            continue
        if not os.path.exists(named):
            out.append(
                f"console script {path} runs {named}, which does not exist: the environment was moved or copied "
                f"from {os.path.dirname(os.path.dirname(named))}"
            )
        elif os.path.realpath(os.path.dirname(named)) != os.path.realpath(folder):
            out.append(
                f"console script {path} runs {named}, another environment's interpreter: the environment was moved "
                f"or copied from {os.path.dirname(os.path.dirname(named))}"
            )
    return out
