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
import os
from collections.abc import Generator, Iterator
from pathlib import Path

import pytest

from tierlock.pytest_plugin import failedimports
from tierlock.pytest_plugin.collection import count_kept
from tierlock.pytest_plugin.decision import Gate
from tierlock.pytest_plugin.selection import Selection


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


#: What holds statements below a statement: statements, ``except`` handlers, ``case`` blocks.
_BLOCKS = (ast.stmt, ast.excepthandler, ast.match_case)
