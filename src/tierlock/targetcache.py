"""What a target interpreter said about itself, kept on disk so that the next command need not start it again.

:func:`tierlock.environment.inspect` starts the target interpreter once per
process to learn its paths, markers and extension suffixes: 20-30 ms of every
``probe``, ``status`` or ``admit --python``. The answer depends only on files
(the interpreter is run with ``-I``: no environment variable, no user site)
and on the machine (``os.uname()``, the C library). It is kept here, in the
user's cache folder (:func:`tierlock.probing.libcache.folder`: ``$TIERLOCK_CACHE_DIR``,
an empty value turning the cache off), with the identity (inode, size,
modification time, status change time) of everything it depends on: the interpreter's file, the
``pyvenv.cfg`` beside it and one up, its site folders (each by its inode: the
same folder), and in them every ``.pth`` file and ``sitecustomize`` (the only
entries of a site folder that change what the interpreter says: one coming,
going or edited in place). Installing or removing a package changes none of
them, so the command after an install does not start the interpreter again. A
kept answer is used only when every one of those is unchanged and the machine
is the same; anything else starts the interpreter again. A file that cannot be
read or written is no cache.
"""

from __future__ import annotations

import marshal  # loaded by every interpreter at start-up: no import cost
import os
import sys
import time

from tierlock.venvbase import cfg_text, parsed, system_site

SCHEMA = 3
_RACY_NS = 1_000_000_000


def _path(exe: str, kind: str = "target") -> str | None:
    """The cache file of *kind* for *exe* (or another key) in tierlock's cache folder; None: caching is off."""
    from tierlock.keptfirst import folder
    from tierlock.probing.libcache import named

    where = folder()
    return None if where is None else named(where, kind, exe)


