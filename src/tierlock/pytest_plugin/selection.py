"""What the run selects, read as pytest reads it, before anything is collected.

A :class:`Selection` holds the run's collection arguments (files, folders,
node ids; else ``testpaths`` from the rootdir, else the invocation folder)
and every option that narrows them: ``--ignore``, ``--ignore-glob``,
``--deselect``, ``-k``, ``-m``, ``norecursedirs``, ``--doctest-modules``
(every ``.py`` file is then collected, not only ``python_files``) and the
``collect_ignore`` / ``collect_ignore_glob`` lists of conftest files, read
with :mod:`ast` when they are literal. A list computed at run time makes the
selection not :attr:`~Selection.exact`: the gate then counts at collection
(where pytest has applied it) and leaves the failing to the run-time backstop.

It feeds the gate and imports nothing of it.
"""

from __future__ import annotations

import ast
import fnmatch
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from tierlock.pytest_plugin.static_items import StaticItem, keep, read_items

_SKIP_DIRS = {"__pycache__", "node_modules", "site-packages"}
_NOT_DOCTESTED = {"conftest.py", "setup.py", "__main__.py"}
_DEFAULT_NORECURSE = ["*.egg", ".*", "_darcs", "build", "CVS", "dist", "node_modules", "venv", "{arch}"]


def _ini_list(config: pytest.Config, name: str, default: Sequence[str]) -> list[str]:
    try:
        value = config.getini(name)
    except ValueError:
        return list(default)
    return [str(v) for v in value] if isinstance(value, list) else list(default)


def _option(config: pytest.Config, name: str, default: Any) -> Any:
    namespace = getattr(config, "known_args_namespace", None)
    value = getattr(namespace, name, None)
    return config.getoption(name, default) if value is None else value


