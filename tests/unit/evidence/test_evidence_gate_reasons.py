"""Each reason of ``tierlock verified`` in its exact words: many changed files, an unbound newest run, a config
changed or made without --config-from, a run without a setup, a run that edited the tree; remedies quoted."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.cli import cli_json
from tests.support.gitrepo import check, commit_all, git, make_repo, write_config

OK = "print('all good')\n"
EDIT = "open('README.txt', 'a').write('edited during the run\\n')\n"


pytestmark = pytest.mark.usefixtures("git_identity")


def _shell(command: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    return subprocess.run(command, shell=True, cwd=cwd, env=env, capture_output=True, text=True, check=False)


def test_a_stale_receipt_lists_twenty_changed_files_and_counts_the_rest(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    names = [f"f{i:03d}.txt" for i in range(130)]
    repo = make_repo(tmp_path / "r", {"ok.py": OK, **dict.fromkeys(names, "a\n")}, [check("unit", "ok.py")])
    cli_json(capsys, "--project", str(repo), "verify", "--json")
    for name in names:
        (repo / name).write_text("b\n")
    commit_all(repo)
    code, gate = cli_json(capsys, "--project", str(repo), "verified", "--json")
    assert (code, gate["reason"]) == (1, "stale")
    assert gate["files"] == names[:100]
    assert gate["message"].endswith(f"'s tree; changed since: {', '.join(names[:20])} and 110 more")


def test_a_newest_run_that_was_not_bound_says_so(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    evidence = tmp_path / "evidence"
    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / "ok.py").write_text(OK)
    write_config(plain, [check("unit", "ok.py")])
    cli_json(capsys, "--project", str(plain), "verify", "--json", "--evidence-dir", str(evidence))
    repo = make_repo(tmp_path / "r", {"ok.py": OK}, [check("unit", "ok.py")])
    commit = git(repo, "rev-parse", "HEAD").strip()
    code, gate = cli_json(capsys, "--project", str(repo), "verified", "--json", "--evidence-dir", str(evidence))
    assert (code, gate["reason"], gate["files"]) == (1, "stale", [])
    assert gate["message"] == (
        f"the newest receipt is for tree None (commit None), not the current commit {commit[:12]}'s tree"
        " (that run was not bound to a commit)"
    )


def test_a_changed_runtime_config_is_named(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"ok.py": OK}, [check("unit", "ok.py")])
    cli_json(capsys, "--project", str(repo), "verify", "--json")
    write_config(repo, [check("unit", "ok.py", timeoutMs=5000)])  # not committed: the tree is the same
    code, gate = cli_json(capsys, "--project", str(repo), "verified", "--json")
    assert (code, gate["reason"], gate["files"]) == (1, "stale-config", ["tierlock.runtime.json"])
    assert gate["message"] == "the runtime config tierlock.runtime.json changed since the newest receipt for this tree"


def test_config_from_names_a_receipt_made_without_it_and_a_ref_whose_config_moved_on(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    repo = make_repo(tmp_path / "r", {"ok.py": OK}, [check("unit", "ok.py")])
    git(repo, "checkout", "-q", "-b", "feature")
    cli_json(capsys, "--project", str(repo), "verify", "--json")
    code, gate = cli_json(capsys, "--project", str(repo), "verified", "--json", "--config-from", "main")
    assert (code, gate["reason"]) == (1, "config-from-differs")
    assert gate["message"] == "the receipts for this tree were not made with --config-from main"
    assert gate["remedy"] == f"tierlock --project {repo} verify --config-from main"
    cli_json(capsys, "--project", str(repo), "verify", "--json", "--config-from", "main")
    assert cli_json(capsys, "--project", str(repo), "verified", "--json", "--config-from", "main")[0] == 0
    git(repo, "checkout", "-q", "main")
    write_config(repo, [check("unit", "ok.py"), check("more", "ok.py")])
    commit_all(repo, "main adds a check")
    git(repo, "checkout", "-q", "feature")
    code, gate = cli_json(capsys, "--project", str(repo), "verified", "--json", "--config-from", "main")
    assert (code, gate["reason"]) == (1, "config-from-differs")
    assert gate["message"] == "the config committed at main changed since the receipt was made"


def test_a_run_without_setup_and_no_earlier_setup_leaves_the_environment_unproven(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    repo = make_repo(tmp_path / "r", {"ok.py": OK}, [check("unit", "ok.py")], [check("arm", "ok.py")])
    code, doc = cli_json(capsys, "--project", str(repo), "verify", "--json", "--no-setup")
    assert (code, doc["result"]) == (0, "passed")
    code, gate = cli_json(capsys, "--project", str(repo), "verified", "--json")
    assert (code, gate["reason"]) == (1, "setup-stale")
    assert gate["message"] == (
        "the run used --no-setup and no earlier run recorded a setup: the environment is unproven"
    )


def test_a_run_that_edited_the_tree_is_not_evidence_and_says_what_changed(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    repo = make_repo(tmp_path / "r", {"edit.py": EDIT, "README.txt": "hi\n"}, [check("edits", "edit.py")])
    cli_json(capsys, "--project", str(repo), "verify", "--json")
    code, gate = cli_json(capsys, "--project", str(repo), "verified", "--json")
    assert (code, gate["reason"]) == (1, "unusable")
    assert gate["message"] == (
        "the newest run for this tree is not evidence: the working tree changed during the run: README.txt"
    )


def test_a_remedy_quotes_a_folder_with_a_space_and_a_quote_and_runs_as_printed(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    repo = make_repo(tmp_path / "it's a repo", {"ok.py": OK}, [check("unit", "ok.py")])
    evidence = tmp_path / "runs here"
    code, gate = cli_json(capsys, "--project", str(repo), "verified", "--json", "--evidence-dir", str(evidence))
    assert (code, gate["reason"]) == (1, "no-run")
    assert gate["message"] == f"no run of tierlock verify is recorded in {evidence}"
    quoted_repo = "'" + str(repo).replace("'", "'\"'\"'") + "'"
    assert gate["remedy"] == f"tierlock --project {quoted_repo} verify --evidence-dir '{evidence}'"
    assert _shell(gate["remedy"], tmp_path).returncode == 0
    assert cli_json(capsys, "--project", str(repo), "verified", "--json", "--evidence-dir", str(evidence))[0] == 0
