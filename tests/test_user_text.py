"""User-facing text carries no internal notes: no issue numbers, no unnamed "reference implementation", and no
``docs/...`` path that a user's project does not have (messages link the published docs or name a command)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from tierlock.links import DOCS

ROOT = Path(__file__).resolve().parents[1]
INTERNAL = re.compile(r"\bissues? #?\d+\b|reference implementation", re.IGNORECASE)
LOCAL_DOCS = re.compile(r"(?<![\w/])docs/[\w./-]+")


def _message_strings(path: Path) -> list[tuple[int, str]]:
    """String literals of a module that are not docstrings (what reaches users: messages, remedies, comments)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                docstrings.add(id(first.value))
    out: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
            out.append((node.lineno, node.value))
    return out


def test_no_message_in_the_source_points_at_a_local_docs_path_or_an_internal_note() -> None:
    found = [
        f"{path.relative_to(ROOT)}:{line}: {text!r}"
        for path in sorted((ROOT / "src").rglob("*.py"))
        for line, text in _message_strings(path)
        if INTERNAL.search(text) or LOCAL_DOCS.search(text.replace(DOCS, ""))
    ]
    assert found == []


def test_no_user_doc_mentions_an_issue_number_or_an_unnamed_reference_implementation() -> None:
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
    found = [
        f"{page.relative_to(ROOT)}:{n}: {line.strip()}"
        for page in pages
        for n, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1)
        if INTERNAL.search(line)
    ]
    assert found == []


def test_the_table_init_writes_links_the_published_docs(tmp_path: Path) -> None:
    from tierlock.tiers.init import propose

    text = '[project]\nname = "p"\nversion = "1"\n[project.optional-dependencies]\nbrain = ["numpy"]\n'
    added = propose(text, tmp_path / "pyproject.toml").added
    assert f"{DOCS}/reference/config.md" in added
    assert not LOCAL_DOCS.search(added.replace(DOCS, ""))
