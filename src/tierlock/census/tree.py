"""The files the census reads: the only part of it that touches the disk.

:class:`DiskTree` lists the test folders (test files and ``conftest.py`` with
their size and mtime, the project's other Python files, every file for the
globs), the project's own packages on its import path, and reads a file's
text. The census takes any object with these three methods (:class:`Tree`),
so a test or another tool can hand it files from elsewhere.
"""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Iterable, Sequence
from stat import S_ISDIR, S_ISREG
from typing import Protocol

from tierlock import keptnote

#: pytest's default ``norecursedirs`` (and bytecode folders).
SKIP_DIRS = ("*.egg", ".*", "_darcs", "build", "CVS", "dist", "node_modules", "venv", "{arch}", "__pycache__")


class Listing:
    """What a walk of the test folders found, relative to the root, sorted."""

    def __init__(self, tests: dict[str, list[int]], sources: dict[str, list[int]], every: list[str]) -> None:
        self.tests = tests
        """Test files and conftests -> [size, mtime_ns]."""
        self.sources = sources
        """Other ``.py`` files (helpers the tests import) -> [size, mtime_ns]."""
        self.every = every
        """Every file (what the ``tests`` globs are matched against)."""


class Tree(Protocol):
    def walk(self, folders: Iterable[str], patterns: Sequence[str]) -> Listing: ...

    def modules(self, paths: Sequence[str]) -> dict[str, list[int]]: ...

    def read(self, rel: str) -> str | None: ...


#: :data:`SKIP_DIRS` without a wildcard, and ``site-packages``.
_SKIP_NAMES = frozenset(os.path.normcase(p) for p in (*SKIP_DIRS, "site-packages") if not any(c in p for c in "*?["))


def skip_dir(name: str) -> bool:
    """Whether a folder of this *name* is not walked: ``fnmatch`` of :data:`SKIP_DIRS` said as what they are (a
    name, ``*.egg``, ``.*``), without compiling ten patterns in every command that walks the tests."""
    name = os.path.normcase(name)
    return name in _SKIP_NAMES or name.startswith(".") or name.endswith(".egg")


#: Whether file names are compared as they are spelled here (``fnmatch`` folds case where the system does).
_AS_SPELLED = os.path.normcase("Aa") == "Aa"


def name_matches(name: str, pattern: str) -> bool:
    """``fnmatch.fnmatch(name, pattern)``: a pattern with one ``*`` and no other wildcard (pytest's own
    ``test_*.py`` and ``*_test.py``) told by its two ends without compiling it, any other by fnmatch."""
    if _AS_SPELLED and pattern.count("*") == 1 and "?" not in pattern and "[" not in pattern:
        head, _, tail = pattern.partition("*")
        return len(name) >= len(head) + len(tail) and name.startswith(head) and name.endswith(tail)
    return fnmatch.fnmatch(name, pattern)


class DiskTree:
    """The project's files on disk, below *root*."""

    def __init__(self, root: str | os.PathLike[str]) -> None:
        self.base = os.path.abspath(os.fspath(root))
        self.cut = len(self.base) + 1
        self.ids: dict[str, tuple[int, int, int, int]] = {}
        """Each Python file listed -> its size, modification time, the time its status changed and its inode (what
        a kept census result is known by: :mod:`tierlock.census.keptresult`)."""

    def _rel(self, path: str) -> str:
        return path[self.cut :].replace(os.sep, "/")

    def read(self, rel: str) -> str | None:
        try:
            with open(os.path.join(self.base, rel), encoding="utf-8", errors="replace") as handle:
                return handle.read()
        except OSError:
            return None

    def walk(self, folders: Iterable[str], patterns: Sequence[str]) -> Listing:
        tests: dict[str, list[int]] = {}
        sources: dict[str, list[int]] = {}
        every: set[str] = set()
        stack: list[str] = []
        for folder in folders:
            full = os.path.normpath(os.path.join(self.base, folder))
            try:
                st = os.stat(full)  # one look-up, told to a recorded run: it is the census's own (its kind and stamp)
            except OSError:
                continue
            if S_ISREG(st.st_mode):
                if keptnote.recording():
                    keptnote.tell("stat", full)
                rel = self._rel(full)
                every.add(rel)
                if full.endswith(".py"):
                    tests[rel] = [st.st_size, st.st_mtime_ns]
                    self.ids[rel] = (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino)
            elif S_ISDIR(st.st_mode):
                stack.append(full)
        for entry in self._files(stack, every):
            name = entry.name
            if not name.endswith(".py"):
                continue
            try:
                st = entry.stat()
            except OSError:
                continue
            test = name == "conftest.py" or any(name_matches(name, p) for p in patterns)
            rel = self._rel(entry.path)
            (tests if test else sources)[rel] = [st.st_size, st.st_mtime_ns]
            self.ids[rel] = (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino)
        return Listing(dict(sorted(tests.items())), dict(sorted(sources.items())), sorted(every))

    def _files(self, stack: list[str], every: set[str]) -> Iterable[os.DirEntry[str]]:
        """Every file below the folders on *stack* (adding each to *every*), skipping pytest's skipped folders."""
        seen: set[str] = set()
        while stack:
            folder = stack.pop()
            if folder in seen:
                continue
            seen.add(folder)
            try:
                entries = list(os.scandir(folder))
            except OSError:
                continue
            if any(e.name == "pyvenv.cfg" for e in entries):
                continue  # a virtual environment
            for entry in entries:
                if entry.is_dir(follow_symlinks=False):
                    if not skip_dir(entry.name):
                        stack.append(entry.path)
                    continue
                every.add(self._rel(entry.path))
                yield entry

    def modules(self, paths: Sequence[str]) -> dict[str, list[int]]:
        """The ``.py`` files of the packages (folders with ``__init__.py``) and modules directly on *paths*."""
        out: dict[str, list[int]] = {}
        packages: list[str] = []
        for path in paths:
            folder = os.path.normpath(os.path.join(self.base, path))
            try:
                entries = list(os.scandir(folder))
            except OSError:
                continue
            for entry in entries:
                if entry.is_dir(follow_symlinks=False):
                    if not skip_dir(entry.name) and os.path.isfile(os.path.join(entry.path, "__init__.py")):
                        packages.append(entry.path)
                elif entry.name.endswith(".py"):
                    self._stamp(entry, out)
        for entry in self._files(packages, set()):
            if entry.name.endswith(".py"):
                self._stamp(entry, out)
        return dict(sorted(out.items()))

    def _stamp(self, entry: os.DirEntry[str], out: dict[str, list[int]]) -> None:
        try:
            st = entry.stat()
        except OSError:
            return
        rel = self._rel(entry.path)
        out[rel] = [st.st_size, st.st_mtime_ns]
        self.ids[rel] = (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino)


def walk(root: str, folders: Iterable[str], patterns: Sequence[str]) -> tuple[dict[str, list[int]], list[str]]:
    """(test files and conftests -> [size, mtime_ns], every file) below *folders*, relative to *root*, sorted."""
    listing = DiskTree(root).walk(folders, patterns)
    return listing.tests, listing.every
