"""``tierlock verified`` judges the tree as it stands, not only HEAD: every uncommitted change refuses.

A real repository verified at HEAD, then changed without a commit in each way git knows (an unstaged
edit, a staged edit, an untracked file, a deleted check script, a rename): the gate names the files,
its printed remedy brings the tree back, ignored files change nothing, and ``--head`` asks about HEAD
alone. The fast path (no argparse) and the full CLI say the same.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.support.gitrepo import check, git, make_repo, verified_json, verify_json

OK = "print('ok')\n"

pytestmark = pytest.mark.usefixtures("git_identity")


def _unstaged(repo: Path) -> list[str]:
    (repo / "lib.py").write_text("X = 2\n")
    return ["lib.py"]


def _staged(repo: Path) -> list[str]:
    (repo / "lib.py").write_text("X = 3\n")
    git(repo, "add", "lib.py")
    return ["lib.py"]


def _untracked(repo: Path) -> list[str]:
    (repo / "new_module.py").write_text("Y = 1\n")
    return ["new_module.py"]


def _deleted(repo: Path) -> list[str]:
    (repo / "ok.py").unlink()
    return ["ok.py"]


def _renamed(repo: Path) -> list[str]:
    git(repo, "mv", "lib.py", "lib2.py")
    return ["lib2.py"]


CHANGES: dict[str, Callable[[Path], list[str]]] = {
    "unstaged edit": _unstaged,
    "staged edit": _staged,
    "untracked file": _untracked,
    "deleted check script": _deleted,
    "staged rename": _renamed,
}


def _verified_repo(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> Path:
    repo = make_repo(tmp_path / "r", {"ok.py": OK, "lib.py": "X = 1\n"}, [check("unit", "ok.py")])
    assert verify_json(capsys, repo)[0] == 0
    assert verified_json(capsys, repo)[0] == 0
    return repo


@pytest.mark.parametrize("change", list(CHANGES))
def test_an_uncommitted_change_makes_verified_fail_and_names_the_file(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, change: str
) -> None:
    repo = _verified_repo(capsys, tmp_path)
    names = CHANGES[change](repo)
    code, gate = verified_json(capsys, repo)
    assert (code, gate["ok"], gate["reason"]) == (1, False, "uncommitted")
    assert all(name in gate["files"] for name in names)
    assert all(name in gate["message"] for name in names)
    code, gate = verified_json(capsys, repo, "--head")
    assert (code, gate["reason"]) == (0, "verified")


def test_the_remedy_of_an_uncommitted_change_is_printed_and_brings_the_verified_tree_back(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    repo = _verified_repo(capsys, tmp_path)
    _unstaged(repo)
    _untracked(repo)
    code, gate = verified_json(capsys, repo)
    assert code == 1
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    ran = subprocess.run(gate["remedy"], shell=True, cwd=tmp_path, env=env, capture_output=True, text=True, check=False)
    assert ran.returncode == 0, ran.stderr
    assert verified_json(capsys, repo)[0] == 0


def test_ignored_files_do_not_count_as_changes(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    repo = _verified_repo(capsys, tmp_path)
    (repo / "out").mkdir()
    (repo / "out" / "report.txt").write_text("build output\n")
    (repo / "__pycache__").mkdir(exist_ok=True)
    (repo / "__pycache__" / "ok.cpython-311.pyc").write_bytes(b"\0")
    assert verified_json(capsys, repo)[0] == 0


def test_the_fast_gate_and_the_cli_gate_agree_on_an_uncommitted_change(tmp_path: Path) -> None:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@e.invalid"}
    env.update({"GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@e.invalid"})
    repo = make_repo(tmp_path / "r", {"ok.py": OK, "lib.py": "X = 1\n"}, [check("unit", "ok.py")])
    script = str(Path(sys.executable).parent / "tierlock")
    subprocess.run([script, "--project", str(repo), "verify", "-q"], check=True, env=env)
    _staged(repo)
    answers = []
    for extra in ([], ["-v"], ["--head"], ["--head", "-v"]):  # -v: not a fast-path option, so the CLI decides
        proc = subprocess.run(
            [script, "--project", str(repo), "verified", "--json", *extra],
            capture_output=True,
            text=True,
            env=env,
            check=False,
        )
        answers.append((proc.returncode, json.loads(proc.stdout)))
    assert answers[0] == answers[1]
    assert answers[2] == answers[3]
    assert (answers[0][0], answers[0][1]["reason"], answers[2][0]) == (1, "uncommitted", 0)


def test_a_file_name_with_a_control_character_is_named_escaped(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    from tierlock.cli import main

    repo = _verified_repo(capsys, tmp_path)
    (repo / "evil\x1b[2Jname.py").write_text("x\n")
    capsys.readouterr()
    assert main(["--project", str(repo), "verified"]) == 1
    err = capsys.readouterr().err
    assert "\x1b" not in err
    assert "evil\\x1b[2Jname.py" in err
    _, gate = verified_json(capsys, repo)
    assert gate["files"] == ["evil\x1b[2Jname.py"]  # the data itself, escaped by JSON
