"""Whether the shared libraries a compiled extension needs can be found, the way the dynamic loader finds them.

An extension module whose file is whole can still fail to import: ``import MySQLdb`` fails with
``libmariadb.so.3: cannot open shared object file`` once the system library is gone. This module
reads each extension's needs without loading it (:mod:`tierlock.probing.elf`) and looks every needed
library up in glibc's order:

1. a library already loaded for this extension (by the name asked for or its ``DT_SONAME``);
2. ``DT_RPATH`` of the object that needs it and of the objects that loaded it (only when the object
   has no ``DT_RUNPATH``), with ``$ORIGIN`` (the object's folder), ``$LIB`` and ``$PLATFORM`` expanded;
3. ``LD_LIBRARY_PATH`` (as this process has it: the environment the probe runs in);
4. ``DT_RUNPATH`` of the object that needs it;
5. the loader cache, ``/etc/ld.so.cache`` (:mod:`tierlock.probing.ldcache`), then the default folders
   (``/lib/<multiarch>``, ``/usr/lib/<multiarch>``, ``/lib64``, ``/usr/lib64``, ``/lib``, ``/usr/lib``),
   unless the object says ``DF_1_NODEFLIB``.

An extension the target's loader refuses outright (another class, byte order or machine than the target
interpreter's own file, no ELF file at all: :mod:`tierlock.probing.elfmatch`) is said so, and what it needs
is not looked for. A candidate library counts only when it is an ELF file of the same class, byte order and
machine (the loader skips the others). A library found through a search path (a wheel's ``.libs`` folder through
``$ORIGIN``, a runpath, ``LD_LIBRARY_PATH``) is followed in turn: what it needs must be found too; one
from the loader cache or a default folder is the system's, and its own needs are left to its package
manager. ``libpython`` is taken as given (the
interpreter provides it). Mach-O (macOS) and PE (Windows) extensions are read and looked up by
:mod:`tierlock.probing.foreign` on the system they belong to.

Cheap by design: an extension's verdict is kept for the process with the identity (size, mtime,
inode, ctime: a rewrite that puts the size and mtime back still moves the last) of the extension and of
every library it was found to rely on; a later probe stats those
files again and reuses the verdict when none changed (kept on disk for the environment by
:mod:`tierlock.probing.libcache`, and for any environment with the same files at the same places of
its site folder by :mod:`tierlock.probing.libmoved`). Within one probe (one site index) every
candidate file is opened at most once and every search is made once.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Mapping, Sequence

from tierlock.probing import elf, elfmatch, libcache, libmoved
from tierlock.probing.libproblems import Missing, Unloadable

__all__ = ["Identity", "Missing", "Session", "Unloadable", "is_extension", "still_known", "unresolved"]

_PROVIDED = ("libpython",)
#: The loader's cache, :data:`tierlock.probing.ldcache.PATH` (that module, and :mod:`~tierlock.probing.ldpaths`, are
#: loaded when a library is looked for: a probe whose verdicts are all kept reads neither).
LD_CACHE = "/etc/ld.so.cache"
"""Libraries the interpreter itself provides (linked in, or loaded before any extension)."""

Identity = libcache.Identity
"""A file's size, mtime, inode and status change time (ns): while they are unchanged, so is what was read from it."""


_Found = tuple[str, elf.ElfInfo, bool]
"""Where a library was found, what it needs, and whether that is looked up too (it was found through a
search path or a path of its own; a library of the loader cache or a default folder is the system's, whose
own needs are its package manager's business)."""

_VERDICTS: dict[tuple[str, str], libcache.Kept] = {}
"""The extensions found whole (every library found), by path and search environment: their identity and
what they rely on."""
_READ: dict[str, tuple[Identity, elf.ElfInfo | None]] = {}
"""What was read from each file, by path, with the identity it had."""
_UNSAVED: list[Session] = []
"""Sessions that learnt verdicts not yet on disk (written when the process ends)."""


