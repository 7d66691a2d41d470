"""Where receipts go and what they are called: an existing unbound evidence folder, how many runs are kept,
run ids that sort by time, and a repository whose object ids are SHA-256 (64 characters)."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

import pytest

from tests.support.cli import cli_json
from tests.support.gitrepo import check, git, make_repo, write_config
from tierlock.evidence import store

OK = "print('all good')\n"


pytestmark = pytest.mark.usefixtures("git_identity")


def test_outside_git_an_existing_tierlock_folder_without_its_gitignore_gets_one_and_the_run_works(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    folder = tmp_path / "plain"
    (folder / ".tierlock").mkdir(parents=True)  # made by hand, or its .gitignore deleted
    (folder / "ok.py").write_text(OK)
    write_config(folder, [check("unit", "ok.py")])
    code, doc = cli_json(capsys, "--project", str(folder), "verify", "--json")
    assert (code, doc["result"], doc["bound"]) == (0, "passed", False)
    assert (folder / ".tierlock" / ".gitignore").read_text().splitlines()[-1] == "*"
    assert Path(doc["receipt"]).is_relative_to(folder / ".tierlock" / "evidence")
    git(folder, "init", "-q", "-b", "main")
    git(folder, "add", "-A")
    assert ".tierlock" not in git(folder, "ls-files", "--cached")


@pytest.mark.parametrize(
    ("value", "kept"),
    [("2", 2), (" 3 ", 3), ("1", 1), ("0", 20), ("-1", 20), ("two", 20), ("", 20), ("2.5", 20)],
)
def test_the_keep_variable_counts_when_it_is_a_positive_whole_number(
    monkeypatch: pytest.MonkeyPatch, value: str, kept: int
) -> None:
    monkeypatch.setenv("TIERLOCK_EVIDENCE_KEEP", value)
    assert store.keep_from_env() == kept


def test_the_keep_variable_keeps_that_many_runs(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    repo = make_repo(tmp_path / "r", {"ok.py": OK}, [check("unit", "ok.py")])
    monkeypatch.setenv("TIERLOCK_EVIDENCE_KEEP", "2")
    ids = [cli_json(capsys, "--project", str(repo), "verify", "--json")[1]["runId"] for _ in range(3)]
    kept = sorted(p.name for p in (repo / ".git" / "tierlock" / "evidence").iterdir() if not p.name.startswith("."))
    assert kept == ids[1:]


@pytest.mark.parametrize("fraction", [0.0, 0.5, 0.99999976158142090])
def test_a_run_id_shows_six_digits_of_its_second_so_run_ids_sort_by_time(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, fraction: float
) -> None:
    """Even a moment a hair before the next second has six digits (a seventh would sort after 'Z')."""
    now = 1700000000 + fraction
    monkeypatch.setattr(time, "time", lambda: now)
    run_id, folder = store.new_run(tmp_path / "evidence")
    stamp = run_id.split("-", 1)[0]
    assert stamp == "20231114T221320." + f"{int(fraction * 1_000_000):06d}" + "Z"
    assert folder == tmp_path / "evidence" / run_id
    assert folder.is_dir()


def _sha256_repo(folder: Path) -> Path | None:
    folder.mkdir(parents=True)
    try:
        git(folder, "init", "-q", "--object-format=sha256", "-b", "main")
    except subprocess.CalledProcessError:  # a git without SHA-256 repositories
        return None
    return folder


def test_a_sha256_repository_binds_its_receipts_and_the_gate_verifies_them(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    repo = _sha256_repo(tmp_path / "r")
    if repo is None:
        pytest.skip("this git cannot make SHA-256 repositories")
    (repo / "ok.py").write_text(OK)
    write_config(repo, [check("unit", "ok.py")])
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "first")
    commit = git(repo, "rev-parse", "HEAD").strip()
    assert len(commit) == 64
    code, doc = cli_json(capsys, "--project", str(repo), "verify", "--json")
    assert (code, doc["result"], doc["bound"], doc["usable"], doc["commit"]) == (0, "passed", True, True, commit)
    assert doc["tree"] == git(repo, "rev-parse", "HEAD^{tree}").strip()
    code, gate = cli_json(capsys, "--project", str(repo), "verified", "--json")
    assert (code, gate["reason"], gate["commit"]) == (0, "verified", commit)
    (repo / "ok.py").write_text(OK + "# changed\n")
    git(repo, "commit", "-q", "-am", "second")
    code, gate = cli_json(capsys, "--project", str(repo), "verified", "--json")
    assert (code, gate["reason"], gate["files"]) == (1, "stale", ["ok.py"])


@pytest.mark.parametrize("data", ['{"receiptVersion": 99, "result": "passed"}', '["receiptVersion", 1]', "{", ""])
def test_only_a_receipt_of_this_version_is_read(tmp_path: Path, data: str) -> None:
    path = tmp_path / "receipt.json"
    path.write_text(data)
    assert store.read(path) is None
    path.write_text('{"receiptVersion": 1, "result": "passed"}')
    assert store.read(path) == {"receiptVersion": 1, "result": "passed"}
