"""Test files the project's own conftest keeps out of the run because a tier is missing: counted, never silent.

A conftest that computes ``collect_ignore`` from an import (``if find_spec("brainpkg") is None:
collect_ignore.append("test_models.py")``), or whose ``pytest_ignore_collect`` returns True for files of a backend it
could not import, hides the tests that need the tier: pytest never asks tierlock about them (its own hook is asked
last), and a strict run went green with them silently absent. :class:`ProjectIgnores` wraps pytest's answer: a file
pytest ignores although the run selects it as read before collection (no ``--ignore``, no literal ``collect_ignore``
names it), that needs a tier that is not present (the tier's ``tests`` globs or the census) while an import of one of
that tier's roots failed in this run, is a test file of that tier not collected. A strict run that requires the
tier then fails at its end (:func:`.backstop.failing_at_end`); a lenient one counts it.
"""

from __future__ import annotations

import ast
import fnmatch
import functools
import os
from collections.abc import Generator, Iterator
from pathlib import Path

import pytest

from tierlock.pytest_plugin import failedimports
from tierlock.pytest_plugin.collection import count_kept
from tierlock.pytest_plugin.decision import Gate
from tierlock.pytest_plugin.selection import Selection, ignore_addition


class ProjectIgnores:
    """Registered for a run with tiers that are not present; sees what every ``pytest_ignore_collect`` answered."""

    def __init__(self, gate: Gate) -> None:
        self.gate = gate

    @pytest.hookimpl(wrapper=True)
    def pytest_ignore_collect(self, collection_path: Path, config: pytest.Config) -> Generator[None, object, object]:
        ignored = yield
        if ignored and (collection_path.suffix == ".py" or collection_path.is_dir()):
            failed = {self.gate.owners.get(r) or self.gate.owners.get(r.lower()) for r in failedimports.ever(config)}
            if failed - {None}:
                hidden(self.gate, collection_path, config, {t for t in failed if t})
        return ignored


def hidden(gate: Gate, path: Path, config: pytest.Config, failed: set[str]) -> None:
    """Count each test file at or below *path* the project's code kept out as a file of its tier not collected.
    *failed*: the tiers an import of whose roots failed in this run."""
    selection = Selection(config, [str(a) for a in config.args])
    for file in sorted(selection.files(path)) if path.is_dir() else [path]:
        try:
            rel = file.relative_to(gate.root).as_posix()
        except ValueError:
            continue
        tier = next((t for t in gate.needing if rel in gate.needing[t] and t in failed), None)
        tier = tier or next((t for t in gate.tiers_of(rel) if t in failed), None)
        tier = tier or imported_at_top(file, gate.owners, failed)  # (a module pytest collects for its doctests)
        tier = tier or ignored_without(file, Path(gate.root), gate.owners, failed)
        if tier is None or os.fspath(file) in gate.kept_by_tier.get(tier, ()):
            continue  # needs no tier whose import failed, or tierlock kept it out itself (counted already)
        if not selection.collects(file.name):
            continue  # a helper module beside the tests: not a test file
        # not when the run leaves it out on purpose (``--ignore``, a literal ``collect_ignore``, ``--deselect``, ``-k``)
        count_kept(gate, selection, os.fspath(file), tier)


def imported_at_top(file: Path, owners: dict[str, str], failed: set[str]) -> str | None:
    """The tier in *failed* whose root *file* imports in the code that runs when it is imported (collecting it
    imports that root): a module pytest collects for its doctests (``--doctest-modules``), which the census reads no
    more than any other module of the project; *owners*: root -> tier. None when it imports none, or cannot be
    read."""
    try:
        tree = ast.parse(file.read_bytes())
    except (OSError, SyntaxError, ValueError, RecursionError):  # (RecursionError: thousands of chained operators)
        return None
    for root in _roots_imported(list(tree.body)):
        tier = owners.get(root) or owners.get(root.lower())
        if tier in failed:
            return tier
    return None


