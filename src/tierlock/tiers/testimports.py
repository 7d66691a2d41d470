"""Which test files need which import roots, read statically (``ast``; nothing is imported).

A test file *needs* a root when it imports it at module level, unconditionally
(not under ``if`` nor ``try``), or calls ``pytest.importorskip("root")`` there:
the whole file then fails or skips without it. Imports inside functions gate one test,
not the file, and are left to the test itself.
"""

from __future__ import annotations

import ast
import os
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path

_SKIP_DIRS = {".git", ".hg", ".tox", ".nox", ".venv", "venv", "node_modules", "build", "dist", "__pycache__"}


def test_files(root: Path) -> Iterator[Path]:
    """``test_*.py`` and ``*_test.py`` files under *root*, outside hidden, virtualenv and build folders."""
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(
            d
            for d in dirs
            if d not in _SKIP_DIRS and not d.startswith(".") and not (Path(folder, d) / "pyvenv.cfg").exists()
        )
        for name in sorted(files):
            if name.endswith(".py") and (name.startswith("test_") or name.endswith("_test.py")):
                yield Path(folder, name)


def needed_roots(source: str) -> frozenset[str]:
    """Top-level names the module imports or importorskips at module level (empty when it does not parse)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return frozenset()
    out: set[str] = set()
    for node in _module_level(tree.body):
        if isinstance(node, ast.Import):
            out.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            out.add(node.module.split(".")[0])
        else:
            for call in ast.walk(node):
                name = _importorskip_arg(call)
                if name:
                    out.add(name.split(".")[0])
    return frozenset(out)


def _module_level(body: Iterable[ast.stmt]) -> Iterator[ast.stmt]:
    """Statements that run unconditionally when the module is imported.

    Imports under ``if`` (``if has_crypto:``, version switches, ``TYPE_CHECKING``)
    and ``try`` are optional by construction, so they gate no file.
    """
    for node in body:
        if isinstance(node, ast.Import | ast.ImportFrom | ast.Assign | ast.Expr | ast.AnnAssign):
            yield node


def _importorskip_arg(node: ast.AST) -> str | None:
    if not isinstance(node, ast.Call) or not node.args:
        return None
    func = node.func
    named = (isinstance(func, ast.Attribute) and func.attr == "importorskip") or (
        isinstance(func, ast.Name) and func.id == "importorskip"
    )
    arg = node.args[0]
    if named and isinstance(arg, ast.Constant) and isinstance(arg.value, str):
        return arg.value
    return None


def scan(root: Path) -> dict[str, frozenset[str]]:
    """Every test file under *root* (posix path relative to it) with the roots it needs."""
    out: dict[str, frozenset[str]] = {}
    for path in test_files(root):
        try:
            source = path.read_text(encoding="utf-8-sig")
        except (OSError, UnicodeDecodeError):
            continue
        out[path.relative_to(root).as_posix()] = needed_roots(source)
    return out


def globs_for(roots: Iterable[str], imports: Mapping[str, frozenset[str]]) -> list[str]:
    """The fewest globs covering the test files that need any of *roots*: a folder whose every test file
    needs them becomes ``folder/**``, other files are named one by one."""
    wanted = set(roots)
    gated = sorted(f for f, needed in imports.items() if needed & wanted)
    if not gated:
        return []
    chosen = set(gated)
    out: list[str] = []
    covered: set[str] = set()
    for file in gated:
        if file in covered:
            continue
        parts = file.split("/")[:-1]
        best: str | None = None
        for depth in range(1, len(parts) + 1):
            folder = "/".join(parts[:depth])
            inside = [f for f in imports if f.startswith(folder + "/")]
            if inside and all(f in chosen for f in inside):
                best = folder
                break
        if best is None:
            out.append(file)
            covered.add(file)
        else:
            out.append(f"{best}/**")
            covered.update(f for f in imports if f.startswith(best + "/"))
    return out
