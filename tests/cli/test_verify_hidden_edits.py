"""Edits git status does not show: files flagged assume-unchanged or skip-worktree (runtime12).

``git update-index --assume-unchanged lib.py`` (or ``--skip-worktree``, a common way to keep a local
setting out of commits) makes ``git status`` and ``git stash`` pass an edited ``lib.py`` by. Before,
``tierlock verify`` ran on it as on a clean tree and recorded evidence for HEAD's tree, and
``tierlock verified`` said a tree verified when the file tested was not the file committed. Now such
an edit is an uncommitted change like any other: verify refuses to start, names it, and its printed
remedy (the flags cleared, then the stash) brings the tree back; the gate says no; an edit a command
makes to a flagged file during the run makes the receipt unusable. A flagged file left as committed,
and a skip-worktree file a sparse checkout leaves out, are no change.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.support.gitrepo import check, git, make_repo, verified_json, verify_json

#: The check passes on the committed lib.py only.
OK = "import lib\nassert lib.X == 1, lib.X\nprint('ok')\n"

pytestmark = pytest.mark.usefixtures("git_identity")


def shell(command: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """A printed remedy run exactly as printed, with this venv's scripts on PATH."""
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    return subprocess.run(command, shell=True, cwd=cwd, env=env, capture_output=True, text=True, check=False)


def _edited(repo: Path) -> None:
    (repo / "lib.py").write_text("X = 2\n")


def _deleted(repo: Path) -> None:
    (repo / "lib.py").unlink()


def _folder(repo: Path) -> None:
    (repo / "lib.py").unlink()
    (repo / "lib.py").mkdir()


def _crlf(repo: Path) -> None:
    (repo / "lib.py").write_bytes(b"X = 1\r\n")


EDITS: dict[str, Callable[[Path], None]] = {"edited": _edited, "deleted": _deleted, "a folder": _folder, "crlf": _crlf}
FLAGS = {"assume-unchanged": ["--assume-unchanged"], "skip-worktree": ["--skip-worktree"]}
FLAGS["both"] = FLAGS["assume-unchanged"] + FLAGS["skip-worktree"]


def _repo(tmp_path: Path, flag: str) -> Path:
    repo = make_repo(tmp_path / "r", {"ok.py": OK, "lib.py": "X = 1\n"}, [check("unit", "ok.py")])
    git(repo, "update-index", *FLAGS[flag], "lib.py")
    return repo


@pytest.mark.parametrize("edit", list(EDITS))
@pytest.mark.parametrize("flag", list(FLAGS))
def test_a_hidden_edit_is_an_uncommitted_change_to_verify_and_to_the_gate(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, flag: str, edit: str
) -> None:
    repo = _repo(tmp_path, flag)
    assert verify_json(capsys, repo)[0] == 0
    EDITS[edit](repo)
    assert git(repo, "status", "--porcelain") == ""  # what git itself says
    code, gate = verified_json(capsys, repo)
    assert (code, gate["reason"], gate["files"]) == (1, "uncommitted", ["lib.py"])
    assert shell(gate["remedy"], tmp_path).returncode == 0
    assert verified_json(capsys, repo)[0] == 0
    assert (repo / "lib.py").read_text() == "X = 1\n"


@pytest.mark.parametrize("flag", list(FLAGS))
def test_verify_refuses_to_start_on_a_hidden_edit_and_its_printed_remedy_fixes_it(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, flag: str
) -> None:
    from tierlock.cli import main

    repo = _repo(tmp_path, flag)
    _edited(repo)
    capsys.readouterr()
    assert main(["--project", str(repo), "verify"]) == 2
    err = capsys.readouterr().err
    assert "1 uncommitted change(s) (lib.py)" in err
    remedy = err.split("to fix:", 1)[1].split("   # or commit", 1)[0].strip()
    ran = shell(remedy, tmp_path)
    assert ran.returncode == 0, ran.stderr
    code, doc = verify_json(capsys, repo)
    assert (code, doc["usable"]) == (0, True)


