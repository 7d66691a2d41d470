"""The byte code of a read-only command's full run, read from one file instead of one per module.

A read-only command that runs in full loads 70-100 of tierlock's modules and about as many of the standard
library's and ``packaging``'s; the import system finds, opens, reads and checks each one's compiled file apart
(about 0.05 ms each before its body runs). :func:`install` puts a finder first on :data:`sys.meta_path` that
serves the modules found as source files from one bundle of their code objects, read with one ``open`` and one
:func:`marshal.loads` (the strings the modules share unmarshalled once), kept beside tierlock's compiled files
(the ``__pycache__`` of the package, ``tierlock-<command>.<tag>.bundle``: one per command, since each loads its
own set). A module is served from the bundle only when

* the bundle was written by this interpreter's byte-code format (its magic number first in the file), for this
  cache tag, this version, this optimization level, this ``sys.pycache_prefix`` and for the package folder
  this tierlock is imported from;
* its source file has the size and modification time (ns) it had when its code was taken;
* the folders searched for it have the modification times they had then (no module, package or extension
  added or removed there since, which could shadow it): for a submodule, the one folder of its parent
  package's ``__path__``; for a top-level module, every folder of :data:`sys.path` up to the one it was found
  in, the same folders in the same order (``""`` is the current folder);
* for a module not tierlock's own, the path hooks are the import system's own and no finder before the path
  finder (built-in, frozen) takes the name.

Anything else goes to the finders after this one, as it would without it (a stale or foreign bundle is never
used; a bundle that cannot be read is no bundle). With a finder on :data:`sys.meta_path` other than the import
system's own and those that answer only for other top-level names (an import hook that rewrites modules), the
bundle is off. A module served keeps its real ``__file__``, ``__cached__``,
``__spec__`` (a :class:`~importlib.machinery.SourceFileLoader`'s) and its code's file names (tracebacks
name the source).

Each module the import system loads from its source or compiled file through this finder is noted with its
code object and its source's identity as the import system saw it; at the end of the command
(:func:`save`, called once the output is flushed) the bundle is written again when a module was not in it:
what it held that still holds, and what was noted (atomically; not when byte code is not written,
``sys.dont_write_bytecode``).
"""

from __future__ import annotations

import marshal
import sys
from _frozen_importlib import BuiltinImporter, FrozenImporter, ModuleSpec
from _frozen_importlib_external import (
    BYTECODE_SUFFIXES,
    EXTENSION_SUFFIXES,
    MAGIC_NUMBER,
    SOURCE_SUFFIXES,
    FileFinder,
    PathFinder,
    SourceFileLoader,
)
from os import getcwd, getpid, listdir, replace, stat, unlink
from os.path import dirname, isabs, join
from types import CodeType
from zipimport import zipimporter

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from types import ModuleType
    from typing import Any

#: Bump when the bundle's layout changes.
FORMAT = 3
#: Where each module is found: name -> (source, is a package, source mtime ns, source size, the folders searched
#: for it (its parent's one folder, or :data:`sys.path` up to the one it is in), their mtimes ns, ``__cached__``).
Entry = tuple[str, bool, int, int, tuple[str, ...], tuple[int, ...], "str | None"]
#: The bundle read (or written) by this process: what it serves.
_entries: dict[str, Entry] = {}
#: Each module's code, marshalled on its own (unmarshalled when the module is served: a module the bundle holds
#: that this run does not load costs its bytes read, no more).
_codes: dict[str, bytes] = {}
#: The modules loaded through the import system this run: name -> (entry, code).
_noted: dict[str, tuple[Entry, CodeType]] = {}
#: Each folder's mtime (ns) the first time this process looked (-1: not there).
_folders: dict[str, int] = {}
#: The bundle's file, once installed.
_where: list[str] = []
#: Each changed folder's names as first listed by this process.
_listed: dict[str, frozenset[str]] = {}
#: The suffixes of extension modules, and of every module the path finder takes (extensions first).
_EXTENSIONS = tuple(EXTENSION_SUFFIXES)
_ALL = (*_EXTENSIONS, *SOURCE_SUFFIXES, *BYTECODE_SUFFIXES)
#: Whether the path finder may match a file name regardless of case here (``PYTHONCASEOK``).
_CASELESS = sys.platform.startswith(("win", "cygwin", "darwin"))
#: Whether modules other than tierlock's are served (the path hooks are the import system's own), once installed.
_others: list[bool] = []


