"""The kept plan of an arming: what it rests on, and whether it still holds (:mod:`tierlock.earlyarm` starts it).

A plan (kept by :mod:`tierlock.armrecord`) names the facts outside the target environment as
:mod:`tierlock.keptrun` does - each path looked up and module imported by its identity, each folder listed by
its names, each variable read by its value - and each file read by its bytes; the facts inside the target by
content and relative to its folder (:data:`HERE`), so that a fresh venv made the same way at another folder
holds them too: each path by its mode and size (a folder by its mode, a link by its text and what it leads
to), each file read by its bytes (``pyvenv.cfg`` without the lines that only say how it was made), each folder
listed by its names, and the install's write test of its site-packages done again.
"""

from __future__ import annotations

import os
import sys

from tierlock._version import __version__
from tierlock.keptfirst import digest, failed, folder, terminal
from tierlock.keptrun import _sha256, listing, load, scan, stat_sig

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from typing import Any

#: Bump when the kept plan's shape or meaning changes.
SCHEMA = 4
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


def plan_path(where: str, argv: Sequence[str]) -> str:
    """The kept plan of *argv* (the target's folder in it as :data:`HERE`) run here."""
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
    kept = [line for line in data.splitlines() if line.partition(b"=")[0].strip().decode("latin-1") not in _UNREAD]
    return bytes(_sha256(b"\n".join(kept)).digest())


def inner_holds(inner: Mapping[str, Any], prefix: str, *, own: bool, writes: bool = True) -> bool:
    """Whether the facts inside the target hold at *prefix*; *own*: only those in tierlock's folder there,
    else only the others (checked before the lock is taken, which creates that folder). Without *writes*, the
    install's write test is left out (the early start makes it once, under the lock: a file made in the target
    costs ~0.5 ms on a journalling file system, and what the lock's folder says about a target is the same)."""

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
    return own or not writes or all(writable(placed(rel, prefix)) for rel in inner["writable"])


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
        return False  # (the files by their bytes below)
    return all(digest(path) == was for path, (_sig, was) in entry["files"].items())


# -- the backend's own configuration -----------------------------------------------------------------------------
#: The words uv reads as true in a boolean variable (``UV_NO_CONFIG=0``, ``false``, ``off``: it reads its files).
_UV_TRUE = frozenset({"1", "true", "t", "yes", "y", "on"})
#: The prefix of the environment variables each backend reads as its configuration.
CONFIG_VARIABLES = {"pip": "PIP_", "uv": "UV_"}


def config_files(backend: str, prefix: str) -> list[str]:
    """Where *backend* looks for its configuration files here (*prefix*: the target's folder), as it looks: pip's
    ``PIP_CONFIG_FILE``, site (the target's folder; tierlock's interpreter's), user and global ``pip.conf``
    (none when ``PIP_CONFIG_FILE`` is the null device); uv's ``UV_CONFIG_FILE``, the ``uv.toml`` and
    ``pyproject.toml`` of the working folder and each folder above it, the user's and the system's ``uv.toml``
    (none with ``UV_NO_CONFIG`` set to one of uv's true words)."""
    environ = os.environ
    home = os.path.expanduser("~")
    user = environ.get("XDG_CONFIG_HOME") or os.path.join(home, ".config")
    system = [d for d in (environ.get("XDG_CONFIG_DIRS") or "/etc/xdg").split(os.pathsep) if d]
    if backend == "pip":
        chosen = environ.get("PIP_CONFIG_FILE")
        if chosen == os.devnull:
            return []
        files = [os.path.join(d, "pip", "pip.conf") for d in system] + ["/etc/pip.conf"]
        files += [os.path.join(home, ".pip", "pip.conf"), os.path.join(user, "pip", "pip.conf")]
        files += [os.path.join(prefix, "pip.conf"), os.path.join(sys.prefix, "pip.conf")]
        return files + ([chosen] if chosen else [])
    if environ.get("UV_NO_CONFIG", "").lower() in _UV_TRUE:
        return []
    files = [os.path.join(user, "uv", "uv.toml")] + [os.path.join(d, "uv", "uv.toml") for d in system]
    files.append("/etc/uv/uv.toml")
    here = os.getcwd()
    while True:
        files += [os.path.join(here, "uv.toml"), os.path.join(here, "pyproject.toml")]
        up = os.path.dirname(here)
        if up == here:
            break
        here = up
    chosen = environ.get("UV_CONFIG_FILE")
    return files + ([chosen] if chosen else [])


def config_facts(backend: str, prefix: str) -> dict[str, Any]:
    """What *backend* reads of the user's configuration: every variable of its prefix by a digest of its value (an
    index URL may carry a credential: the plan never holds it) and each of its configuration files by its bytes (the
    target's folder in both as :data:`HERE`)."""
    start = CONFIG_VARIABLES.get(backend, "\0")
    env = {
        k: _sha256((relative(v, prefix) or v).encode("utf-8", "surrogateescape")).hexdigest()
        for k, v in os.environ.items()
        if k.startswith(start)
    }
    files = {relative(p, prefix) or p: digest(p) for p in config_files(backend, prefix)}
    return {"backend": backend, "env": env, "files": files}


def config_holds(config: Mapping[str, Any], prefix: str) -> bool:
    """Whether the backend's configuration is as the plan kept it (:func:`config_facts`) at the target *prefix*."""
    return config_facts(config["backend"], prefix) == config


# -- finding the plan of a command line ------------------------------------------------------------------------
def find(where: str, argv: Sequence[str]) -> tuple[str, str, dict[str, Any]] | None:
    """The kept plan that *argv* matches (its file, the target folder it names now, the plan); None: none."""
    for kept in kept_forms(argv):
        path = plan_path(where, kept)
        entry = load(path)
        if entry is None or entry.get("schema") != SCHEMA or entry.get("who") != who(kept):
            continue
        prefix = target_of(kept, argv, entry["prefix"])
        if prefix is not None:
            return path, prefix, entry
    return None


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