def test_a_command_that_edits_a_flagged_file_makes_the_receipt_unusable(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    edit = "import pathlib\npathlib.Path('lib.py').write_text('X = 3\\n')\n"
    checks = [check("unit", "ok.py"), check("edit", "edit.py")]
    repo = make_repo(tmp_path / "r", {"ok.py": OK, "lib.py": "X = 1\n", "edit.py": edit}, checks)
    git(repo, "update-index", "--skip-worktree", "lib.py")
    code, doc = verify_json(capsys, repo)
    assert (code, doc["usable"]) == (0, False)  # the checks passed; the receipt is no evidence
    assert "the working tree changed during the run: lib.py" in str(doc)
    assert verified_json(capsys, repo)[0] == 1


def test_a_flagged_file_as_committed_and_a_sparse_checkouts_absent_file_are_no_change(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    repo = make_repo(
        tmp_path / "r", {"ok.py": "print('ok')\n", "lib.py": "X = 1\n", "far/data.txt": "d\n"}, [check("unit", "ok.py")]
    )
    git(repo, "update-index", "--assume-unchanged", "lib.py")
    git(repo, "sparse-checkout", "set", "--no-cone", "/*", "!/far/")
    assert not (repo / "far" / "data.txt").exists()
    code, doc = verify_json(capsys, repo)
    assert (code, doc["usable"]) == (0, True)
    assert verified_json(capsys, repo)[0] == 0


def test_the_remedy_of_an_ordinary_edit_is_the_stash_alone(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    from tierlock.cli import main

    repo = make_repo(tmp_path / "r", {"ok.py": OK, "lib.py": "X = 1\n"}, [check("unit", "ok.py")])
    (repo / "notes.txt").write_text("untracked\n")
    capsys.readouterr()
    assert main(["--project", str(repo), "verify"]) == 2
    remedy = capsys.readouterr().err.split("to fix:", 1)[1].split("   # or commit", 1)[0].strip()
    assert remedy == f"git -C {repo} stash push --include-untracked"


def test_flagged_symlinks_count_by_their_target_and_every_batch_is_hashed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tierlock.evidence import hiddenedits

    repo = make_repo(tmp_path / "r", {"a.py": "A\n", "b.py": "B\n", "c.py": "C\n"}, [check("unit", "a.py")])
    (repo / "link").symlink_to("a.py")
    (repo / "other").symlink_to("b.py")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "links")
    git(repo, "update-index", "--assume-unchanged", "a.py", "b.py", "c.py", "link", "other")
    monkeypatch.setattr(hiddenedits, "BATCH", 2)  # three files: two batches
    assert hiddenedits.hidden(str(repo), []) == []
    (repo / "link").unlink()
    (repo / "link").symlink_to("b.py")  # another target
    (repo / "other").unlink()
    (repo / "other").write_text("B\n")  # a file where the link was
    (repo / "c.py").write_text("C2\n")  # in the second batch
    (repo / "a.py").unlink()  # gone, before the others: they are still looked at
    assert hiddenedits.hidden(str(repo), []) == ["a.py", "c.py", "link", "other"]


def test_a_sparse_checkouts_absent_file_does_not_end_the_search(tmp_path: Path) -> None:
    from tierlock.evidence import hiddenedits

    files = {"ok.py": "print('ok')\n", "far/data.txt": "d\n", "lib.py": "X = 1\n"}
    repo = make_repo(tmp_path / "r", files, [check("unit", "ok.py")])
    git(repo, "sparse-checkout", "set", "--no-cone", "/*", "!/far/")
    git(repo, "update-index", "--assume-unchanged", "lib.py")
    (repo / "lib.py").write_text("X = 2\n")
    assert hiddenedits.hidden(str(repo), []) == ["lib.py"]


def test_a_flagged_symlink_in_a_sha256_repository_is_hashed_as_that_repository_hashes(tmp_path: Path) -> None:
    from tierlock.evidence import hiddenedits

    repo = tmp_path / "r"
    repo.mkdir()
    git(repo, "init", "-q", "--object-format=sha256", "-b", "main")
    (repo / "a.py").write_text("A\n")
    (repo / "link").symlink_to("a.py")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "first")
    git(repo, "update-index", "--assume-unchanged", "a.py", "link")
    assert hiddenedits.hidden(str(repo), []) == []
    (repo / "link").unlink()
    (repo / "link").symlink_to("b.py")
    assert hiddenedits.hidden(str(repo), []) == ["link"]
