"""``tierlock verified`` when a lockfile the setup ran from was deleted since: the setup is stale."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.gitrepo import check, commit_all, make_repo
from tierlock.cli import main

OK = "print('all good')\n"


pytestmark = pytest.mark.usefixtures("git_identity")


def test_a_lockfile_deleted_since_the_setup_ran_makes_the_setup_stale(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    files = {"ok.py": OK, "uv.lock": "v1\n"}
    repo = make_repo(tmp_path / "r", files, [check("unit", "ok.py")], setup=[check("sync", "ok.py")])
    assert main(["--project", str(repo), "verify", "--json", "--kill-grace", "0.5"]) == 0
    (repo / "uv.lock").unlink()
    commit_all(repo, "drop the lock")
    assert main(["--project", str(repo), "verify", "--json", "--no-setup", "--kill-grace", "0.5"]) == 0
    capsys.readouterr()
    assert main(["--project", str(repo), "verified", "--json"]) == 1
    gate = json.loads(capsys.readouterr().out)
    assert (gate["reason"], gate["files"]) == ("setup-stale", ["uv.lock"])
