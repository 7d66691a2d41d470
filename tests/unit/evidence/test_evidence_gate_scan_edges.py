"""The gate reads past a run folder whose receipt cannot be read, and caps the uncommitted paths it names."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.gitrepo import check, make_repo, verified_json, verify_json
from tierlock.evidence import IN_GIT_DIR, MAX_LISTED

pytestmark = pytest.mark.usefixtures("git_identity")


def test_a_newer_run_folder_without_a_readable_receipt_is_passed_over(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    repo = make_repo(tmp_path / "r", {"ok.py": "print('ok')\n"}, [check("unit", "ok.py")])
    assert verify_json(capsys, repo)[0] == 0
    evidence = repo / ".git" / Path(*IN_GIT_DIR)
    broken = evidence / "99991231T235959.000000Z-1-000000"  # sorts after every real run: read first
    broken.mkdir()
    (broken / "receipt.json").write_text("{not json", encoding="utf-8")
    code, gate = verified_json(capsys, repo)
    assert (code, gate["reason"]) == (0, "verified")


def test_the_uncommitted_paths_named_are_capped_at_five_times_the_listed_number(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    repo = make_repo(tmp_path / "r", {"ok.py": "print('ok')\n"}, [check("unit", "ok.py")])
    assert verify_json(capsys, repo)[0] == 0
    for n in range(MAX_LISTED * 5 + 3):
        (repo / f"new{n:03}.txt").write_text(json.dumps(n), encoding="utf-8")
    code, gate = verified_json(capsys, repo)
    assert (code, gate["reason"]) == (1, "uncommitted")
    assert len(gate["files"]) == MAX_LISTED * 5