def _stamp() -> tuple[int, str | None, int, int, str | None, str]:
    """What the bundle's code is valid for besides each source: the interpreter and the package folder."""
    package = sys.modules["tierlock"]
    folder = dirname(package.__file__ or "")
    return (FORMAT, sys.implementation.cache_tag, sys.hexversion, sys.flags.optimize, sys.pycache_prefix, folder)


def path_of(command: str) -> str | None:
    """The bundle of *command* with this :data:`sys.path` (each list of folders its own: the folders a module is
    found through are part of what its entry holds for), in the folder of the package's compiled files; None when
    it has none."""
    cached = getattr(sys.modules["tierlock"], "__cached__", None)
    tag = sys.implementation.cache_tag
    if not isinstance(cached, str) or tag is None:
        return None
    try:
        from _sha256 import sha256  # type: ignore[import-not-found,unused-ignore]  # (hashlib loads OpenSSL)
    except ImportError:  # pragma: no cover - a Python built without it
        from hashlib import sha256
    layout = sha256("\0".join(map(str, sys.path)).encode("utf-8", "surrogateescape")).hexdigest()[:12]
    return join(dirname(cached), f"tierlock-{command}.{layout}.{tag}.opt{sys.flags.optimize}.bundle")


def install(command: str) -> None:
    """Serve modules from *command*'s bundle from now on (what it holds that is still valid), and note the others
    as they load (for :func:`save`)."""
    where = path_of(command)
    if where is None or not all(map(_plain, sys.meta_path)):
        return
    _where.append(where)
    _others.append(_plain_hooks(sys.path_hooks))
    try:
        with open(where, "rb") as handle:
            data = handle.read()
    except OSError:
        data = b""
    if data[:4] == MAGIC_NUMBER:
        try:
            stamp, entries, codes = marshal.loads(memoryview(data)[4:])
        except (EOFError, ValueError, TypeError):
            stamp = None
        if stamp == _stamp() and type(entries) is dict and type(codes) is dict:
            _entries.update(entries)
            _codes.update(codes)
    sys.meta_path.insert(0, _Finder)


def _plain(finder: object) -> bool:
    """Whether *finder* is the import system's own, or one that answers only for top-level names of other
    distributions (setuptools' ``distutils`` shim, an editable install's finder): a finder that would take
    tierlock's submodules itself (an import hook that rewrites them) turns the bundle off."""
    if finder in (BuiltinImporter, FrozenImporter, PathFinder):
        return True
    module = getattr(type(finder) if not isinstance(finder, type) else finder, "__module__", "")
    return isinstance(module, str) and module.startswith(("_distutils_hack", "__editable__"))


def _plain_hooks(hooks: Sequence[object]) -> bool:
    """Whether *hooks* (:data:`sys.path_hooks`) are the import system's own: zip files, then folders."""
    return (
        len(hooks) == 2
        and hooks[0] is zipimporter
        and getattr(hooks[1], "__qualname__", "").startswith("FileFinder.path_hook.")
    )


def _folder(path: str) -> int:
    """*path*'s mtime in ns, as first seen by this process (-1 when it cannot be looked up; ``""``: the current
    folder)."""
    path = path or _here()
    known = _folders.get(path)
    if known is None:
        try:
            known = stat(path).st_mtime_ns
        except OSError:
            known = -1
        _folders[path] = known
    return known


