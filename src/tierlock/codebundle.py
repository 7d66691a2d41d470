"""The byte code of a read-only command's full run, read from one file instead of one per module.

A full run loads 70-100 of tierlock's modules and about as many of the standard library's and ``packaging``'s;
the import system finds, opens, reads and checks each compiled file apart (about 0.05 ms each before its body
runs). :func:`install` puts a finder first on :data:`sys.meta_path` that serves the modules found as source
files from one bundle of their code (``tierlock/__pycache__/tierlock-<command>.<layout>.<tag>.opt<N>.bundle``:
one per command and list of :data:`sys.path` folders): the modules the run that wrote it loaded (its core) in
one :func:`marshal.loads` (the strings they share read once), every other one unmarshalled when it is served.
A module is served only when the bundle's stamp is this interpreter's (magic number, cache tag, version,
optimization level, ``sys.pycache_prefix``) and this package folder's; its source has the size and mtime (ns)
it had when its code was taken; each folder searched for it (a submodule: its parent's one folder; a top-level
module: :data:`sys.path`'s folders up to the one it is in, the same in the same order) is unchanged since, or
holds nothing the path finder would take for it first (:mod:`tierlock.bundleholds`); and, for a module not
tierlock's, the path hooks are the import system's own and no finder before the path finder (built-in, frozen) takes it.
Anything else goes to the finders after this one, as without it; another kind of finder on
:data:`sys.meta_path` (an import hook that rewrites modules) turns the bundle off. A module served keeps its
real ``__file__``, ``__cached__``, ``__spec__`` (a :class:`~importlib.machinery.SourceFileLoader`'s) and its
code's file names (tracebacks name the source). While only the main thread runs, a module served is made and run
here, not by the import system's generic steps (:func:`_find_and_load`: ~100 k instructions a module fewer).

Each module loaded from its files through this finder is noted with its code and its source's identity as the
import system saw it (not when the source or a folder searched for it was modified less than :data:`SETTLE_NS`
before: a change within the file system's clock tick could leave their times as they were; nor one with a folder
of its name on the way, :func:`tierlock.bundleholds.portions`); at the end (:func:`save`, once the output is
flushed) the bundle is written again (atomically; not with ``sys.dont_write_bytecode``) when a module was noted,
one was served from outside the core, or less than three quarters of the core was used: what still holds, and what
was noted. An entry of another shape (a bundle whose bytes changed) holds for nothing.
"""

from __future__ import annotations

import _frozen_importlib as _bootstrap
import _warnings
import marshal
import sys
from _frozen_importlib import BuiltinImporter, FrozenImporter, ModuleSpec
from _frozen_importlib_external import MAGIC_NUMBER, PathFinder, SourceFileLoader
from _thread import _count as _threads  # (the threads started besides the main one)
from os import getpid, replace, stat, unlink
from os.path import dirname, join
from time import time_ns
from types import CodeType, ModuleType
from zipimport import zipimporter

from tierlock import bundleholds
from tierlock.bundleholds import Entry, folder_mtime, here, holds, portions, searched
from tierlock.fasthash import sha256  # (no OpenSSL start-up: hashlib loads it)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import Any

