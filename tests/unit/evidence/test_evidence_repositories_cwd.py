"""A check of a named repository of the runtime config runs in that repository's folder; a command that cannot
start took no longer than its run."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tests.support.gitrepo import commit_all, make_repo
from tierlock.cli import main

WHERE = "import os\nprint(os.getcwd())\n"


pytestmark = pytest.mark.usefixtures("git_identity")


def test_a_check_of_a_named_repository_runs_in_its_folder(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"services/svc/where.py": WHERE}, [])
    config = {
        "schemaVersion": 1,
        "repositories": [{"id": "svc", "path": "services/svc"}],
        "verification": [{"key": "where", "command": sys.executable, "args": ["where.py"], "repositoryId": "svc"}],
    }
    (repo / "tierlock.runtime.json").write_text(json.dumps(config) + "\n")

    commit_all(repo)
    capsys.readouterr()
    code = main(["--project", str(repo), "verify", "--json"])
    out, err = capsys.readouterr()
    assert code == 0, out + err
    document = json.loads(out)
    assert Path(document["commands"][0]["log"]["path"]).read_text() == f"{repo / 'services' / 'svc'}\n"


def test_a_command_that_cannot_start_took_no_longer_than_its_run(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    repo = make_repo(tmp_path / "r", {}, [{"key": "lint", "command": "no-such-tool-tierlock"}])
    capsys.readouterr()
    main(["--project", str(repo), "verify", "--json"])
    document = json.loads(capsys.readouterr().out)
    receipt = json.loads(Path(document["receipt"]).read_text())
    assert 0 <= receipt["commands"][0]["durationSeconds"] <= receipt["durationSeconds"]
