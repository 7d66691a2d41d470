"""Edits inside a submodule are uncommitted changes (runtime12).

Before, every tree check ran ``git status --ignore-submodules=dirty``: a file edited inside a submodule (or
an untracked file there), which ``git status`` itself shows as `` m dep``, was no change to ``tierlock
verify`` nor to ``tierlock verified``, so the gate said a commit verified whose submodule content was not
the content tested. Now it is a change at the start, at the end and in the gate, named by the submodule's
path, and the printed remedy (each submodule's own stash, then the top's) run as printed brings the tree back.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.support.gitrepo import check, git, make_repo, verified_json, verify_json

OK = "import sys\nsys.path.insert(0, 'dep')\nimport lib\nassert lib.X == 1, lib.X\nprint('ok')\n"

pytestmark = pytest.mark.usefixtures("git_identity")


def shell(command: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """A printed remedy run exactly as printed, with this venv's scripts on PATH."""
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    return subprocess.run(command, shell=True, cwd=cwd, env=env, capture_output=True, text=True, check=False)


def _repo(tmp_path: Path, *extra: dict[str, str]) -> Path:
    dep = tmp_path / "dep"
    dep.mkdir()
    (dep / "lib.py").write_text("X = 1\n")
    git(dep, "init", "-q", "-b", "main")
    git(dep, "add", "-A")
    git(dep, "commit", "-q", "-m", "dep")
    checks = [check("unit", "ok.py"), *extra]
    repo = make_repo(tmp_path / "r", {"ok.py": OK, "edit.py": EDIT}, checks, commit=False)
    git(repo, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(dep), "dep")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "first")
    return repo


EDIT = "import pathlib\npathlib.Path('dep/lib.py').write_text('X = 3\\n')\n"


def _edited(repo: Path) -> None:
    (repo / "dep" / "lib.py").write_text("X = 2\n")


def _untracked(repo: Path) -> None:
    (repo / "dep" / "new.py").write_text("Y = 1\n")


def _moved(repo: Path) -> None:
    _edited(repo)
    git(repo / "dep", "commit", "-q", "-am", "moved")


def _moved_and_staged(repo: Path) -> None:
    _moved(repo)
    git(repo, "add", "dep")


CHANGES = [_edited, _untracked, _moved, _moved_and_staged]


@pytest.mark.parametrize("change", CHANGES, ids=["edited", "untracked", "commit moved", "commit moved, staged"])
def test_an_edit_inside_a_submodule_makes_verified_say_no_and_the_remedy_brings_the_tree_back(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, change: Callable[[Path], None]
) -> None:
    repo = _repo(tmp_path)
    assert verify_json(capsys, repo)[0] == 0
    change(repo)
    code, gate = verified_json(capsys, repo)
    assert (code, gate["reason"], gate["files"]) == (1, "uncommitted", ["dep"])
    ran = shell(gate["remedy"], tmp_path)
    assert ran.returncode == 0, ran.stderr
    assert verified_json(capsys, repo)[0] == 0
    assert (repo / "dep" / "lib.py").read_text() == "X = 1\n"


@pytest.mark.parametrize("change", [_edited, _moved], ids=["edited", "commit moved"])
def test_verify_refuses_to_start_on_an_edit_inside_a_submodule_and_its_remedy_fixes_it(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, change: Callable[[Path], None]
) -> None:
    from tierlock.cli import main

    repo = _repo(tmp_path)
    change(repo)
    capsys.readouterr()
    assert main(["--project", str(repo), "verify"]) == 2
    err = capsys.readouterr().err
    assert "1 uncommitted change(s) (dep)" in err
    remedy = err.split("to fix:", 1)[1].split("   # or commit", 1)[0].strip()
    ran = shell(remedy, tmp_path)
    assert ran.returncode == 0, ran.stderr
    code, doc = verify_json(capsys, repo)
    assert (code, doc["usable"]) == (0, True)


def test_a_command_that_edits_inside_a_submodule_makes_the_receipt_unusable(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    repo = _repo(tmp_path, check("edit", "edit.py"))
    code, doc = verify_json(capsys, repo)
    assert (code, doc["usable"]) == (0, False)
    assert "the working tree changed during the run: dep" in str(doc)