#: Bump when the bundle's layout changes.
FORMAT = 4
#: How old (ns) a source's and its folders' modification times must be for the module to be noted: a change within
#: the file system's clock tick may leave them as they were (the next run notes it).
SETTLE_NS = 2_000_000_000
#: The bundle read (or written) by this process: what it serves.
_entries: dict[str, Entry] = {}
#: The code of the modules the run that wrote the bundle loaded (its core), unmarshalled together at the start.
_core: dict[str, CodeType] = {}
#: Every other module's code, marshalled on its own: unmarshalled when the module is served (a module an earlier
#: run added that this one does not load costs its bytes read, no more).
_codes: dict[str, bytes] = {}
#: The modules served this run, and whether one of them came from outside the core.
_served: dict[str, CodeType] = {}
_outside: list[bool] = []
#: The modules loaded through the import system this run: name -> (entry, code).
_noted: dict[str, tuple[Entry, CodeType]] = {}
#: The bundle's file, once installed.
_where: list[str] = []
#: Whether modules other than tierlock's are served (the path hooks are the import system's own), once installed.
_others: list[bool] = []
#: The import system's own ``_find_and_load``, once :func:`_find_and_load` stands in front of it.
_import_system: list[Callable[[str, Any], ModuleType]] = []


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
            stamp, entries, core, codes = marshal.loads(memoryview(data)[4:])
        except (EOFError, ValueError, TypeError):
            stamp = None
        if stamp == _stamp() and type(entries) is dict and type(core) is dict and type(codes) is dict:
            _entries.update(entries)
            _core.update(core)
            _codes.update(codes)
    sys.meta_path.insert(0, _Finder)
    own = _bootstrap._find_and_load  # type: ignore[attr-defined]
    if not _import_system and not sys.flags.verbose and own.__code__.co_filename == "<frozen importlib._bootstrap>":
        _import_system.append(own)  # (``-v`` prints each import, a hook may have taken it: the import system's own)
        _bootstrap._find_and_load = _find_and_load  # type: ignore[attr-defined]


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
            since = time_ns() - SETTLE_NS  # (a time that recent may not move at the next change: not noted)
            if seen.st_mtime_ns >= since or any(mtime >= since for mtime in self.mtimes):
                return code
            entry = (self.path, self.package, seen.st_mtime_ns, seen.st_size, folders, self.mtimes, self.cached)
            _noted[fullname] = (entry, code)
        return code


class _Finder:
    """First on :data:`sys.meta_path`: modules from the bundle, else from the finders after it."""

    @staticmethod
    def find_spec(fullname: str, path: Sequence[str] | None = None, target: ModuleType | None = None) -> Any:
        folders = _folders(fullname, path)
        if folders is None:
            return None
        return _serve(fullname, path, folders) or _found(fullname, folders, path)

    @staticmethod
    def invalidate_caches() -> None:
        bundleholds.forget()


def _folders(fullname: str, path: Sequence[str] | None) -> tuple[str, ...] | None:
    """The folders searched for *fullname* (*path*: its parent's ``__path__``); None: not one the bundle takes."""
    if path is None:
        if not _others[0] or "." in fullname:
            return None
        return searched()
    if type(path) is list and len(path) == 1 and (_others[0] or fullname.startswith("tierlock.")):
        return (path[0],)
    return None


def _serve(fullname: str, path: Sequence[str] | None, folders: tuple[str, ...]) -> Any:
    """The spec of *fullname* served from the bundle (its loader holding the code), or None when the bundle's entry
    does not hold (:func:`tierlock.bundleholds.holds`) or a finder before the path finder takes the name."""
    entry = _entries.get(fullname)
    if (
        entry is not None
        and holds(entry, fullname, folders)
        and (fullname.startswith("tierlock.") or not _earlier(fullname, path))
    ):
        code = _code(fullname)
        if code is not None:
            _served[fullname] = code
            spec = _spec(fullname, entry[0], entry[1], entry[6])
            spec.loader.code = code
            return spec
    return None


def _find_and_load(name: str, import_: Any) -> ModuleType:
    """The import system's ``_find_and_load`` (every import of a module not in :data:`sys.modules`), loading a module
    the bundle serves itself when no thread besides this one was started (the module lock is not needed) and
    :class:`_Finder` is first on :data:`sys.meta_path`: ``_find_and_load_unlocked``'s steps for that one case.
    Anything else: the import system's own."""
    modules = sys.modules
    meta = sys.meta_path
    if name in _entries and name not in modules and meta and meta[0] is _Finder and not _threads():
        parent, _, child = name.rpartition(".")
        if parent and parent not in modules:
            import_(parent)  # (its parent first, as the import system does)
            if name in modules:
                return modules[name]
        above = modules.get(parent) if parent else None
        path = getattr(above, "__path__", None)
        if not parent or path is not None:
            folders = _folders(name, path)
            spec = None if folders is None else _serve(name, path, folders)
            if spec is not None:
                return _load(spec, parent, child, above)
    return _import_system[0](name, import_)