class Selection:
    """The run's selection (see the module docstring); built by :meth:`from_config`."""

    def __init__(self, config: pytest.Config, file_or_dir: Sequence[str]) -> None:
        self.rootdir = str(config.rootpath)
        self.base = config.invocation_params.dir
        self.patterns = _ini_list(config, "python_files", ["test_*.py", "*_test.py"])
        self.functions = _ini_list(config, "python_functions", ["test"])
        self.classes = _ini_list(config, "python_classes", ["Test"])
        self.norecurse = _ini_list(config, "norecursedirs", _DEFAULT_NORECURSE)
        self.doctest = bool(_option(config, "doctestmodules", False))
        self.ignore = [os.path.abspath(self.base / str(p)) for p in (_option(config, "ignore", None) or [])]
        self.ignore_glob = [os.path.abspath(self.base / str(p)) for p in (_option(config, "ignore_glob", None) or [])]
        self.deselect = [str(p) for p in (_option(config, "deselect", None) or [])]
        self.keyword = str(_option(config, "keyword", "") or "")
        self.markexpr = str(_option(config, "markexpr", "") or "")
        self.paths, self.named = self._arguments(config, file_or_dir)
        self.exact = True
        """False when a conftest computes ``collect_ignore`` at run time (or ``-k``/``-m`` can see too little)."""
        self._conftest_cache: dict[str, tuple[list[str], list[str]] | None] = {}
        self._possible_cache: dict[str, tuple[list[str], list[str]] | None] = {}

    def _arguments(self, config: pytest.Config, file_or_dir: Sequence[str]) -> tuple[list[str], list[tuple[str, str]]]:
        named: list[tuple[str, str]] = []
        paths: list[str] = []
        for arg in (str(a) for a in file_or_dir if not str(a).startswith("-")):
            head, sep, rest = arg.partition("::")
            full = os.path.abspath(self.base / head)
            paths.append(full)
            if sep and rest:
                named.append((full, rest))
        if not paths:
            import glob

            testpaths = _ini_list(config, "testpaths", []) if self.base == config.rootpath else []
            for entry in testpaths:
                paths.extend(os.path.abspath(p) for p in sorted(glob.glob(str(config.rootpath / entry))))
            if not paths:
                paths.append(str(self.base))
        return paths, named

    # -- which files -------------------------------------------------------------------
    def collects(self, name: str) -> bool:
        """Whether pytest collects a file of this name (``python_files``, or any module with doctest-modules)."""
        if not name.endswith(".py"):
            return False
        if self.doctest and name not in _NOT_DOCTESTED:
            return True
        return any(fnmatch.fnmatch(name, p) for p in self.patterns)

    def walked(self, name: str) -> bool:
        """Whether collection enters a folder of this name (``norecursedirs``, and folders never holding tests)."""
        return name not in _SKIP_DIRS and not any(fnmatch.fnmatch(name, p) for p in self.norecurse)

    def files(self, folder: Path) -> list[Path]:
        """The files pytest would collect below *folder* (before ignores)."""
        out: list[Path] = []
        for dirpath, dirnames, filenames in os.walk(folder):
            dirnames[:] = [d for d in dirnames if self.walked(d)]
            out.extend(Path(dirpath, f) for f in filenames if self.collects(f))
        return out

    def inside(self, path: str) -> bool:
        """Whether the absolute *path* is (below) a collection argument, comparing whole path components."""
        return any(path == p or path.startswith(p.rstrip(os.sep) + os.sep) for p in self.paths)

    def ignored(self, path: str) -> bool:
        """``--ignore``, ``--ignore-glob``, the conftests' literal ``collect_ignore``: on *path* or a folder above."""
        root = Path(self.rootdir)
        chain = [path, *(str(p) for p in Path(path).parents if p == root or root in p.parents)]
        for candidate in chain:
            if candidate in self.ignore or any(fnmatch.fnmatch(candidate, g) for g in self.ignore_glob):
                return True
        return self._conftest_ignored(chain)

    def read_conftests_above(self) -> None:
        """Read the conftest of each folder from the root to each collection argument for ``collect_ignore``: with
        ``--doctest-modules`` any module may be a test file the census never read, and one a conftest leaves out at
        run time can only be counted at collection (:attr:`exact` False when such a conftest computes it)."""
        root = Path(self.rootdir)
        for path in self.paths:
            for folder in [path, *(str(p) for p in Path(path).parents if p == root or root in p.parents)]:
                if os.path.isdir(folder):
                    self._conftest_lists(folder)

    def _conftest_ignored(self, chain: Sequence[str]) -> bool:
        for folder in chain[1:]:
            lists = self._conftest_lists(folder)
            if lists is None:
                continue
            plain, globs = lists
            if any(c in plain for c in chain) or any(fnmatch.fnmatch(c, g) for c in chain for g in globs):
                return True
        return False

    def _conftest_lists(self, folder: str) -> tuple[list[str], list[str]] | None:
        if folder not in self._conftest_cache:
            found = read_collect_ignore(Path(folder) / "conftest.py")
            if found is None:
                self.exact = False
            self._conftest_cache[folder] = found
        return self._conftest_cache[folder]

    def surely_collected(self, path: str) -> bool:
        """Whether no conftest above the absolute *path* can leave it out at run time: each one that computes its
        ``collect_ignore`` (:attr:`exact` False) only adds literal names, none of which covers *path* whichever
        branch runs (``if sys.version_info < (3, 12): collect_ignore_glob.append("*_695.py")``)."""
        root = Path(self.rootdir)
        chain = [path, *(str(p) for p in Path(path).parents if p == root or root in p.parents)]
        for folder in chain[1:]:
            if self._conftest_lists(folder) is not None:
                continue  # read exactly: :meth:`ignored` applies it
            if folder not in self._possible_cache:
                self._possible_cache[folder] = possible_collect_ignore(Path(folder) / "conftest.py")
            possible = self._possible_cache[folder]
            if possible is None:
                return False
            plain, globs = possible
            if any(c in plain for c in chain) or any(fnmatch.fnmatch(c, g) for c in chain for g in globs):
                return False
        return True

    def deselected(self, rel: str) -> bool:
        """Whether ``--deselect`` removes every test of the file at *rel* (a prefix of its node ids)."""
        return any(rel.startswith(p) for p in self.deselect)

    def selects(self, path: str) -> bool:
        """Whether the run collects the file at the absolute *path* as a whole (before ``-k``/``-m``)."""
        rel = os.path.relpath(path, self.rootdir).replace(os.sep, "/")
        return self.inside(path) and not self.ignored(path) and not self.deselected(rel)

    # -- which tests of a file ------------------------------------------------------------
    def narrows(self, path: str) -> bool:
        """Whether only some tests of the file at *path* may be selected (node ids, ``-k``, ``-m``, ``--deselect``)."""
        if self.keyword.strip() or self.markexpr.strip():
            return True
        rel = os.path.relpath(path, self.rootdir).replace(os.sep, "/")
        if any(p.startswith(rel + "::") for p in self.deselect):
            return True
        return self.named_count(path) > 0 and not self.in_whole(path)

    def _whole(self) -> list[str]:
        named = {full for full, _ in self.named}
        return [p for p in self.paths if p not in named]

    def named_count(self, path: str) -> int:
        """How many node ids name tests inside the file at *path* (each one skipped test when the file is gated)."""
        return sum(1 for full, _ in self.named if full == path)

    def in_whole(self, path: str) -> bool:
        """Whether a whole argument (a file or folder, not a node id) selects the file at *path*."""
        return any(path == p or path.startswith(p.rstrip(os.sep) + os.sep) for p in self._whole())

    def kept_items(self, path: str) -> list[StaticItem]:
        """The tests of the file at *path* this run keeps (node ids named, ``--deselect``, ``-k``, ``-m``)."""
        try:
            source = Path(path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            return []
        items = read_items(source, self.functions, self.classes) or []
        rel = os.path.relpath(path, self.rootdir).replace(os.sep, "/")
        parents = [*rel.split("/")[:-1], Path(path).name]
        chains = [rest.split("::") for full, rest in self.named if full == path]
        whole = path in self._whole() or any(path.startswith(p.rstrip(os.sep) + os.sep) for p in self._whole())
        out = []
        for item in items:
            nodeid = "::".join((rel, *item.chain))
            if not whole and not any(_names(item.chain, chain) for chain in chains):
                continue
            if any(nodeid.startswith(p) for p in self.deselect):
                continue
            if keep(item, parents, self.keyword, self.markexpr):
                out.append(item)
        return out


def _names(chain: Sequence[str], requested: Sequence[str]) -> bool:
    """Whether a node id's parts (*requested*; ``test_x[1]`` is ``test_x``) name the test *chain* or its class."""
    parts = [r.split("[", 1)[0] for r in requested]
    return list(chain[: len(parts)]) == parts


def read_collect_ignore(conftest: Path) -> tuple[list[str], list[str]] | None:
    """A conftest's literal ``collect_ignore`` and ``collect_ignore_glob`` as absolute paths; None when computed.

    A missing conftest, or one that does not mention them, gives two empty lists.
    """
    try:
        source = conftest.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return [], []
    if "collect_ignore" not in source:
        return [], []
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError):  # (RecursionError: thousands of chained operators)
        return None
    found: dict[str, list[str]] = {"collect_ignore": [], "collect_ignore_glob": []}
    literal = 0
    for node in tree.body:
        hit = _literal_ignore(node)
        if hit is not None:
            name, values = hit
            found[name] = values if isinstance(node, ast.Assign) else found[name] + values
            literal += 1
    mentions = sum(1 for n in ast.walk(tree) if isinstance(n, ast.Name) and n.id.startswith("collect_ignore"))
    if mentions != literal:
        return None  # computed, conditional or changed somewhere else: only pytest knows
    return _absolute(conftest, found)


