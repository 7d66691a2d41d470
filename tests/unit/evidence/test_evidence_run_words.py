"""The exact words a run records: a failed setup's exit code or signal, the blocked gate's remedy, why an
unbound run is not evidence; and what a run leaves around a folder the user named, or an abandoned run."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from tests.support.cli import cli_json
from tests.support.gitrepo import check, make_repo, write_config
from tierlock.evidence import RECEIPT_VERSION, store

OK = "print('all good')\n"
EXIT_3 = "raise SystemExit(3)\n"
KILLED = "import os, signal\nos.kill(os.getpid(), signal.SIGKILL)\n"


pytestmark = pytest.mark.usefixtures("git_identity")


@pytest.mark.parametrize(("script", "how"), [(EXIT_3, "exit 3"), (KILLED, "signal 9")], ids=["exit", "signal"])
def test_a_failed_setup_says_how_it_ended(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, script: str, how: str
) -> None:
    repo = make_repo(
        tmp_path / "r", {"ok.py": OK, "arm.py": script}, [check("unit", "ok.py")], [check("arm", "arm.py")]
    )
    code, doc = cli_json(capsys, "--project", str(repo), "verify", "--json")
    assert (code, doc["blocker"]["kind"]) == (3, "setup")
    assert doc["blocker"]["reason"] == f"setup command arm failed ({how}); verification did not run"


def test_the_gate_of_a_blocked_run_prints_the_blockers_action_then_verify(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    repo = make_repo(tmp_path / "r", {"ok.py": OK}, [{"key": "lint", "command": "no-such-tool-tierlock"}])
    _, run = cli_json(capsys, "--project", str(repo), "verify", "--json")
    action = run["blocker"]["requiredAction"]
    assert action.startswith("install no-such-tool-tierlock or put it on PATH")
    code, gate = cli_json(capsys, "--project", str(repo), "verified", "--json")
    assert (code, gate["reason"]) == (1, "blocked")
    assert gate["remedy"] == f"{action}; then: tierlock --project {repo} verify"


def test_an_unbound_run_says_why_outside_git_and_in_a_repository_without_commits(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / "ok.py").write_text(OK)
    write_config(plain, [check("unit", "ok.py")])
    _, doc = cli_json(capsys, "--project", str(plain), "verify", "--json")
    assert (doc["result"], doc["usable"]) == ("passed", False)
    assert doc["unusableBecause"] == ["not bound to a commit: no git checkout"]
    fresh = make_repo(tmp_path / "fresh", {"ok.py": OK}, [check("unit", "ok.py")], commit=False)
    _, doc = cli_json(capsys, "--project", str(fresh), "verify", "--json")
    assert (doc["result"], doc["usable"]) == ("passed", False)
    assert doc["unusableBecause"] == ["not bound to a commit: the repository has no commit"]


def test_an_evidence_folder_the_user_names_gets_nothing_written_beside_it(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """Only tierlock's own default folder outside git gets a ``.gitignore`` next to it."""
    repo = make_repo(tmp_path / "r", {"ok.py": OK}, [check("unit", "ok.py")])
    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / "ok.py").write_text(OK)
    write_config(plain, [check("unit", "ok.py")])
    for project in (repo, plain):
        chosen = tmp_path / f"{project.name}-runs" / ".tierlock" / "evidence"
        code, doc = cli_json(capsys, "--project", str(project), "verify", "--json", "--evidence-dir", str(chosen))
        assert (code, doc["result"]) == (0, "passed")
        assert Path(doc["receipt"]).is_relative_to(chosen)
        assert [p.name for p in chosen.parent.iterdir()] == ["evidence"]
    assert not (plain / ".tierlock").exists()


def test_an_abandoned_run_recorded_with_pid_0_counts_as_finished_and_is_pruned(tmp_path: Path) -> None:
    """A receipt still "running" whose pid is 0 names no process: a day later it is an old run like any other."""
    evidence = tmp_path / "evidence"
    _, abandoned = store.new_run(evidence)
    store.write(abandoned, {"receiptVersion": RECEIPT_VERSION, "result": "running", "pid": 0})
    two_days_ago = time.time() - 2 * 24 * 3600
    os.utime(abandoned, (two_days_ago, two_days_ago))
    _, finished = store.new_run(evidence)
    store.write(finished, {"receiptVersion": RECEIPT_VERSION, "result": "passed", "pid": os.getpid()})
    assert store.prune(evidence, keep=1) == [abandoned]
    assert list(evidence.iterdir()) == [finished]


def test_a_run_folder_without_a_receipt_yet_is_never_pruned_while_it_is_recent(tmp_path: Path) -> None:
    """A run that has just made its folder (no receipt yet) may be going: retention leaves it for a day."""
    evidence = tmp_path / "evidence"
    _, starting = store.new_run(evidence)
    finished = []
    for _ in range(2):
        _, folder = store.new_run(evidence)
        store.write(folder, {"receiptVersion": RECEIPT_VERSION, "result": "passed", "pid": os.getpid()})
        finished.append(folder)
    assert store.prune(evidence, keep=1) == [finished[0]]
    assert sorted(evidence.iterdir()) == sorted([starting, finished[1]])
    two_days_ago = time.time() - 2 * 24 * 3600
    os.utime(starting, (two_days_ago, two_days_ago))
    _, newest = store.new_run(evidence)
    store.write(newest, {"receiptVersion": RECEIPT_VERSION, "result": "passed", "pid": os.getpid()})
    assert store.prune(evidence, keep=1) == [finished[1], starting]