def _load(spec: Any, parent: str, child: str, above: ModuleType | None) -> ModuleType:
    """*spec*'s module made, run and put in :data:`sys.modules` and on its parent *above*, as the import system
    does it (its parent's ``_uninitialized_submodules`` told meanwhile, the module removed if its code fails)."""
    name = spec.name
    loader = spec.loader
    code, loader.code = loader.code, None
    module = ModuleType(name)
    module.__loader__ = loader
    module.__package__ = spec.parent
    module.__spec__ = spec
    if spec.submodule_search_locations is not None:
        module.__path__ = spec.submodule_search_locations
    module.__file__ = spec.origin
    cached = spec.cached
    if cached is not None:
        module.__cached__ = cached  # type: ignore[attr-defined]
    waiting = getattr(getattr(above, "__spec__", None), "_uninitialized_submodules", None)
    if waiting is not None:
        waiting.append(child)
    modules = sys.modules
    spec._initializing = True
    try:
        modules[name] = module
        try:
            exec(code, module.__dict__)  # (the module's code, as the import system runs it)
        except BaseException:
            modules.pop(name, None)
            raise
        module = modules.pop(name)  # (a module that put another object in its place gives that one)
        modules[name] = module
    finally:
        spec._initializing = False
        if waiting is not None:
            waiting.pop()
    if parent:
        try:
            setattr(modules[parent], child, module)
        except AttributeError:
            message = f"Cannot set an attribute on {parent!r} for child module {child!r}"
            _warnings.warn(message, ImportWarning)  # (the C module the import system warns with)
    return module


def _code(fullname: str) -> CodeType | None:
    """The bundle's code of *fullname*: from the core, else unmarshalled from its own bytes (None: not held, or
    bytes that are not a code object)."""
    code: object = _core.get(fullname)
    if code is None:
        blob = _codes.get(fullname)
        if blob is None:
            return None
        try:
            code = marshal.loads(blob)
        except (EOFError, ValueError, TypeError):
            return None
        if not _outside:
            _outside.append(True)
    return code if type(code) is CodeType else None


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
    mtimes = tuple(map(folder_mtime, folders))  # (before the look-up: a module added meanwhile changes them)
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
        resolved = [folder or here() for folder in folders]
        if container in resolved and not portions(fullname, resolved, container, package):
            upto = resolved.index(container) + 1  # (the first folder that holds it: the one it was found in)
            fresh = _spec(fullname, origin, package, spec.cached)
            fresh.loader.folders, fresh.loader.mtimes = folders[:upto], mtimes[:upto]  # (its code noted)
            fresh.loader.cached = spec.cached
            fresh.submodule_search_locations = spec.submodule_search_locations
            return fresh
    return spec


def save() -> None:
    """Write the bundle again when this run loaded a module it did not hold, served one from outside its core, or
    used less than three quarters of its core: every module it held whose source and folders still hold, and
    every module noted (atomically, beside the compiled files); the modules this run loaded are the new core."""
    if not _where or sys.dont_write_bytecode:
        return
    unused = sum(1 for name in _core if name not in _served)
    if not _noted and not _outside and unused * 4 <= len(_core):
        return
    core: dict[str, CodeType] = {}
    codes: dict[str, bytes] = {}
    entries: dict[str, Entry] = {}
    for name, entry in _entries.items():
        if type(name) is not str or name in _noted or not holds(entry, name):
            continue
        if name in _served:
            core[name] = _served[name]
        elif name in _core:
            codes[name] = marshal.dumps(_core[name])
        elif name in _codes:
            codes[name] = _codes[name]
        else:
            continue
        entries[name] = entry
    for name, (entry, code) in _noted.items():
        entries[name], core[name] = entry, code
    where = _where[0]
    temporary = f"{where}.{getpid()}.tmp"
    try:
        with open(temporary, "wb") as handle:
            handle.write(MAGIC_NUMBER + marshal.dumps((_stamp(), entries, core, codes)))
        replace(temporary, where)
    except OSError:  # a read-only install: no bundle
        try:  # noqa: SIM105 (contextlib is an import more)
            unlink(temporary)
        except OSError:
            pass
