"""The exact words of ``tierlock verified``: commits and trees shown as their first 12 characters, the files named."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.cli import cli_json
from tests.support.gitrepo import check, commit_all, git, make_repo
from tierlock.cli import main

OK = "print('all good')\n"
FAIL = "raise SystemExit(4)\n"


pytestmark = pytest.mark.usefixtures("git_identity")


def _head(repo: Path) -> tuple[str, str]:
    return git(repo, "rev-parse", "HEAD").strip(), git(repo, "rev-parse", "HEAD^{tree}").strip()


def test_a_stale_receipt_names_its_tree_its_commit_the_current_commit_and_the_changed_files(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    repo = make_repo(tmp_path / "r", {"ok.py": OK, "b.py": OK}, [check("unit", "ok.py")])
    code, run = cli_json(capsys, "--project", str(repo), "verify", "--json")
    assert code == 0
    old_commit, old_tree = _head(repo)
    (repo / "b.py").write_text(OK + "# changed\n")
    commit_all(repo)
    new_commit, _ = _head(repo)
    code, gate = cli_json(capsys, "--project", str(repo), "verified", "--json")
    assert (code, gate["reason"], gate["files"], gate["runId"]) == (1, "stale", ["b.py"], run["runId"])
    assert gate["message"] == (
        f"the newest receipt is for tree {old_tree[:12]} (commit {old_commit[:12]}), "
        f"not the current commit {new_commit[:12]}'s tree; changed since: b.py"
    )


def test_a_verified_tree_names_its_commit_tree_and_run(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"ok.py": OK}, [check("unit", "ok.py")])
    _, run = cli_json(capsys, "--project", str(repo), "verify", "--json")
    commit, tree = _head(repo)
    code, gate = cli_json(capsys, "--project", str(repo), "verified", "--json")
    assert (code, gate["ok"], gate["verified"], gate["reason"]) == (0, True, True, "verified")
    assert gate["message"] == f"commit {commit[:12]} (tree {tree[:12]}) was verified by run {run['runId']}"
    assert (gate["commit"], gate["tree"], gate["remedy"]) == (commit, tree, None)
    capsys.readouterr()
    assert main(["--project", str(repo), "verified"]) == 0
    assert capsys.readouterr() == (f"verified: {gate['message']}\n", "")


def test_only_partial_runs_name_the_tree_and_say_neither_is_evidence(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    repo = make_repo(tmp_path / "r", {"ok.py": OK}, [check("a", "ok.py"), check("b", "ok.py")])
    _, run = cli_json(capsys, "--project", str(repo), "verify", "--json", "--only", "a")
    _, tree = _head(repo)
    code, gate = cli_json(capsys, "--project", str(repo), "verified", "--json")
    assert (code, gate["reason"], gate["runId"]) == (1, "dirty", run["runId"])
    assert gate["message"] == (
        f"the only runs for tree {tree[:12]} were partial (--only) "
        "or on a dirty tree (--allow-dirty); neither is evidence"
    )


def test_a_failed_run_names_the_failing_checks_and_the_remedy_runs_verify_again(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    repo = make_repo(tmp_path / "r", {"ok.py": OK, "bad.py": FAIL}, [check("a", "ok.py"), check("b", "bad.py")])
    cli_json(capsys, "--project", str(repo), "verify", "--json")
    code, gate = cli_json(capsys, "--project", str(repo), "verified", "--json")
    assert (code, gate["reason"]) == (1, "failed")
    assert gate["message"] == f"the newest run for this tree and config failed (b): receipt {gate['receipt']}"
    assert gate["remedy"] == f"fix the failing check(s) (b) and commit; then: tierlock --project {repo} verify"
    capsys.readouterr()
    assert main(["--project", str(repo), "verified"]) == 1
    out, err = capsys.readouterr()
    assert (out, err) == ("", f"not verified (failed): {gate['message']}\n  to fix: {gate['remedy']}\n")
