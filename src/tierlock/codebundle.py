"""tierlock's own byte code for a read-only command's full run, read from one file instead of one per module.

A read-only command that runs in full loads 70-100 of tierlock's modules; the import system finds, opens,
reads and checks each one's compiled file apart (about 0.05 ms each before its body runs). :func:`install`
puts a finder first on :data:`sys.meta_path` that serves tierlock's submodules from one bundle of their code
objects, read with one ``open`` and one :func:`marshal.loads` (the strings the modules share unmarshalled
once), kept beside the compiled files (the ``__pycache__`` of the package, ``tierlock-<command>.<tag>.bundle``:
one per command, since each loads its own set). A module is served from the bundle only when

* the bundle was written by this interpreter's byte-code format (its magic number first in the file), for this
  cache tag, this version, this optimization level, and for the package folder this tierlock is imported from;
* its source file has the size and modification time (ns) it had when its code was taken;
* the folder it is found in is searched alone (the parent package's ``__path__``) and has the modification
  time it had then (no module, package or extension added or removed there since, which could shadow it);

anything else goes to the finders after this one, as it would without it (a stale or foreign bundle is never
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
from _frozen_importlib_external import MAGIC_NUMBER, PathFinder, SourceFileLoader
from os import getpid, replace, stat, unlink
from os.path import dirname, join

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from types import CodeType, ModuleType
    from typing import Any

#: Bump when the bundle's layout changes.
FORMAT = 1
#: Where each module is found: name -> (source, is a package, source mtime ns, source size, folder searched,
#: that folder's mtime ns).
Entry = tuple[str, bool, int, int, str, int]
#: The bundle read (or written) by this process: what it serves.
_entries: dict[str, Entry] = {}
_codes: dict[str, CodeType] = {}
#: The modules loaded through the import system this run: name -> (entry, code).
_noted: dict[str, tuple[Entry, CodeType]] = {}
#: Each folder's mtime (ns) the first time this process looked (-1: not there).
_folders: dict[str, int] = {}
#: The bundle's file, once installed.
_where: list[str] = []


def _stamp() -> tuple[int, str | None, int, int, str]:
    """What the bundle's code is valid for besides each source: the interpreter and the package folder."""
    package = sys.modules["tierlock"]
    return (FORMAT, sys.implementation.cache_tag, sys.hexversion, sys.flags.optimize, dirname(package.__file__ or ""))


def path_of(command: str) -> str | None:
    """The bundle of *command*: in the folder of the package's compiled files; None when it has none."""
    cached = getattr(sys.modules["tierlock"], "__cached__", None)
    tag = sys.implementation.cache_tag
    if not isinstance(cached, str) or tag is None:
        return None
    return join(dirname(cached), f"tierlock-{command}.{tag}.opt{sys.flags.optimize}.bundle")


def install(command: str) -> None:
    """Serve tierlock's submodules from *command*'s bundle from now on (what it holds that is still valid),
    and note the others as they load (for :func:`save`)."""
    where = path_of(command)
    if where is None or not all(map(_plain, sys.meta_path)):
        return
    _where.append(where)
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


def _folder(path: str) -> int:
    """*path*'s mtime in ns, as first seen by this process (-1 when it cannot be looked up)."""
    known = _folders.get(path)
    if known is None:
        try:
            known = stat(path).st_mtime_ns
        except OSError:
            known = -1
        _folders[path] = known
    return known


def _holds(entry: Entry) -> bool:
    """Whether *entry*'s folder and source are as they were when its code was taken."""
    source, _package, mtime, size, folder, folder_mtime = entry
    if _folder(folder) != folder_mtime:
        return False
    try:
        found = stat(source)
    except OSError:
        return False
    return found.st_mtime_ns == mtime and found.st_size == size


class _Loader(SourceFileLoader):
    """The import system's loader of a source file, which gives the bundle's code when it has it, and notes
    the code it loaded otherwise (with the source's identity as it was looked up)."""

    code: CodeType | None = None
    package = False
    folder: str | None = None
    """The folder searched (its mtime ``folder_mtime`` as first seen): set, the code loaded is noted."""
    folder_mtime: int
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
        seen, folder = self.seen, self.folder
        if code is not None and seen is not None and folder is not None and fullname == self.name:
            entry = (self.path, self.package, seen.st_mtime_ns, seen.st_size, folder, self.folder_mtime)
            _noted[fullname] = (entry, code)
        return code


class _Finder:
    """First on :data:`sys.meta_path`: tierlock's submodules from the bundle, else from the finders after it."""

    @staticmethod
    def find_spec(fullname: str, path: Sequence[str] | None = None, target: ModuleType | None = None) -> Any:
        if not fullname.startswith("tierlock.") or type(path) is not list or len(path) != 1:
            return None  # (a reload, *target* given, is found as an import is)
        folder = path[0]
        entry, code = _entries.get(fullname), _codes.get(fullname)
        if entry is not None and code is not None and entry[4] == folder and _holds(entry):
            spec = _spec(fullname, entry[0], entry[1])
            spec.loader.code = code
            return spec
        return _found(fullname, folder, path)

    @staticmethod
    def invalidate_caches() -> None:
        _folders.clear()


def _spec(fullname: str, source: str, package: bool) -> Any:
    """The spec the path finder gives for a source file (its loader ours)."""
    loader = _Loader(fullname, source)
    loader.package = package
    spec = ModuleSpec(fullname, loader, origin=source, is_package=package)
    spec.has_location = True
    if package:
        spec.submodule_search_locations = [dirname(source)]
    return spec


def _found(fullname: str, folder: str, path: Sequence[str]) -> Any:
    """What the finders after this one find; a plain source module's loader made ours (its code noted)."""
    folder_mtime = _folder(folder)  # (before the look-up: a module added meanwhile changes it)
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
        if (dirname(dirname(origin)) if package else dirname(origin)) == folder:
            fresh = _spec(fullname, origin, package)
            fresh.loader.folder, fresh.loader.folder_mtime = folder, folder_mtime  # (its code noted)
            fresh.submodule_search_locations = spec.submodule_search_locations
            return fresh
    return spec


def save() -> None:
    """Write the bundle again when a module loaded this run was not in it: every module it held whose source
    and folder still hold, and every module noted (atomically, beside the compiled files)."""
    if not _noted or not _where or sys.dont_write_bytecode:
        return
    entries = {name: entry for name, entry in _entries.items() if name not in _noted and _holds(entry)}
    codes = {name: _codes[name] for name in entries if name in _codes}
    entries = {name: entries[name] for name in codes}
    for name, (entry, code) in _noted.items():
        entries[name], codes[name] = entry, code
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