def is_extension(rel: str) -> bool:
    """Whether the RECORD path *rel* names an extension module (imported by Python) rather than a library
    that one loads (``libfoo.so.1``, ``libfoo.so``, ``.dylib``, ``.dll``: checked through the extensions)."""
    name = rel.rpartition("/")[2]
    if name.endswith(".pyd"):
        return True
    if not name.endswith(".so"):
        return False
    return not name.startswith("lib") or ".cpython-" in name or ".abi3." in name or ".pypy" in name


class Session:
    """The lookups of one probe: the environment's search paths, every candidate opened once, every search made once.

    With *fresh* (``--deep``), nothing learnt by earlier probes is trusted: every file is read again.
    """

    last: Session | None = None
    """The session of the last probe round (a new site index: a new round)."""

    def __init__(
        self,
        sites: Sequence[str],
        *,
        fresh: bool = False,
        library_path: str | None = None,
        cache: str = LD_CACHE,
        python: str | None = None,
    ) -> None:
        value = os.environ.get("LD_LIBRARY_PATH", "") if library_path is None else library_path
        self.library_path = tuple(p or "." for p in value.split(":")) if value else ()
        self.cache_path = cache
        self.fresh = fresh
        self.owner: object = None
        """The site index of the probe round this session serves."""
        self._cache: dict[str, tuple[str, ...]] | None = None
        self._ids: dict[str, Identity | None] = {}
        self._files: dict[str, elf.ElfInfo | None] = {}
        self._found: dict[tuple[object, ...], _Found | None] = {}
        self.platform = elfmatch.platform_of(python) if python is not None else None
        """The target interpreter's ELF header (*python*'s): an extension of another class or machine is refused."""
        platform = self.platform
        machine = [] if platform is None else [platform.elf_class, platform.little_endian, platform.machine]
        self.environment: list[object] = [
            list(sites),
            list(self.library_path),
            cache,
            list(_identity(cache) or ()),
            machine,
        ]
        self.key = repr(self.environment)
        self.store = libcache.path_for(sites)
        self._kept: dict[str, libcache.Kept] | None = {} if fresh else None
        self.learnt: dict[str, libcache.Kept] = {}
        self.moved = libmoved.Moved(sites, self.environment[1:])
        """What other environments learnt, by the place in the site folder (:mod:`tierlock.probing.libmoved`)."""

    @property
    def kept(self) -> dict[str, libcache.Kept]:
        """This environment's verdicts kept on disk, read on the first extension this process does not know."""
        if self._kept is None:
            self._kept = libcache.load(self.store, self.environment)
        return self._kept

    @property
    def cache(self) -> dict[str, tuple[str, ...]]:
        if self._cache is None:
            from tierlock.probing import ldcache

            self._cache = ldcache.load(self.cache_path)
        return self._cache

    def identity(self, path: str) -> Identity | None:
        """The identity of the file at *path* (stat-ed once per session; None when there is none)."""
        if path not in self._ids:
            self._ids[path] = _identity(path)
        return self._ids[path]

    def know(self, seen: Mapping[str, Identity]) -> None:
        """Take the identities of files stat-ed in this probe round (the file checks' own ``stat``) as this
        session's (a file seen already keeps the identity it was first given)."""
        for path, identity in seen.items():
            self._ids.setdefault(path, identity)

    def read(self, path: str) -> elf.ElfInfo | None:
        """The dynamic section of the file at *path* (opened once per session, and not again while it is unchanged)."""
        if path in self._files:
            return self._files[path]
        identity = self.identity(path)
        info = None
        if identity is not None:
            memo = None if self.fresh else _READ.get(path)
            if memo is not None and memo[0] == identity:
                info = memo[1]
            else:
                info = elf.read_file(path)
                _READ[path] = (identity, info)
        self._files[path] = info
        return info

    def missing(self, artifact: str, rel: str, loaded: bool = True) -> list[Missing | Unloadable]:
        """The libraries the extension at *artifact* needs and the loader cannot find (*rel*: how to name it), or
        the extension itself when the target's loader refuses it (*loaded*: the target imports it, not a build for
        another Python beside its own)."""
        identity = self.identity(artifact)
        if identity is None:
            return []  # missing: the file checks report it
        if not self.fresh and self._known(artifact, identity):
            return []
        info = self.read(artifact)
        if info is None and not os.access(artifact, os.R_OK):
            return []  # unreadable: read again next time
        refused = elfmatch.refused(artifact, info, self.platform) if self.platform is not None and loaded else None
        if refused is not None:
            self._forget(artifact)
            return [Unloadable(rel, refused)]  # what it needs is not looked for: it is not loaded at all
        # Needing nothing is a verdict too, and so is a readable file that is no ELF object where no interpreter is
        # named or the target does not import it (nothing to look up): kept with its identity, like every other.
        missing, relied = self._resolve(artifact, info, rel) if info is not None else ([], ())
        if not missing:
            self._learn(artifact, (identity, relied))
            self.moved.learn(artifact, (identity, relied))
            return missing
        self._forget(artifact)  # (another environment's link to this very file takes no verdict of it)
        if self.platform is not None and loaded:
            return [_another_libc(m, self.platform) for m in missing]
        return missing

    def _known(self, artifact: str, identity: Identity) -> bool:
        """Whether a verdict learnt before still holds: this process's, this environment's kept one, or, when this
        environment has none of its own, one learnt at the same place of another environment's site folder (each
        library stat-ed once)."""
        mine = _VERDICTS.get((artifact, self.key))
        if self._still(mine, identity):
            return True
        kept = self.kept.get(artifact)
        if self._still(kept, identity):
            assert kept is not None
            _VERDICTS[artifact, self.key] = kept  # what tierlock.probing.relied gives the receipt
            return True
        if mine is not None or kept is not None:
            return False  # this environment's own verdict no longer holds: the file is read again
        moved = self.moved.get(artifact)
        if moved is None or not self._carried(moved, identity):
            return False
        self._learn(artifact, (identity, tuple((path, self.identity(path) or (0, 0, 0, 0)) for path, _ in moved[1])))
        return True

    def holds(self, extensions: Iterable[tuple[str, Identity | None]]) -> bool:
        """Whether a verdict learnt before still holds for each extension (path, identity): :meth:`missing`
        finding nothing missing without reading any of them."""
        for path, identity in extensions:
            known = self._ids.setdefault(path, identity)
            if known is None or not self._known(path, known):
                return False
        return True

    def _learn(self, artifact: str, verdict: libcache.Kept) -> None:
        _VERDICTS[artifact, self.key] = self.learnt[artifact] = self.kept[artifact] = verdict
        self._unsaved()

    def _forget(self, artifact: str) -> None:
        """The file at *artifact* has something missing: the verdict its place lent other environments goes."""
        if self.moved.forget(artifact):
            self._unsaved()

    def _unsaved(self) -> None:
        """Write what this session learnt or forgot when the process ends."""
        if self not in _UNSAVED:
            if not _UNSAVED:
                import atexit

                atexit.register(save_all)
            _UNSAVED.append(self)

    def _carried(self, verdict: libcache.Kept, identity: Identity) -> bool:
        """Whether a verdict learnt in another environment is about this very file (the same inode, size and
        modification time: a hard link to it, as uv makes from its cache, which moves its status change time) and
        every library it relies on is that one too."""
        return verdict[0][:3] == identity[:3] and all(
            (self.identity(path) or ())[:3] == was[:3] for path, was in verdict[1]
        )

    def _still(self, verdict: libcache.Kept | None, identity: Identity) -> bool:
        """Whether a verdict is about this very file and every library it relies on is unchanged."""
        return (
            verdict is not None
            and verdict[0] == identity
            and all(self.identity(path) == was for path, was in verdict[1])
        )

    def _resolve(
        self, artifact: str, info: elf.ElfInfo, rel: str
    ) -> tuple[list[Missing | Unloadable], tuple[tuple[str, Identity], ...]]:
        """Every library of the extension's tree, breadth first as the loader loads them."""
        missing: list[Missing | Unloadable] = []
        relied: dict[str, Identity] = {}
        loaded: set[str] = set()
        queue: list[tuple[str, elf.ElfInfo, tuple[str, ...]]] = [(artifact, info, ())]
        seen = {os.path.normpath(artifact)}
        for path, obj, chain in queue:  # the loader's breadth-first order; the loop sees what is appended
            if not obj.needed:
                continue  # nothing to look up (nor its search paths to expand)
            origin = os.path.dirname(path)
            rpath = () if obj.runpath else (*_expand(obj.rpath, origin, obj), *chain)
            for name in obj.needed:
                if name in loaded or name.startswith(_PROVIDED):
                    continue
                found = self.find(name, obj, origin, rpath)
                if found is None:
                    missing.append(Missing(rel, name, None if path == artifact else os.path.basename(path)))
                    continue
                where, lib, followed = found
                loaded.update(n for n in (name, lib.soname) if n)
                relied[where] = self.identity(where) or (0, 0, 0, 0)
                if followed and os.path.normpath(where) not in seen:
                    seen.add(os.path.normpath(where))
                    queue.append((where, lib, rpath if not obj.runpath else chain))
        return missing, tuple(relied.items())

    def find(self, name: str, obj: elf.ElfInfo, origin: str, rpath: Sequence[str]) -> _Found | None:
        """Where the loader finds *name* for *obj* (in folder *origin*, searching *rpath* first), or None.

        Remembered for the session: extensions of one folder share their searches.
        """
        runpath = _expand(obj.runpath, origin, obj)
        key: tuple[object, ...] = (name, tuple(rpath), runpath, obj.nodeflib, obj.elf_class, obj.little_endian)
        key += (obj.machine, origin) if "/" in name else (obj.machine,)
        if key not in self._found:
            self._found[key] = self._search(name, obj, origin, (rpath, self.library_path, runpath))
        return self._found[key]

    def _search(self, name: str, obj: elf.ElfInfo, origin: str, paths: tuple[Sequence[str], ...]) -> _Found | None:
        from tierlock.probing.ldpaths import default_folders

        if "/" in name:
            return self._first(_expand((name,), origin, obj), obj, follow=True)
        found = self._first((os.path.join(f, name) for folders in paths for f in folders), obj, follow=True)
        if found is not None or obj.nodeflib:
            return found
        system = (*self.cache.get(name, ()), *(os.path.join(d, name) for d in default_folders(obj)))
        return self._first(system, obj, follow=False)

    def _first(self, candidates: Iterable[str], obj: elf.ElfInfo, *, follow: bool) -> _Found | None:
        """The first of *candidates* the loader would take for *obj* (an ELF file of its class and machine);
        *follow*: its own needs are looked up too (found through a search path, not the system's own)."""
        for candidate in candidates:
            info = self.read(candidate)
            if info is not None and obj.compatible(info):
                return (candidate, info, follow)
        return None

    def save(self) -> None:
        """Write what this session learnt, with what it found kept, to its cache file."""
        if self.learnt:
            libcache.save(self.store, self.environment, self.kept)
            self.learnt = {}
        self.moved.save()