def identity(place: str) -> tuple[int, int, int, int] | None:
    """*place*'s inode, size, modification time and status change time (ns: moved by a rewrite that puts the size
    and modification time back); None when it cannot be looked up."""
    try:
        st = os.stat(place)
    except (OSError, ValueError):
        return None
    return (st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def stamp(exe: str, cfg_folders: tuple[str, ...], sites: tuple[str, ...]) -> list[object]:
    """Everything the interpreter's answer depends on, as it is now (stats only, and one listing per site)."""
    out: list[object] = [_machine()]
    for place in (exe, *(os.path.join(d, "pyvenv.cfg") for d in cfg_folders)):
        out.append(identity(place))
    for site in sites:
        found = identity(site)
        out.append(found[:1] if found is not None else None)  # the same folder; what it holds is listed below
    for site in sites:
        try:
            names = sorted(n for n in os.listdir(site) if n.endswith(".pth") or n.startswith("sitecustomize"))
        except OSError:
            continue
        out.extend((name, identity(os.path.join(site, name))) for name in names)
    return out


def _settled(now: list[object]) -> bool:
    """Whether nothing *now* names was modified within the last second."""
    newest = 0
    for part in now[1:]:
        ident = part[1] if isinstance(part, tuple) and len(part) == 2 else part
        if isinstance(ident, tuple) and len(ident) == 4:
            newest = max(newest, ident[2])
    return newest < time.time_ns() - _RACY_NS


def _machine() -> list[object]:
    """The machine the interpreter runs on: its kernel (the ``platform_release`` marker) and C library."""
    try:
        libc = os.confstr("CS_GNU_LIBC_VERSION") or ""
    except (AttributeError, ValueError, OSError):
        libc = ""
    uname = list(os.uname()) if hasattr(os, "uname") else []
    return [*uname, libc, list(sys.version_info[:2])]


def load(exe: str, cfg_folders: tuple[str, ...]) -> str | None:
    """The answer the interpreter at *exe* gave, when everything it depends on is unchanged; else None."""
    path = _path(exe)
    if path is None:
        return None
    try:
        with open(path, "rb") as fh:
            data = marshal.loads(fh.read())
        if data["schema"] != SCHEMA or data["exe"] != exe:
            return None
        sites = tuple(data["sites"])
        if data["stamp"] != stamp(exe, cfg_folders, sites):
            return None
        answer = data["answer"]
    except (OSError, ValueError, EOFError, KeyError, TypeError):
        return None
    return answer if isinstance(answer, str) else None


def save(exe: str, cfg_folders: tuple[str, ...], sites: tuple[str, ...], answer: str) -> None:
    """Keep *answer* for the interpreter at *exe* (atomically; nothing happens when it cannot be written)."""
    path = _path(exe)
    if path is None:
        return
    now = stamp(exe, cfg_folders, sites)
    if not _settled(now):
        return  # something changed within the last second: a change in the same clock tick could hide
    document = {"schema": SCHEMA, "exe": exe, "sites": list(sites), "stamp": now}
    document["answer"] = answer
    from tierlock.probing.libcache import dump

    dump(path, document)


# -- a new virtual environment, told by one made from the same interpreter ------------------------------------

#: Lines of ``pyvenv.cfg`` that say how the environment was made; the interpreter does not read them.
_UNREAD = frozenset({"command", "prompt"})


def _venv(exe: str, cfg_folders: tuple[str, ...]) -> tuple[str, str] | None:
    """(the prefix of the virtual environment *exe* runs in, what its answer depends on besides that prefix).

    None when it is no plain venv whose answer follows from another's: no ``pyvenv.cfg`` one up from the
    interpreter (or one beside it), the system site-packages in view (their ``.pth`` files would count), or an
    interpreter file of its own (``--copies``: nothing shared to key on).
    """
    if len(cfg_folders) != 2 or os.path.exists(os.path.join(cfg_folders[0], "pyvenv.cfg")):
        return None
    prefix = cfg_folders[1]
    text = cfg_text(prefix)
    if text is None or system_site(parsed(text)):
        return None  # (not read as the interpreter reads it, or the system site in view: not set is in view)
    lines: list[str] = []
    for line in text.splitlines():
        key, _, value = (part.strip() for part in line.partition("="))
        if key.lower() not in _UNREAD and line.strip():
            lines.append(f"{key.lower()}={value}")
    real = os.path.realpath(exe)
    ident = identity(real)
    if ident is None or real.startswith(prefix + os.sep) or ident[2] >= time.time_ns() - _RACY_NS:
        return None
    return prefix, repr([_machine(), real, ident, sorted(lines)])


def plain(sites: tuple[str, ...]) -> bool:
    """Whether every site folder is there and holds no ``.pth`` file and no ``sitecustomize`` (nothing that
    changes what the interpreter says)."""
    for site in sites:
        try:
            names = os.listdir(site)
        except OSError:
            return False
        if any(n.endswith(".pth") or n.startswith("sitecustomize") for n in names):
            return False
    return True


def _moved(answer: str, old: str, new: str) -> str | None:
    """*answer* with every field that is *old* or under it moved to *new*; None when *old* shows up elsewhere."""
    out: list[str] = []
    for field in answer.split("\0"):
        if field == old or field.startswith(old + os.sep):
            field = new + field[len(old) :]
        elif old in field:
            return None
        out.append(field)
    return "\0".join(out)


def remember_venv(exe: str, cfg_folders: tuple[str, ...], sites: tuple[str, ...], answer: str) -> None:
    """Keep *answer* of a plain venv (:func:`plain` site folders) as what any venv made like it says."""
    made = _venv(exe, cfg_folders)
    path = _path(made[1], "venv") if made is not None else None
    if made is None or path is None or not plain(sites) or _moved(answer, made[0], made[0]) is None:
        return
    from tierlock.probing.libcache import dump

    dump(path, {"schema": SCHEMA, "key": made[1], "prefix": made[0], "answer": answer})


def from_sibling(exe: str, cfg_folders: tuple[str, ...]) -> str | None:
    """What the venv interpreter at *exe* would say, from another venv made from the same interpreter with the
    same ``pyvenv.cfg`` (its prefix moved to this one); None when there is none. The caller checks the answer's
    site folders with :func:`plain` before trusting it."""
    made = _venv(exe, cfg_folders)
    path = _path(made[1], "venv") if made is not None else None
    if made is None or path is None:
        return None
    try:
        with open(path, "rb") as fh:
            data = marshal.loads(fh.read())
        if data["schema"] != SCHEMA or data["key"] != made[1]:
            return None
        answer, prefix = data["answer"], data["prefix"]
    except (OSError, ValueError, EOFError, KeyError, TypeError):
        return None
    if not isinstance(answer, str) or not isinstance(prefix, str):
        return None
    return _moved(answer, prefix, made[0])
