"""The parts of tierlock.evidence on their own: git status parsing, retention, log tails."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.gitrepo import git
from tierlock.evidence import RECEIPT, RECEIPT_VERSION, gitbind, store, tails

pytestmark = pytest.mark.usefixtures("git_identity")


def test_status_names_renamed_staged_untracked_and_spaced_paths(tmp_path: Path) -> None:
    repo = tmp_path / "r"
    repo.mkdir()
    git(repo, "init", "-q")
    (repo / "old name.txt").write_text("a\n" * 20)
    (repo / "kept.txt").write_text("k\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "one")
    commit, paths = gitbind.status(repo)
    assert (commit, paths) == (git(repo, "rev-parse", "HEAD").strip(), [])
    git(repo, "mv", "old name.txt", "new name.txt")
    (repo / "kept.txt").write_text("changed\n")
    (repo / "fresh file.txt").write_text("?\n")
    _, paths = gitbind.status(repo)
    assert sorted(paths) == ["fresh file.txt", "kept.txt", "new name.txt"]


def test_status_in_a_repository_without_commits_has_no_head(tmp_path: Path) -> None:
    git(tmp_path, "init", "-q")
    (tmp_path / "a").write_text("")
    assert gitbind.status(tmp_path) == (None, ["a"])
    found = gitbind.find(tmp_path)
    assert found is not None
    assert (found.commit, found.tree) == (None, None)


def test_a_linked_worktree_keeps_its_evidence_in_its_own_git_dir(tmp_path: Path) -> None:
    repo = tmp_path / "r"
    repo.mkdir()
    git(repo, "init", "-q")
    (repo / "a").write_text("")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "one")
    git(repo, "worktree", "add", "-q", str(tmp_path / "wt"))
    main_checkout, linked = gitbind.find(repo), gitbind.find(tmp_path / "wt")
    assert main_checkout is not None
    assert linked is not None
    assert store.default_dir(main_checkout.git_dir, repo) == repo / ".git" / "tierlock" / "evidence"
    assert store.default_dir(linked.git_dir, linked.top).parent.parent == repo / ".git" / "worktrees" / "wt"


def _finished(evidence: Path, name: str, result: str = "passed", pid: int | None = None) -> Path:
    folder = evidence / name
    folder.mkdir(parents=True)
    document = {"receiptVersion": RECEIPT_VERSION, "result": result, "pid": pid or 1}
    (folder / RECEIPT).write_text(json.dumps(document))
    (folder / "01-verification-x.log").write_text("log\n")
    return folder


def test_retention_never_removes_a_run_that_is_still_going(tmp_path: Path) -> None:
    old = [_finished(tmp_path, f"2026010{i}T000000.000000Z-1-aaaaaa") for i in range(1, 5)]
    going = _finished(tmp_path, "20260105T000000.000000Z-1-aaaaaa", result="running", pid=os.getpid())
    dead = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True, check=True
    )
    crashed = _finished(tmp_path, "20251231T000000.000000Z-1-aaaaaa", result="running", pid=int(dead.stdout))
    removed = store.prune(tmp_path, 2)
    assert sorted(removed) == sorted([old[0], old[1], crashed])
    assert going.is_dir()
    assert [p.name for p in store.runs(tmp_path)] == [going.name, old[3].name, old[2].name]


def test_the_tail_of_a_long_log_is_its_last_lines(tmp_path: Path) -> None:
    log = tmp_path / "x.log"
    log.write_bytes(b"".join(b"line %d\r\n" % i for i in range(100_000)) + b"no newline at the end")
    tail = tails.read(log, str)
    assert tail.lines[-3:] == ("line 99998", "line 99999", "no newline at the end")
    assert (len(tail.lines), tail.cut_lines, tail.cut_chars) == (tails.TAIL_LINES, 100_001 - tails.TAIL_LINES, 0)
    log.write_bytes(b"")
    assert tails.read(log, str) == tails.Tail((), 0, 0)


def test_a_credential_shaped_argument_is_detected_and_shown_redacted(tmp_path: Path) -> None:
    from tierlock.evidence import steps, view
    from tierlock.evidence.config import credential_shaped

    token = "ghp_" + "B" * 36
    config = {"verification": [{"command": "deploy", "args": ["--token", token], "key": "d"}]}
    assert credential_shaped(config) is True
    assert credential_shaped({"verification": [{"command": "pytest", "args": ["-q"]}]}) is False
    [step] = steps.steps(config, "verification", config_dir=tmp_path, checkout=tmp_path)
    assert view.shown(step) == "deploy --token [redacted]"
