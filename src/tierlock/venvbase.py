"""A venv and the interpreter it was made from: its ``pyvenv.cfg`` read as CPython reads it, why a venv has no
interpreter, and the command that makes it again.

(:mod:`tierlock.environment` says so when a target's interpreter is missing; :mod:`tierlock.installer.location`
finds the base interpreter of a venv; :mod:`tierlock.probing.distribution` asks whether a venv sees its base
interpreter's site-packages.)
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path


def settings(prefix: str | os.PathLike[str]) -> dict[str, str] | None:
    """The settings in the ``pyvenv.cfg`` of the venv at *prefix*, read as CPython's ``site.py`` reads them
    (:func:`cfg_text`, :func:`parsed`); None when it cannot be read."""
    text = cfg_text(prefix)
    return None if text is None else parsed(text)


def cfg_text(prefix: str | os.PathLike[str]) -> str | None:
    """The text of the ``pyvenv.cfg`` of the venv at *prefix*, read as ``site.py`` reads it: as UTF-8 (what the
    venv module writes), its line ends made ``\n``. None when there is no such file to read, or when its bytes are
    not UTF-8: the venv's interpreter then stops as it starts (``site.py`` raises :class:`UnicodeDecodeError`), so
    nothing it would say is taken from it."""
    try:
        with open(os.path.join(prefix, "pyvenv.cfg"), encoding="utf-8") as handle:
            return handle.read()
    except (OSError, UnicodeDecodeError):
        return None


def parsed(text: str) -> dict[str, str]:
    """The settings in *text* (:func:`cfg_text`) as ``site.py`` takes them: each line holding a ``=`` a setting, its
    key stripped and in lower case, its value stripped, the last of a key kept."""
    values: dict[str, str] = {}
    for line in text.split("\n"):
        if "=" in line:
            key, _, value = line.partition("=")
            values[key.strip().lower()] = value.strip()
    return values


def system_site(values: dict[str, str]) -> bool:
    """Whether a venv of these settings (:func:`parsed`) puts its base interpreter's site-packages on its path, as
    ``site.py`` decides it: ``include-system-site-packages`` (any case) ``true``, or not set at all."""
    return values.get("include-system-site-packages", "true").lower() == "true"


def includes_system_site(prefix: str | os.PathLike[str]) -> bool:
    """:func:`system_site` of the venv at *prefix*; False when its ``pyvenv.cfg`` cannot be read (:func:`settings`)."""
    values = settings(prefix)
    return values is not None and system_site(values)


def why_none(exe: Path) -> str:
    """Why there is no interpreter at *exe* when its environment is still there."""
    prefix = os.path.dirname(os.path.dirname(os.path.abspath(exe)))
    if os.path.isfile(os.path.join(prefix, "pyvenv.cfg")):
        return f": the environment {prefix} has a pyvenv.cfg, but its interpreter is gone"
    return ""


def remedy_for_none(exe: str | os.PathLike[str]) -> str:
    """Make the interpreter of a venv that lost it, or whose interpreter cannot be run, again (its packages stay),
    else name one. ``python -m venv`` keeps whatever it finds at the names it makes (``python``, ``python3``,
    ``pythonX.Y``, each a link to the first): one left behind, a link to the name removed, would become a loop of
    links to the new one. So every one of them is removed first."""
    path = os.path.abspath(exe)
    prefix = os.path.dirname(os.path.dirname(path))
    base = base_of(prefix)
    if base is None:
        return "pass --python PATH to a python executable"
    import shlex

    folder = os.path.dirname(path)
    names = dict.fromkeys(["python", "python3", os.path.basename(base), os.path.basename(path)])
    gone = shlex.join(["rm", "-f", *(os.path.join(folder, name) for name in names)])
    return f"{gone} && {shlex.join([base, '-m', 'venv', '--without-pip', prefix])}"


def base_of(prefix: str | os.PathLike[str]) -> str | None:
    """The interpreter a venv at *prefix* was made from (``home`` and ``version`` in its ``pyvenv.cfg``), when
    that interpreter is still there; else (its base removed or moved) a ``pythonX.Y`` of the same version on
    ``PATH``, which runs what the venv holds; None otherwise."""
    values = settings(prefix)
    if values is None:
        return None
    home = values.get("home", "")
    version = values.get("version_info") or values.get("version") or ""
    minor = ".".join(version.split(".")[:2]) if version else ""
    names = [f"python{minor}"] if minor else []
    for name in [*names, "python3"]:
        candidate = os.path.join(home, name)
        if home and os.access(candidate, os.X_OK):
            return candidate
    if not minor:
        return None
    import shutil

    inside = os.path.realpath(prefix) + os.sep
    found = shutil.which(f"python{minor}")
    if not found or os.path.realpath(found).startswith(inside):
        return None
    runs = version_run(found)  # (a pyenv shim of a version not selected is on PATH by that name, and cannot run)
    return found if runs is not None and ".".join(map(str, runs[:2])) == minor else None


_ASK_VERSION = "import sys; print('%d.%d.%d' % sys.version_info[:3])"


def version_run(interpreter: str) -> tuple[int, int, int] | None:
    """The version the interpreter at *interpreter* says it is, when it runs (asked of it, isolated: a name on
    ``PATH`` says neither whether it runs nor its micro version); None when it does not run or says nothing."""
    import subprocess

    try:
        done = subprocess.run(
            [interpreter, "-I", "-c", _ASK_VERSION],
            capture_output=True,
            text=True,
            stdin=subprocess.DEVNULL,
            timeout=60,
            check=False,
        )
    except (OSError, subprocess.SubprocessError, ValueError):
        return None
    parts = done.stdout.strip().split(".")
    if done.returncode != 0 or len(parts) != 3 or not all(p.isdigit() for p in parts):
        return None
    return (int(parts[0]), int(parts[1]), int(parts[2]))


# -- a venv whose interpreter now runs another Python than the one it was made by ------------------


def made_by_other(prefix: str | os.PathLike[str], runs: tuple[int, int, int]) -> str | None:
    """The version (``3.12.1``) that made the venv at *prefix*, by its ``pyvenv.cfg``, when its interpreter now runs
    Python *runs* of another minor version: the interpreter its ``bin/python`` leads to was replaced (an upgrade of
    the system's ``python3``, a link moved to another version). Its packages are then in a ``site-packages`` that
    interpreter never reads. None when the venv's settings say nothing else (or cannot be read)."""
    values = settings(prefix)
    made = "" if values is None else values.get("version_info") or values.get("version") or ""
    parts = made.split(".")
    if len(parts) < 2 or not parts[0].isdigit() or not parts[1].isdigit():
        return None
    if (int(parts[0]), int(parts[1])) == tuple(runs[:2]):
        return None
    return ".".join(parts[:3])


def interpreter_of_version(prefix: str | os.PathLike[str], minor: str) -> str | None:
    """An interpreter of version *minor* (``3.12``) that made, or could have made, the venv at *prefix*: the one its
    ``pyvenv.cfg`` names (``executable``, ``home``), else a ``pythonX.Y`` on ``PATH``; each asked for its version
    (a name says neither that it runs nor which version it is now). None when none runs that version."""
    import shutil

    values = settings(prefix) or {}
    home = values.get("home", "")
    names = [values.get("executable", "")]
    if home:
        names += [os.path.join(home, f"python{minor}"), os.path.join(home, "python3")]
    names.append(shutil.which(f"python{minor}") or "")
    inside = (os.path.abspath(prefix) + os.sep, os.path.realpath(prefix) + os.sep)
    for name in dict.fromkeys(n for n in names if n):
        if os.path.abspath(name).startswith(inside) or not os.access(name, os.X_OK):
            continue  # (one of the venv's own names: the fix removes them before it runs)
        runs = version_run(name)
        if runs is not None and ".".join(map(str, runs[:2])) == minor:
            return name
    return None


def remedy_for_other(exe: str | os.PathLike[str], prefix: str, made: str, armed: list[str]) -> str:
    """The command that makes the venv at *prefix* (whose interpreter *exe* runs another version than *made*, the
    one that made it) whole: made again over itself by an interpreter of *made* when one is still there (what it
    holds stays, and is on the path again); else moved to the version it runs now (``venv --upgrade``, by the
    interpreter the venv's ``python`` leads to) and, when tiers are *armed* there (their receipts), every armed tier
    installed again for it (``--armed``: a receipt of a tier the project no longer declares is passed over, where
    naming it would be refused)."""
    import shlex

    minor = ".".join(made.split(".")[:2])
    old = interpreter_of_version(prefix, minor)
    if old is not None:
        path = os.path.abspath(exe)
        folder = os.path.dirname(path)
        names = dict.fromkeys(["python", "python3", f"python{minor}", os.path.basename(old), os.path.basename(path)])
        gone = shlex.join(["rm", "-f", *(os.path.join(folder, name) for name in names)])
        return f"{gone} && {shlex.join([old, '-m', 'venv', '--without-pip', prefix])}"
    upgrade = shlex.join([os.path.realpath(exe), "-m", "venv", "--upgrade", "--without-pip", prefix])
    if not armed:
        return upgrade
    return f"{upgrade} && {shlex.join(['install-tier', '--armed', '--python', os.fspath(exe)])}"
