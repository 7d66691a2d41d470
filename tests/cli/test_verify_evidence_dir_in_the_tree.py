"""``--evidence-dir`` inside the working tree leaves out what tierlock writes there, nothing else (runtime12).

Before, the whole folder was left out of every tree check: ``tierlock verify --evidence-dir src`` ran on an
uncommitted edit of ``src/lib.py`` as on a clean tree and recorded evidence for HEAD's tree, and ``tierlock
verified --evidence-dir src`` said that tree verified while the committed ``src/lib.py`` fails the check. Now
only the run folders and the validator's record are left out: a tracked file of the folder, and a file of
anyone else's in it, count as they count anywhere else, at the start, at the end and in the gate; the printed
remedy run as printed brings the tree back; a folder whose name holds glob characters is left out as named.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.gitrepo import check, make_repo, verified_json, verify_json

OK = "import sys\nsys.path.insert(0, 'src')\nimport lib\nassert lib.X == 1, lib.X\nprint('ok')\n"

pytestmark = pytest.mark.usefixtures("git_identity")


def shell(command: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """A printed remedy run exactly as printed, with this venv's scripts on PATH."""
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    return subprocess.run(command, shell=True, cwd=cwd, env=env, capture_output=True, text=True, check=False)


def _repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "r", {"ok.py": OK, "src/lib.py": "X = 1\n"}, [check("unit", "ok.py")])


def test_a_tracked_file_in_the_evidence_folder_is_still_checked_by_the_gate(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    repo = _repo(tmp_path)
    evidence = str(repo / "src")
    assert verify_json(capsys, repo, "--evidence-dir", evidence)[:1] == (0,)
    assert verified_json(capsys, repo, "--evidence-dir", evidence)[0] == 0
    (repo / "src" / "lib.py").write_text("X = 2\n")
    code, gate = verified_json(capsys, repo, "--evidence-dir", evidence)
    assert (code, gate["reason"], gate["files"]) == (1, "uncommitted", ["src/lib.py"])
    assert shell(gate["remedy"], tmp_path).returncode == 0
    assert verified_json(capsys, repo, "--evidence-dir", evidence)[0] == 0


def test_verify_refuses_an_edit_in_the_evidence_folder_and_its_printed_remedy_fixes_it(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    from tierlock.cli import main

    repo = _repo(tmp_path)
    (repo / "src" / "lib.py").write_text("X = 2\n")
    (repo / "src" / "extra.py").write_text("Y = 1\n")
    capsys.readouterr()
    assert main(["--project", str(repo), "verify", "--evidence-dir", str(repo / "src")]) == 2
    err = capsys.readouterr().err
    assert "2 uncommitted change(s) (src/lib.py, src/extra.py)" in err
    remedy = err.split("to fix:", 1)[1].split("   # or commit", 1)[0].strip()
    ran = shell(remedy, tmp_path)
    assert ran.returncode == 0, ran.stderr
    code, doc = verify_json(capsys, repo, "--evidence-dir", str(repo / "src"))
    assert (code, doc["usable"]) == (0, True)


def test_a_command_that_edits_a_tracked_file_of_the_evidence_folder_makes_the_receipt_unusable(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    edit = "import pathlib\npathlib.Path('src/lib.py').write_text('X = 3\\n')\n"
    checks = [check("unit", "ok.py"), check("edit", "edit.py")]
    repo = make_repo(tmp_path / "r", {"ok.py": OK, "src/lib.py": "X = 1\n", "edit.py": edit}, checks)
    code, doc = verify_json(capsys, repo, "--evidence-dir", str(repo / "src"))
    assert (code, doc["usable"]) == (0, False)
    assert "the working tree changed during the run: src/lib.py" in str(doc)


@pytest.mark.parametrize("name", ["evidence", "ev*[1]?", "deep/ev\\x"])
def test_runs_in_an_evidence_folder_in_the_tree_leave_it_clean_whatever_its_name(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, name: str
) -> None:
    repo = _repo(tmp_path)
    evidence = str(repo / name)
    for _ in range(2):  # the second run is not refused for the first one's folder and record
        code, doc = verify_json(capsys, repo, "--evidence-dir", evidence)
        assert (code, doc["usable"]) == (0, True), doc
    assert verified_json(capsys, repo, "--evidence-dir", evidence)[0] == 0
    (repo / name / "notes.txt").write_text("someone else's\n")
    code, gate = verified_json(capsys, repo, "--evidence-dir", evidence)
    assert (code, gate["reason"]) == (1, "uncommitted")
    (repo / name / "notes.txt").unlink()
    assert verified_json(capsys, repo, "--evidence-dir", evidence)[0] == 0
