"""``tierlock census --fix``: apply each finding's fix as printed, so the census converges.

* a ``tests`` fix adds the glob to ``[tool.tierlock.tiers.NAME].tests`` (a
  tomlkit round-trip: every other byte of pyproject.toml stays);
* a ``mark`` fix puts ``@pytest.mark.tier("NAME")`` above each test named,
  at the line of its first decorator and with its indentation (and
  ``import pytest`` after the module's first lines when it has none).

Pure over texts (:func:`add_globs`, :func:`add_marks`); :func:`apply` reads and writes the files.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from tierlock.census.report import Finding
from tierlock.fsutil import read_bytes
from tierlock.probing import normalize
from tierlock.scratch import write_atomic


def add_globs(text: str, globs: Mapping[str, Sequence[str]]) -> str:
    """The pyproject *text* with each tier's new *globs* added to its ``tests`` (none twice)."""
    import tomlkit

    document = tomlkit.parse(text)
    tiers: Any = document["tool"]["tierlock"]["tiers"]
    for tier, items in globs.items():
        body = _tier_table(tiers, tier)
        if "tests" not in body:
            body["tests"] = tomlkit.array()
        for glob in items:
            if glob not in body["tests"]:
                body["tests"].append(glob)
        body["tests"].multiline(len(body["tests"]) > 1)
    return tomlkit.dumps(document)


def _tier_table(tiers: Any, tier: str) -> Any:
    for name in tiers:
        if normalize(name) == tier:
            return tiers[name]
    raise KeyError(tier)


def add_marks(text: str, marks: Iterable[tuple[int, str]]) -> str:
    """The test module *text* with ``@pytest.mark.tier(NAME)`` inserted above each (line, tier) given."""
    lines = text.splitlines(keepends=True)
    newline = "\r\n" if "\r\n" in text else "\n"
    for line, tier in sorted(set(marks), reverse=True):
        indent = re.match(r"[ \t]*", lines[line - 1]).group(0)  # type: ignore[union-attr]
        lines.insert(line - 1, f"{indent}@pytest.mark.tier({tier!r}){newline}")
    out = "".join(lines)
    if not re.search(r"^import pytest\b", out, re.MULTILINE):
        out = _with_pytest(out, newline)
    return out


def _with_pytest(text: str, newline: str) -> str:
    """``import pytest`` after the docstring and ``from __future__`` imports (where an import may go)."""

    tree = ast.parse(text)
    after = 0
    for index, node in enumerate(tree.body):
        docstring = index == 0 and isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
        if docstring or (isinstance(node, ast.ImportFrom) and node.module == "__future__"):
            after = node.end_lineno or node.lineno
        else:
            break
    lines = text.splitlines(keepends=True)
    lines.insert(after, f"import pytest{newline}")
    return "".join(lines)


def apply(root: Path, pyproject: Path, findings: Sequence[Finding]) -> list[str]:
    """Apply the fixes of *findings*; the files changed (relative to *root*)."""
    globs: dict[str, list[str]] = {}
    marks: dict[str, list[tuple[int, str]]] = {}
    for finding in findings:
        for glob in finding.fix.get("tests", ()):
            globs.setdefault(finding.tier, []).append(glob)
        for mark in finding.fix.get("mark", ()):
            marks.setdefault(finding.file, []).append((int(mark["line"]), finding.tier))

    changed = []
    if globs:
        raw = read_bytes(pyproject).decode("utf-8")
        bom = "\ufeff" if raw.startswith("\ufeff") else ""
        write_atomic(pyproject, (bom + add_globs(raw.removeprefix(bom), globs)).encode("utf-8"))
        changed.append(pyproject.name)
    for rel, items in marks.items():
        path = root / rel
        text = read_bytes(path).decode("utf-8")
        write_atomic(path, add_marks(text, items).encode("utf-8"))
        changed.append(rel)
    return changed