def possible_collect_ignore(conftest: Path) -> tuple[list[str], list[str]] | None:
    """Every name a conftest's ``collect_ignore`` and ``collect_ignore_glob`` may hold whichever of its branches run
    (absolute paths): the literal names of each assignment, ``+=``, ``append`` and ``extend`` anywhere in it. None
    when one of them is not literal, or the lists are read or changed another way: then any file may be left out."""
    try:
        tree = ast.parse(conftest.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, SyntaxError, ValueError, RecursionError):
        return None
    found: dict[str, list[str]] = {"collect_ignore": [], "collect_ignore_glob": []}
    literal = mentions = 0
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id.startswith("collect_ignore"):
            mentions += 1
        elif isinstance(node, ast.stmt) and (hit := _literal_ignore(node)) is not None:
            found[hit[0]] += hit[1]
            literal += 1
    if mentions != literal:
        return None
    return _absolute(conftest, found)


def _absolute(conftest: Path, found: dict[str, list[str]]) -> tuple[list[str], list[str]]:
    """The names of ``collect_ignore`` and ``collect_ignore_glob`` in *found*, as absolute paths below *conftest*'s
    folder."""
    folder = conftest.parent
    return (
        [os.path.abspath(folder / p) for p in found["collect_ignore"]],
        [os.path.abspath(folder / p) for p in found["collect_ignore_glob"]],
    )


def ignore_addition(node: ast.stmt) -> tuple[str, ast.expr] | None:
    """(``collect_ignore`` or ``collect_ignore_glob``, what it is given or grows by) of ``name = ...``, ``name +=
    ...``, ``name.extend(...)`` and ``name.append(x)`` (as ``[x]``); None for any other statement."""
    value: ast.expr | None = None
    name: str | None = None
    if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
        name, value = node.targets[0].id, node.value
    elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name) and isinstance(node.op, ast.Add):
        name, value = node.target.id, node.value
    elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
        call = node.value
        func = call.func
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and len(call.args) == 1:
            name = func.value.id
            arg = call.args[0]
            value = ast.List(elts=[arg], ctx=ast.Load()) if func.attr == "append" else arg
            if func.attr not in ("append", "extend"):
                return None
    if name not in ("collect_ignore", "collect_ignore_glob") or value is None:
        return None
    return name, value


def _literal_ignore(node: ast.stmt) -> tuple[str, list[str]] | None:
    """(name, values) of an :func:`ignore_addition` whose value is a list or tuple of strings only."""
    hit = ignore_addition(node)
    if hit is None:
        return None
    name, value = hit
    if not isinstance(value, (ast.List, ast.Tuple)):
        return None
    values = [e.value for e in value.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
    return (name, values) if len(values) == len(value.elts) else None