def _another_libc(problem: Missing | Unloadable, target: elf.ElfInfo) -> Missing | Unloadable:
    """A C library the loader cannot find, of another family than the target interpreter's (a musl build in a
    glibc environment): the extension is built for another platform, which no system package mends."""
    if not isinstance(problem, Missing):
        return problem
    other = elfmatch.another_libc(problem.library, target)
    return problem if other is None else Unloadable(problem.artifact, other)


def save_all() -> None:
    """Write the verdicts every session of this process learnt (run when the process ends)."""
    while _UNSAVED:
        _UNSAVED.pop().save()


def _expand(paths: Iterable[str], origin: str, obj: elf.ElfInfo) -> tuple[str, ...]:
    """:func:`tierlock.probing.ldpaths.expand`, its module loaded on the first search."""
    from tierlock.probing.ldpaths import expand

    return expand(paths, origin, obj)


def _identity(path: str) -> Identity | None:
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return None
    return (st.st_size, st.st_mtime_ns, st.st_ino, st.st_ctime_ns)


def preload(sites: Sequence[str], python: str | None = None) -> None:
    """Read the verdicts kept for the site folders *sites* and those carried over from other environments now
    (:func:`tierlock.probing.libcache.load` keeps what it parsed while the files are unchanged: a probe round after
    this one, :func:`session_for`, then reads neither again); nothing when they cannot be read."""
    try:
        session = Session(sites, python=python)
        session.kept  # noqa: B018
        session.moved.read()
    except Exception:  # read when the probe needs them, which says what is wrong
        pass


