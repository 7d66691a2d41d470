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
from collections.abc import Generator
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
    """The tier in *failed* whose root *file* imports in its own top-level code (collecting it imports that root): a
    module pytest collects for its doctests (``--doctest-modules``), which the census reads no more than any other
    module of the project; *owners*: root -> tier. None when it imports none, or cannot be read."""
    try:
        if os.path.getsize(file) > _LARGEST:
            return None
        tree = ast.parse(file.read_bytes())
    except (OSError, SyntaxError, ValueError):
        return None
    body = list(tree.body)
    while body:
        node = body.pop(0)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue  # (run only when called)
        if isinstance(node, ast.Import | ast.ImportFrom):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
            if isinstance(node, ast.ImportFrom) and node.level:
                continue  # (the project's own package)
            for name in names:
                root = name.partition(".")[0]
                tier = owners.get(root) or owners.get(root.lower())
                if tier in failed:
                    return tier
        body[:0] = [child for child in ast.iter_child_nodes(node) if isinstance(child, ast.stmt)]
    return None


#: The largest module read for its imports (a generated file of megabytes is no test module).
_LARGEST = 4 * 1024 * 1024
