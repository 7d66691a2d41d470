"""The target interpreter of ``probe``, ``status`` and ``admit`` started first, at the command's entry.

With nothing kept, a read-only command must ask its target interpreter about itself (a second Python, 10-20 ms
of its own start-up): :mod:`tierlock.environment` starts it once the command knows its target, after tierlock's
own modules, the project and (for ``admit``) the lockfile check; the command then waits for it. Started from the
command line alone, before those modules load, its start-up runs on another core while they do.

:func:`start` reads the command line by hand, as the command will read it (``--python PATH`` or ``--python=PATH``,
else the active venv, else the project's environment found without parsing ``pyproject.toml``,
:func:`tierlock.installer.location.quick_project_environment`), and starts that interpreter only when nothing is
kept for it (:func:`tierlock.targetcache.kept_for`). It is a guess and decides nothing: the command asks the
interpreter its own parsing names, through a :class:`tierlock.environment.Pending` that reads what is kept first
and adopts the process only for the same interpreter; one nobody adopts is ended when the command ends
(:func:`tierlock.spawning.end_ahead`).
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

#: The commands that ask a target interpreter.
COMMANDS = frozenset({"probe", "status", "admit"})


def guess(argv: Sequence[str], command: str) -> str | None:
    """The interpreter (or environment folder) *command* of *argv* will ask, when the command line makes that
    plain; else None (``--help``, an abbreviated option, ``admit`` with no tier to probe in sight)."""
    if command not in COMMANDS or "-h" in argv or "--help" in argv:
        return None
    python = _option(argv, "--python")
    if python is not None:
        return python or None
    if any(token.startswith("--py") for token in argv):
        return None  # (an abbreviation argparse takes for --python: left to the command)
    from tierlock.installer.fastpath import find_pyproject
    from tierlock.installer.location import active_venv, is_running_environment, quick_project_environment

    pyproject = find_pyproject(_option(argv, "--project"))
    if pyproject is None or (command == "admit" and not _probes(argv, pyproject)):
        return None
    if os.environ.get("VIRTUAL_ENV"):
        return active_venv()
    folder = quick_project_environment(pyproject)
    return None if folder is None or is_running_environment(folder) else folder


def _option(argv: Sequence[str], name: str) -> str | None:
    """The last value given to the option *name* (``NAME VALUE`` or ``NAME=VALUE``), None when it is not given."""
    found = None
    for i, token in enumerate(argv):
        if token == "--":
            break
        if token == name and i + 1 < len(argv):
            found = argv[i + 1]
        elif token.startswith(name + "="):
            found = token[len(name) + 1 :]
    return found


def _probes(argv: Sequence[str], pyproject: str) -> bool:
    """Whether ``admit`` looks like it probes an environment: a ``--tier``, or a ``ci-require`` in pyproject.toml's
    text (a guess: the command decides)."""
    if any(token == "--tier" or token.startswith("--tier=") for token in argv):
        return True
    try:
        with open(pyproject, "rb") as handle:
            return b"ci-require" in handle.read()
    except OSError:
        return False


def start(argv: Sequence[str], command: str) -> None:
    """Start the interpreter :func:`guess` names, when nothing is kept for it (never raises: a guess that fails
    leaves the command as it was)."""
    try:
        python = guess(argv, command)
        if python is not None:
            _start(interpreter(python))
    except Exception:  # (the command asks again, and reports what went wrong there)
        pass


def _start(exe: str) -> None:
    from tierlock import targetcache

    key = os.path.abspath(exe)
    folder = os.path.dirname(key)
    folders = (folder, os.path.dirname(folder))  # (where it looks for pyvenv.cfg: tierlock.environment's)
    if not os.path.isfile(exe) or targetcache.kept_for(key, folders):
        return
    from tierlock import spawning
    from tierlock.targetanswer import inspection

    if spawning.peek(exe) is not None:
        return
    before = tuple(targetcache.stamp(key, folders, ()))
    spawning.ahead[exe] = (spawning.spawn(inspection(exe), capture=True), before)


def interpreter(python: str) -> str:
    """The executable *python* names, spelt as :func:`tierlock.environment.interpreter` spells it for the usual
    spellings (another spelling: no process of this module's is taken for it, :func:`tierlock.spawning.take`)."""
    own = os.path.join("Scripts", "python.exe") if os.name == "nt" else os.path.join("bin", "python")
    if os.path.isdir(python):
        return os.path.join(python, own)
    home = os.path.dirname(os.path.dirname(python))
    if not os.path.basename(python).startswith("python") and os.path.isfile(os.path.join(home, "pyvenv.cfg")):
        return os.path.join(home, own)
    return python