def session_for(owner: object, sites: Sequence[str], *, fresh: bool = False, python: str | None = None) -> Session:
    """The session of one probe round (*owner*: the site index it shares; *python*: its target interpreter),
    made on first use."""
    last = Session.last
    if last is not None and last.owner is owner and last.fresh == fresh:
        return last
    found = Session(sites, fresh=fresh, python=python)
    found.owner = owner
    Session.last = found
    return found


def unresolved(
    owner: object,
    sites: Sequence[str],
    files: Iterable[tuple[str, str]],
    *,
    fresh: bool = False,
    seen: Mapping[str, Identity] | None = None,
    python: str | None = None,
    suffixes: Sequence[str] | None = None,
) -> list[Missing | Unloadable]:
    """The needed libraries the loader cannot find, for each extension module among *files* ((path, rel) pairs).

    ELF extensions are looked up on Linux and the other ELF systems; Mach-O and PE ones on macOS and
    Windows (:mod:`tierlock.probing.foreign`). An extension that is missing or unreadable is left to
    the file checks. *fresh* (``--deep``) trusts nothing learnt before. *seen*: identities the caller has
    just taken (path -> size, mtime, inode, ctime), used instead of a second ``stat``. *python*: the target interpreter,
    whose loader refuses an ELF extension of another class, byte order or machine (:mod:`tierlock.probing.elfmatch`);
    *suffixes*: the extension suffixes it imports (a build for another Python beside its own is not loaded).
    """
    extensions = [(path, rel) for path, rel in files if is_extension(rel)]
    if not extensions:
        return []
    if sys.platform in ("darwin", "win32"):
        from tierlock.probing import foreign

        return [Missing(rel, lib) for path, rel in extensions for lib in foreign.missing(path, sites)]
    session = session_for(owner, sites, fresh=fresh, python=python)
    if seen:
        session.know(seen)
    if suffixes is None:
        return [m for path, rel in extensions for m in session.missing(path, rel)]
    from tierlock.probing.compiled import loads

    return [m for path, rel in extensions for m in session.missing(path, rel, loads(rel, suffixes))]


def still_known(
    owner: object, sites: Sequence[str], extensions: Iterable[tuple[str, Identity | None]], python: str | None = None
) -> bool:
    """Whether a verdict learnt before (by this process, or kept on disk) still holds for each extension module
    (path, the identity it has now), every library it relies on unchanged: :func:`unresolved` finding nothing
    missing without reading any extension, for a distribution found whole before. False says nothing of what is
    wrong: the caller asks :func:`unresolved`."""
    if sys.platform in ("darwin", "win32"):
        return False
    return session_for(owner, sites, python=python).holds(extensions)
