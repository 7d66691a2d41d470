"""Whether an entry of a command's bundle of byte code (:mod:`tierlock.codebundle`) still holds: its source as it
was when its code was taken, and each folder searched for it unchanged since, or changed in no way that would make
another file the module (what the path finder would take first: a package, an extension module, a module of any
suffix in an earlier folder; a namespace portion a later ``__init__`` would make the module).

What each folder's modification time and names were is looked up once per process (the import system's
``invalidate_caches`` forgets them: :func:`forget`).
"""

from __future__ import annotations

import _frozen_importlib_external as external
import sys
from _frozen_importlib_external import FileFinder
from os import getcwd, listdir, stat
from os.path import isabs, isdir, join

#: Where each module is found: name -> (source, is a package, source mtime ns, source size, the folders searched
#: for it (its parent's one folder, or :data:`sys.path` up to the one it is in), their mtimes ns, ``__cached__``).
Entry = tuple[str, bool, int, int, tuple[str, ...], tuple[int, ...], "str | None"]
#: Each folder's mtime (ns) the first time this process looked (-1: not there).
_folders: dict[str, int] = {}
#: Each changed folder's names as first listed by this process.
_listed: dict[str, frozenset[str]] = {}
#: The suffixes of extension modules, and of every module the path finder takes (extensions first).
_EXTENSIONS = tuple(external.EXTENSION_SUFFIXES)
_ALL = (*_EXTENSIONS, *external.SOURCE_SUFFIXES, *external.BYTECODE_SUFFIXES)
#: Whether the path finder may match a file name regardless of case here (``PYTHONCASEOK``).
_CASELESS = sys.platform.startswith(("win", "cygwin", "darwin"))


def folder_mtime(path: str) -> int:
    """*path*'s mtime in ns, as first seen by this process (-1 when it cannot be looked up; ``""``: the current
    folder)."""
    path = path or here()
    known = _folders.get(path)
    if known is None:
        try:
            known = stat(path).st_mtime_ns
        except (OSError, ValueError):  # (ValueError: a NUL in it)
            known = -1
        _folders[path] = known
    return known


def listing(path: str) -> frozenset[str]:
    """The names in the folder *path*, as first listed by this process (none when it cannot be listed; ``""``: the
    current folder)."""
    path = path or here()
    known = _listed.get(path)
    if known is None:
        try:
            known = frozenset(listdir(path))
        except (OSError, ValueError):  # (ValueError: a NUL in it)
            known = frozenset()
        _listed[path] = known
    return known


def unshadowed(name: str, folder: str, found: bool, package: bool) -> bool:
    """Whether the folder *folder*, changed since the module *name* (its last part) was noted, still holds
    nothing the path finder would take for it before its source: in a folder searched before the one it was
    found in, nothing of its name (a package, a module of any suffix); in that one, for a module, no package
    and no extension module of its name (the path finder tries those before a source; a package's folder is
    tried first). Not told on a system whose file names may be matched regardless of case."""
    if _CASELESS:
        return False
    if found and package:
        return True
    names = listing(folder)
    return name not in names and not any(name + suffix in names for suffix in (_EXTENSIONS if found else _ALL))


def holds(entry: Entry, name: str, searched: tuple[str, ...] | None = None) -> bool:
    """Whether *entry* (of the module *name*) still holds: its source as it was when its code was taken, and each
    folder searched for it as it was then (the first of *searched*, when given), or changed in no way that would
    make another file the module. An entry of another shape (a bundle whose bytes changed) does not hold."""
    if type(entry) is not tuple or len(entry) != 7:
        return False
    source, package, mtime, size, folders, mtimes, cached = entry
    if (
        type(source) is not str
        or type(package) is not bool
        or type(folders) is not tuple
        or type(mtimes) is not tuple
        or len(folders) != len(mtimes)
        or (cached is not None and type(cached) is not str)
        or (searched is not None and folders != searched[: len(folders)])
    ):
        return False
    last = len(folders) - 1
    for at, folder in enumerate(folders):
        if type(folder) is not str:
            return False
        if folder_mtime(folder) != mtimes[at] and not unshadowed(name.rpartition(".")[2], folder, at == last, package):
            return False
    try:
        found = stat(source)
    except (OSError, ValueError):  # (ValueError: a NUL in it)
        return False
    return found.st_mtime_ns == mtime and found.st_size == size


def searched() -> tuple[str, ...] | None:
    """The folders :data:`sys.path` names, in order, as it names them (``""``: the current folder); None when one
    is of another kind (not a ``str``, a relative path) or a finder other than the import system's own is kept
    for one."""
    cache = sys.path_importer_cache
    for entry in sys.path:
        if type(entry) is not str or (entry and not isabs(entry)):
            return None
        finder = cache.get(entry or here())
        if finder is not None and type(finder) is not FileFinder:
            return None
    return tuple(sys.path)


def here() -> str:
    """The current folder (``""`` when it is gone)."""
    try:
        return getcwd()
    except OSError:
        return ""


def portions(fullname: str, resolved: list[str], container: str, package: bool) -> bool:
    """Whether a folder searched for *fullname* up to *container* (the one it was found in) holds a folder of its
    name that is not the package found: a namespace portion the path finder passed over, which an ``__init__``
    put in it later makes the module, with no change to the folder that holds it (its code is not noted)."""
    tail = fullname.rpartition(".")[2]
    for folder in resolved:
        if folder == container:
            return not package and isdir(join(folder, tail))
        if isdir(join(folder, tail)):
            return True
    return False


def forget() -> None:
    """Look every folder up again (the import system's ``invalidate_caches``)."""
    _folders.clear()
    _listed.clear()
