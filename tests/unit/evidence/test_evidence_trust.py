"""A receipt that claims a pass must not contradict itself, and its commit must name its tree.

Receipts as dictionaries, and a real git repository for the commit and tree.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.support.gitrepo import commit_all, git
from tierlock.evidence import trust


def _passed(**changes: Any) -> dict[str, Any]:
    document: dict[str, Any] = {
        "result": "passed",
        "ok": True,
        "blocker": None,
        "commands": [
            {"list": "setup", "key": "arm", "status": "passed", "exitCode": 0},
            {"list": "verification", "key": "unit", "status": "passed", "exitCode": 0},
        ],
    }
    document.update(changes)
    return document


def test_a_consistent_pass_has_no_contradiction() -> None:
    assert trust.contradiction(_passed()) is None


@pytest.mark.parametrize(
    ("changes", "words"),
    [
        ({"ok": False}, "ok is not true"),
        ({"ok": "yes"}, "ok is not true"),
        ({"commands": None}, "no commands"),
        ({"commands": ["unit"]}, "no commands"),
        ({"commands": []}, "without running a single verification check"),
        ({"commands": [{"list": "setup", "status": "passed", "exitCode": 0}]}, "without running a single"),
        (
            {"commands": [{"list": "verification", "key": "unit", "status": "failed", "exitCode": 1}]},
            "did not all pass (unit)",
        ),
        (
            {"commands": [{"list": "verification", "command": "pytest", "status": "passed", "exitCode": 2}]},
            "did not all pass (pytest)",
        ),
        ({"blocker": {"kind": "timeout"}}, "records a blocker"),
    ],
)
def test_a_pass_that_contradicts_itself_says_how(changes: dict[str, Any], words: str) -> None:
    problem = trust.contradiction(_passed(**changes))
    assert problem is not None
    assert words in problem


@pytest.mark.usefixtures("git_identity")
def test_a_commit_names_its_own_tree_only(tmp_path: Path) -> None:
    git(tmp_path, "init", "-q", "-b", "main")
    (tmp_path / "a").write_text("1")
    commit_all(tmp_path, "one")
    first, first_tree = git(tmp_path, "rev-parse", "HEAD", "HEAD^{tree}").split()
    (tmp_path / "a").write_text("2")
    commit_all(tmp_path, "two")
    second_tree = git(tmp_path, "rev-parse", "HEAD^{tree}").strip()
    top = str(tmp_path)
    assert trust.commit_names_tree(top, first, first_tree) is True
    assert trust.commit_names_tree(top, first, second_tree) is False
    assert trust.commit_names_tree(top, "f" * 40, first_tree) is False
    assert trust.commit_names_tree(top, "HEAD", second_tree) is False  # not an object id
    assert trust.commit_names_tree(top, None, first_tree) is False
    assert trust.commit_names_tree(top, first, None) is False
