"""``--only`` with a key no check has: the remedy names the closest key (else the first), and it works as printed."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.gitrepo import check, make_repo
from tierlock.cli import main

OK = "print('all good')\n"


pytestmark = pytest.mark.usefixtures("git_identity")


@pytest.mark.parametrize(
    ("wanted", "remedy", "hint"),
    [
        ("unti", "tierlock verify --only unit", " (did you mean 'unit'?)"),
        ("zzzz", "tierlock verify --only lint", ""),
    ],
)
def test_an_unknown_only_key_names_the_closest_key_and_the_remedy_runs_it(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, wanted: str, remedy: str, hint: str
) -> None:
    repo = make_repo(tmp_path / "r", {"ok.py": OK}, [check("lint", "ok.py"), check("unit", "ok.py")])
    capsys.readouterr()
    code = main(["--project", str(repo), "verify", "--json", "--only", wanted])
    document = json.loads(capsys.readouterr().out)
    assert (code, document["result"]) == (2, "refused")
    assert document["error"]["remedy"] == remedy.replace("tierlock ", f"tierlock --project {repo} ", 1)
    assert document["error"]["message"] == (
        f"--only {wanted}: no verification check has that key{hint}; keys: lint, unit"
    )
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    fixed = subprocess.run(remedy, shell=True, cwd=repo, env=env, capture_output=True, text=True, check=False)
    assert fixed.returncode == 0, fixed.stdout + fixed.stderr