def _listing(path: str) -> frozenset[str]:
    """The names in the folder *path*, as first listed by this process (none when it cannot be listed; ``""``: the
    current folder)."""
    path = path or _here()
    known = _listed.get(path)
    if known is None:
        try:
            known = frozenset(listdir(path))
        except OSError:
            known = frozenset()
        _listed[path] = known
    return known


def _unshadowed(name: str, folder: str, found: bool, package: bool) -> bool:
    """Whether the folder *folder*, changed since the module *name* (its last part) was noted, still holds
    nothing the path finder would take for it before its source: in a folder searched before the one it was
    found in, nothing of its name (a package, a module of any suffix); in that one, for a module, no package
    and no extension module of its name (the path finder tries those before a source; a package's folder is
    tried first). Not told on a system whose file names may be matched regardless of case."""
    if _CASELESS:
        return False
    if found and package:
        return True
    names = _listing(folder)
    return name not in names and not any(name + suffix in names for suffix in (_EXTENSIONS if found else _ALL))


def _holds(entry: Entry, name: str) -> bool:
    """Whether *entry* (of the module *name*) still holds: its source as it was when its code was taken, and each
    folder searched for it as it was then, or changed in no way that would make another file the module."""
    source, package, mtime, size, folders, mtimes, _cached = entry
    if len(folders) != len(mtimes):
        return False
    last = len(folders) - 1
    for at, folder in enumerate(folders):
        if _folder(folder) != mtimes[at] and not _unshadowed(name.rpartition(".")[2], folder, at == last, package):
            return False
    try:
        found = stat(source)
    except OSError:
        return False
    return found.st_mtime_ns == mtime and found.st_size == size


def _searched() -> tuple[str, ...] | None:
    """The folders :data:`sys.path` names, in order, as it names them (``""``: the current folder); None when one
    is of another kind (not a ``str``, a relative path) or a finder other than the import system's own is kept
    for one."""
    cache = sys.path_importer_cache
    for entry in sys.path:
        if type(entry) is not str or (entry and not isabs(entry)):
            return None
        finder = cache.get(entry or _here())
        if finder is not None and type(finder) is not FileFinder:
            return None
    return tuple(sys.path)


def _here() -> str:
    """The current folder (``""`` when it is gone)."""
    try:
        return getcwd()
    except OSError:
        return ""


def _earlier(fullname: str, path: Sequence[str] | None) -> bool:
    """Whether a finder before the path finder (built-in and frozen modules, an editable install's) takes
    *fullname*."""
    for finder in sys.meta_path:
        if finder is PathFinder:
            return False
        if finder is _Finder:
            continue
        find = getattr(finder, "find_spec", None)
        if find is None or find(fullname, path) is not None:
            return True
    return False


class _Loader(SourceFileLoader):
    """The import system's loader of a source file, which gives the bundle's code when it has it, and notes
    the code it loaded otherwise (with the source's identity as it was looked up)."""

    code: CodeType | None = None
    package = False
    folders: tuple[str, ...] | None = None
    """The folders searched (their mtimes ``mtimes`` as first seen): set, the code loaded is noted."""
    mtimes: tuple[int, ...] = ()
    cached: str | None = None
    seen: Any = None

    def path_stats(self, path: str) -> dict[str, Any]:
        found = stat(path)
        self.seen = found
        return {"mtime": found.st_mtime, "size": found.st_size}

    def get_code(self, fullname: str) -> CodeType | None:
        code = self.code
        if code is not None and fullname == self.name:
            self.code = None  # (once: any later call reads the file)
            return code
        code = super().get_code(fullname)
        seen, folders = self.seen, self.folders
        if code is not None and seen is not None and folders is not None and fullname == self.name:
            entry = (self.path, self.package, seen.st_mtime_ns, seen.st_size, folders, self.mtimes, self.cached)
            _noted[fullname] = (entry, code)
        return code