def _roots_imported(body: list[ast.AST]) -> Iterator[str]:
    """The top-level names of the absolute imports *body* runs, in order: inside ``if``, ``try``, ``with`` and class
    bodies too, not in a function (run when called) nor under ``if TYPE_CHECKING:`` (never at run time: the census's
    rule, :func:`tierlock.census.marks.type_checking`, loaded only when a file was hidden)."""
    from tierlock.census.marks import type_checking

    for node in body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        if isinstance(node, ast.Import):
            yield from (alias.name.partition(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            yield node.module.partition(".")[0]
        elif isinstance(node, ast.If) and type_checking(node.test):
            yield from _roots_imported(list(node.orelse))
        else:
            yield from _roots_imported([c for c in ast.iter_child_nodes(node) if isinstance(c, _BLOCKS)])


def ignored_without(file: Path, root: Path, owners: dict[str, str], failed: set[str]) -> str | None:
    """The tier in *failed* a ``conftest.py`` at or above *file* (up to *root*) leaves *file* out without: networkx's
    ``if not has_numpy: collect_ignore += needs_numpy`` (``needs_numpy`` a module-level list of literal names,
    ``has_numpy`` a flag of the conftest's own ``try: import numpy``), ``.extend(...)``, ``.append("x.py")``, and
    ``collect_ignore_glob`` the same way: the modules it names (collected for their doctests) need numpy, though no
    import of theirs says so at their top. None when no such branch names *file*."""
    folder = file.parent
    while folder == root or root in folder.parents:
        conftest = folder / "conftest.py"
        if conftest.is_file():
            rel = file.relative_to(folder).as_posix()
            for roots, names, patterns in _ignored_on_flags(os.fspath(conftest)):
                tiers = [owners.get(r) or owners.get(r.lower()) for r in roots]
                if rel in names or any(fnmatch.fnmatch(rel, p) for p in patterns):
                    found = next((t for t in tiers if t in failed), None)
                    if found is not None:
                        return found
        folder = folder.parent
    return None


@functools.lru_cache(maxsize=64)
def _ignored_on_flags(path: str) -> list[tuple[list[str], set[str], set[str]]]:
    """(the roots a module-level ``if`` of the conftest *path* skips on, the names and globs its body adds to
    ``collect_ignore`` / ``collect_ignore_glob``), for each such ``if`` that reads a flag of the conftest's own."""
    from tierlock.census.filefacts import read_file
    from tierlock.census.flagfacts import tried_imports
    from tierlock.census.marks import SPEC, absent

    try:
        source = Path(path).read_text(encoding="utf-8")
        tree = ast.parse(source)
    except (OSError, UnicodeDecodeError, SyntaxError, ValueError, RecursionError):
        return []
    flags = read_file(source).flags
    lists = {
        t.id: [e.value for e in n.value.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
        for n in tree.body
        if isinstance(n, ast.Assign) and isinstance(n.value, ast.List | ast.Tuple)
        for t in n.targets
        if isinstance(t, ast.Name)
    }
    out = []
    for node in tree.body:
        if isinstance(node, ast.If):  # ``if not has_x:`` (a flag of the conftest's), ``if find_spec("x") is None:``
            tried = [flags.get(name, []) if name[:1] != SPEC else [(name[1:], 0, 0)] for name in absent(node.test)]
            body = node.body
        elif isinstance(node, ast.Try):  # ``try: import x`` ... ``except ImportError: collect_ignore...``
            tried, body = [tried_imports(node.body)[0]], [s for h in node.handlers for s in h.body]
        else:
            continue
        roots = [m.split(".")[0] for entries in tried for m, level, _line in entries if m[:1].isalpha() and not level]
        added = _added(body, lists)
        if roots and (added["collect_ignore"] or added["collect_ignore_glob"]):
            out.append((roots, set(added["collect_ignore"]), set(added["collect_ignore_glob"])))
    return out


def _added(body: list[ast.stmt], lists: dict[str, list[str]]) -> dict[str, list[str]]:
    """What the statements *body* add to ``collect_ignore`` and ``collect_ignore_glob``
    (:func:`.selection.ignore_addition`, an assignment aside): ``+= [...]`` or a list of *lists* (module-level lists
    of literals, by name), ``.extend(...)`` the same, ``.append("x")``."""
    out: dict[str, list[str]] = {"collect_ignore": [], "collect_ignore_glob": []}
    for stmt in body:
        hit = None if isinstance(stmt, ast.Assign) else ignore_addition(stmt)
        if hit is not None:
            out[hit[0]] += _strings(hit[1], lists)
    return out


def _strings(node: ast.expr, lists: dict[str, list[str]]) -> list[str]:
    if isinstance(node, ast.Name):
        return list(lists.get(node.id, []))
    if isinstance(node, ast.List | ast.Tuple):
        return [e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
    return []


#: What holds statements below a statement: statements, ``except`` handlers, ``case`` blocks.
_BLOCKS = (ast.stmt, ast.excepthandler, ast.match_case)
