"""Which project file a module name stands for: the census's index of the project's ``.py`` files.

A module is first-party when its file is in the project: below the project root, ``src/``, pytest's ``pythonpath``,
or the first folder above the test file without an ``__init__.py`` (where pytest's default import mode puts it);
a folder of modules without an ``__init__.py`` is a namespace package. :mod:`.firstparty` follows imports through
it (split from there).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence


def folder_of(rel: str) -> str:
    return rel.rsplit("/", 1)[0] if "/" in rel else ""


def _join(*parts: str) -> str:
    return "/".join(p for p in parts if p)


class ModuleIndex:
    """Which project file a module name stands for, from the list of every ``.py`` file known."""

    def __init__(self, files: Iterable[str], paths: Sequence[str] = ("",)) -> None:
        self.files = set(files)
        self.paths = tuple(dict.fromkeys(paths))
        """Folders on the import path (relative to the root; ``""`` is the root)."""
        self._basedirs: dict[str, str] = {}
        self._resolved: dict[tuple[str, int, tuple[str, ...], str], list[str]] = {}
        self._all_folders: set[str] | None = None

    def locate(self, module: str, folder: str) -> str | None:
        stem = _join(folder, *module.split("."))
        for candidate in (f"{stem}.py", f"{stem}/__init__.py"):
            if candidate in self.files:
                return candidate
        return None

    def basedir(self, rel: str) -> str:
        """The first folder above *rel* without an ``__init__.py`` (pytest's default rootdir insertion)."""
        folder = folder_of(rel)
        if folder not in self._basedirs:
            here = folder
            while here and f"{here}/__init__.py" in self.files:
                here = folder_of(here)
            self._basedirs[folder] = here
        return self._basedirs[folder]

    def packages(self, rel: str) -> list[str]:
        """The ``__init__.py`` files that run before the module *rel* (its packages, outermost first)."""
        out: list[str] = []
        folder = folder_of(rel)
        stop = self.basedir(rel)
        while folder != stop:  # every folder below the base one holds an __init__.py
            out.append(f"{folder}/__init__.py")
            folder = folder_of(folder)
        return [p for p in reversed(out) if p != rel]

    def resolve(self, module: str, level: int, names: Sequence[Sequence[str]], importer: str) -> list[str]:
        """The project files that run when *importer* executes this import (none: not first-party)."""
        folder = folder_of(importer)
        key = (module, level, tuple(n for n, _ in names), folder if level else self.basedir(importer))
        found = self._resolved.get(key)
        if found is None:
            found = self._resolved[key] = self._resolve(module, level, names, importer)
        return found

    def resolved(self) -> Iterable[list[str]]:
        """The project files each import resolved so far runs."""
        return self._resolved.values()

    def _resolve(self, module: str, level: int, names: Sequence[Sequence[str]], importer: str) -> list[str]:
        if level:
            folder = folder_of(importer)
            for _ in range(level - 1):
                folder = folder_of(folder)
            base = _join(folder, *module.split(".")) if module else folder
            target = self.locate(module, folder) if module else (f"{folder}/__init__.py" if folder else None)
            if target is not None and target not in self.files:
                target = None
            found = [target] if target else []
            return found + self._submodules(base, names)
        parts = module.split(".")
        places = (self.basedir(importer), *self.paths)
        for path in places:
            if self.locate(parts[0], path) is not None:
                return self._chain(parts, path, names)
        for path in places:  # no module or package of that name: a folder of modules is a namespace package
            if _join(path, parts[0]) in self._folders():
                found = self._chain(parts, path, names)
                if found:
                    return found
        return []

    def _chain(self, parts: Sequence[str], path: str, names: Sequence[Sequence[str]]) -> list[str]:
        """The files of the import of the module *parts* from the import path folder *path*, outermost first."""
        chain = [self.locate(".".join(parts[: i + 1]), path) for i in range(len(parts))]
        found = [c for c in chain if c is not None]
        return found + self._submodules(_join(path, *parts), names)

    def _folders(self) -> set[str]:
        """Every folder that holds a known file, at any depth."""
        if self._all_folders is None:
            self._all_folders = set()
            for rel in self.files:
                folder = folder_of(rel)
                while folder and folder not in self._all_folders:
                    self._all_folders.add(folder)
                    folder = folder_of(folder)
        return self._all_folders

    def _submodules(self, base: str, names: Sequence[Sequence[str]]) -> list[str]:
        out = []
        for name, _bound in names:
            if name != "*":
                for candidate in (f"{base}/{name}.py", f"{base}/{name}/__init__.py"):
                    if candidate in self.files:
                        out.append(candidate)
        return out