class _Finder:
    """First on :data:`sys.meta_path`: modules from the bundle, else from the finders after it."""

    @staticmethod
    def find_spec(fullname: str, path: Sequence[str] | None = None, target: ModuleType | None = None) -> Any:
        if path is None:
            if not _others[0] or "." in fullname:
                return None
            folders = _searched()
            if folders is None:
                return None
        elif type(path) is list and len(path) == 1 and (_others[0] or fullname.startswith("tierlock.")):
            folders = (path[0],)
        else:
            return None
        entry, blob = _entries.get(fullname), _codes.get(fullname)
        if (
            entry is not None
            and blob is not None
            and entry[4] == folders[: len(entry[4])]
            and (fullname.startswith("tierlock.") or not _earlier(fullname, path))
            and _holds(entry, fullname)
        ):
            try:
                code = marshal.loads(blob)
            except (EOFError, ValueError, TypeError):
                code = None
            if type(code) is CodeType:
                spec = _spec(fullname, entry[0], entry[1], entry[6])
                spec.loader.code = code
                return spec
        return _found(fullname, folders, path)

    @staticmethod
    def invalidate_caches() -> None:
        _folders.clear()
        _listed.clear()


def _spec(fullname: str, source: str, package: bool, cached: str | None) -> Any:
    """The spec the path finder gives for a source file (its loader ours)."""
    loader = _Loader(fullname, source)
    loader.package = package
    spec = ModuleSpec(fullname, loader, origin=source, is_package=package)
    spec.has_location = True
    if cached is not None:
        spec.cached = cached
    if package:
        spec.submodule_search_locations = [dirname(source)]
    return spec


def _found(fullname: str, folders: tuple[str, ...], path: Sequence[str] | None) -> Any:
    """What the finders after this one find; a plain source module's loader made ours (its code noted)."""
    mtimes = tuple(map(_folder, folders))  # (before the look-up: a module added meanwhile changes them)
    for finder in sys.meta_path:
        if finder is _Finder:
            continue
        find = getattr(finder, "find_spec", None)
        if find is None:
            return None  # a finder of the old protocol: the import system asks it
        spec = find(fullname, path)
        if spec is not None:
            break
    else:
        return None
    origin = spec.origin
    if type(spec.loader) is SourceFileLoader and isinstance(origin, str) and origin.endswith(".py"):
        package = spec.submodule_search_locations is not None
        container = dirname(dirname(origin)) if package else dirname(origin)
        resolved = [folder or _here() for folder in folders]
        if container in resolved:
            upto = resolved.index(container) + 1  # (the first folder that holds it: the one it was found in)
            fresh = _spec(fullname, origin, package, spec.cached)
            fresh.loader.folders, fresh.loader.mtimes = folders[:upto], mtimes[:upto]  # (its code noted)
            fresh.loader.cached = spec.cached
            fresh.submodule_search_locations = spec.submodule_search_locations
            return fresh
    return spec


def save() -> None:
    """Write the bundle again when a module loaded this run was not in it: every module it held whose source
    and folder still hold, and every module noted (atomically, beside the compiled files)."""
    if not _noted or not _where or sys.dont_write_bytecode:
        return
    entries = {name: entry for name, entry in _entries.items() if name not in _noted and _holds(entry, name)}
    codes = {name: _codes[name] for name in entries if name in _codes}
    entries = {name: entries[name] for name in codes}
    for name, (entry, code) in _noted.items():
        entries[name], codes[name] = entry, marshal.dumps(code)
    where = _where[0]
    temporary = f"{where}.{getpid()}.tmp"
    try:
        with open(temporary, "wb") as handle:
            handle.write(MAGIC_NUMBER + marshal.dumps((_stamp(), entries, codes)))
        replace(temporary, where)
    except OSError:  # a read-only install: no bundle
        try:  # noqa: SIM105 (contextlib is an import more)
            unlink(temporary)
        except OSError:
            pass
