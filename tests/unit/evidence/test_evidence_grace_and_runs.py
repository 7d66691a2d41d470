"""A command stopped at its timeout gets its grace period to end on SIGTERM; the evidence folder's
runs are its visible sub-folders only."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.cli import cli_json
from tests.support.gitrepo import check, make_repo
from tierlock.evidence.store import runs

pytestmark = pytest.mark.usefixtures("git_identity")

#: Ends cleanly on SIGTERM, leaving a mark that it did.
GRACEFUL = """\
import os, signal, sys, time

def stop(signum, frame):
    os.makedirs("out", exist_ok=True)
    with open(os.path.join("out", "terminated"), "w") as f:
        f.write("cleaned up")
    sys.exit(0)

signal.signal(signal.SIGTERM, stop)
print("ready", flush=True)
time.sleep(60)
"""


def test_a_command_stopped_at_its_timeout_may_end_cleanly_on_sigterm_within_the_grace(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    repo = make_repo(tmp_path / "r", {"graceful.py": GRACEFUL}, [check("slow", "graceful.py", timeoutMs=1000)])
    code, doc = cli_json(capsys, "--project", str(repo), "verify", "--json", "--kill-grace", "10")
    assert code != 0
    assert (doc["commands"][0]["status"], doc["commands"][0]["exitCode"]) == ("timed-out", 0)  # its own clean exit
    assert (repo / "out" / "terminated").read_text() == "cleaned up"


def test_the_runs_of_an_evidence_folder_are_its_visible_sub_folders_newest_first(tmp_path: Path) -> None:
    for name in ("20261130T100000.000001Z-1", "20261130T110000.000001Z-2", ".partial"):
        (tmp_path / name).mkdir()
    (tmp_path / "notes.txt").write_text("not a run")
    (tmp_path / ".gitignore").write_text("*\n")
    assert [p.name for p in runs(tmp_path)] == ["20261130T110000.000001Z-2", "20261130T100000.000001Z-1"]
    assert runs(tmp_path / "missing") == []
