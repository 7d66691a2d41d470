"""The edges of evidence: an evidence folder inside the tree, receipts that contradict themselves, escapees.

Real git repositories and real processes: ``--evidence-dir`` inside the working tree is kept out of
the tree check (runs keep working, the gate accepts them); a receipt whose ``commit`` does not name its
``tree``, or whose ``result`` disagrees with its commands, is not evidence; a child that leaves the
process group with ``setsid`` is found through the run's mark in its environment, ended and reported.
"""

from __future__ import annotations

import json
import os
import tempfile
import time
from pathlib import Path
from typing import Any

import pytest

from tests.support.gitrepo import check, commit_all, git, make_repo, receipt_of, verified_json, verify_json

OK = "print('ok')\n"
FAIL = "raise SystemExit(1)\n"
#: Starts a grandchild in a new session (out of the command's process group) that edits a tracked file
#: after a pause (argv[2] seconds; a token on its command line); writes its pid to argv[1] and exits 0 at once.
ESCAPE = """\
import subprocess, sys
code = "import time; time.sleep(float(__import__('sys').argv[1])); open('README.txt', 'a').write('edited later\\\\n')"
token = "ghp_" + "E" * 36
child = subprocess.Popen([sys.executable, "-c", code, sys.argv[2], "--token", token], start_new_session=True)
open(sys.argv[1], "w").write(str(child.pid))
"""

pytestmark = pytest.mark.usefixtures("git_identity")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def test_an_evidence_dir_inside_the_working_tree_is_kept_out_of_the_tree_check(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    repo = make_repo(tmp_path / "r", {"ok.py": OK}, [check("unit", "ok.py")])
    evidence = repo / "evidence"
    for _ in range(2):  # the second run is not refused as dirty by the first one's folder
        code, doc = verify_json(capsys, repo, "--evidence-dir", str(evidence))
        assert (code, doc["usable"]) == (0, True), doc
        assert Path(doc["receipt"]).is_relative_to(evidence)
    code, gate = verified_json(capsys, repo, "--evidence-dir", str(evidence))
    assert (code, gate["reason"]) == (0, "verified")


def test_an_evidence_dir_that_is_the_working_tree_itself_is_refused_before_anything_runs(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    repo = make_repo(tmp_path / "r", {"ok.py": OK}, [check("unit", "ok.py")])
    code, doc = verify_json(capsys, repo, "--evidence-dir", str(repo))
    assert (code, doc["result"]) == (2, "refused")
    assert "--evidence-dir" in doc["error"]["message"]
    assert git(repo, "status", "--porcelain") == ""


@pytest.mark.parametrize("shape", ["a file", "under a file", "read-only", "the default under a file"])
def test_an_evidence_dir_that_cannot_be_a_folder_is_a_usage_error_before_anything_runs(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, shape: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))  # where a remedy may send the evidence
    marker = tmp_path / "ran"
    repo = make_repo(tmp_path / "r", {"ok.py": f"open({str(marker)!r}, 'w').close()\n"}, [check("unit", "ok.py")])
    blocker = tmp_path / "afile"
    blocker.write_text("not a folder\n")
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o500)
    (tmp_path / "tmp").mkdir()
    chosen = {"a file": blocker, "under a file": blocker / "evidence", "read-only": locked / "evidence"}.get(shape)
    if shape == "read-only" and os.access(locked, os.W_OK):
        pytest.skip("this user writes into a 0500 folder (root without a read-only mount)")
    if chosen is None:
        (repo / ".git" / "tierlock").write_text("in the way of the default evidence folder\n")
    code, doc = verify_json(capsys, repo, *(["--evidence-dir", str(chosen)] if chosen else []))
    assert (code, doc["result"]) == (2, "refused"), doc
    assert doc["error"]["kind"] == "usage", doc
    assert str(chosen or "") in doc["error"]["message"]
    assert not marker.exists()  # nothing ran
    (remedy,) = doc["error"]["remedy_argv"]
    assert remedy[:4] == ["tierlock", "--project", str(repo), "verify"]
    code, doc = verify_json(capsys, repo, *remedy[4:])
    assert (code, doc["result"]) == (0, "passed"), doc
    assert marker.exists()


def _edit_receipt(doc: dict[str, Any], **changes: Any) -> None:
    path = Path(doc["receipt"])
    receipt = json.loads(path.read_text(encoding="utf-8"))
    receipt.update(changes)
    path.write_text(json.dumps(receipt), encoding="utf-8")


def test_a_receipt_whose_commit_does_not_name_its_tree_is_not_evidence(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    repo = make_repo(tmp_path / "r", {"ok.py": OK, "lib.py": "X = 1\n"}, [check("unit", "ok.py")])
    code, doc = verify_json(capsys, repo)
    assert code == 0
    (repo / "lib.py").write_text("X = 2\n")
    commit_all(repo, "a change never verified")
    tree = git(repo, "rev-parse", "HEAD^{tree}").strip()
    _edit_receipt(doc, tree=tree)  # the old commit, the new tree
    code, gate = verified_json(capsys, repo)
    assert (code, gate["reason"]) == (1, "inconsistent")
    assert "does not name" in gate["message"]


@pytest.mark.parametrize(
    "forged",
    [
        {"result": "passed", "ok": True},
        {"result": "passed", "ok": True, "blocker": None, "evidence": {"usable": True, "reasons": []}},
    ],
)
def test_a_receipt_whose_result_disagrees_with_its_commands_is_not_evidence(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, forged: dict[str, Any]
) -> None:
    repo = make_repo(tmp_path / "r", {"ok.py": OK, "fail.py": FAIL}, [check("a", "ok.py"), check("b", "fail.py")])
    code, doc = verify_json(capsys, repo)
    assert code == 1
    _edit_receipt(doc, **forged)
    code, gate = verified_json(capsys, repo)
    assert (code, gate["reason"]) == (1, "inconsistent")
    assert "b" in gate["message"]


def test_a_passed_receipt_without_a_single_check_is_not_evidence(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    repo = make_repo(tmp_path / "r", {"ok.py": OK}, [check("a", "ok.py")])
    code, doc = verify_json(capsys, repo)
    assert code == 0
    _edit_receipt(doc, commands=[])
    code, gate = verified_json(capsys, repo)
    assert (code, gate["reason"]) == (1, "inconsistent")


def test_a_child_that_escapes_the_process_group_is_found_ended_and_reported(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    pid_file = tmp_path / "escapee.pid"
    repo = make_repo(
        tmp_path / "r",
        {"escape.py": ESCAPE, "ok.py": OK, "README.txt": "hi\n"},
        [check("escapes", "escape.py", str(pid_file), "3"), check("unit", "ok.py")],
    )
    code, doc = verify_json(capsys, repo)
    pid = int(pid_file.read_text())
    assert not _alive(pid), "the escaped process outlived the run"
    assert code == 0, doc
    escaped = receipt_of(doc)["escapedProcesses"]
    assert [e["pid"] for e in escaped] == [pid]
    assert escaped[0]["stopped"] is True
    assert doc["escapedProcesses"] == escaped
    assert "--token [redacted]" in escaped[0]["command"]
    assert "EEEEEEEE" not in Path(doc["receipt"]).read_text()
    time.sleep(3.5)  # past the moment it would have edited README.txt
    assert git(repo, "status", "--porcelain") == ""
    assert (repo / "README.txt").read_text() == "hi\n"
    assert verified_json(capsys, repo)[0] == 0
