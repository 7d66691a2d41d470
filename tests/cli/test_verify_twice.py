"""``tierlock verify --twice``: the setup runs twice; the second run must change nothing.

Real git repositories and a real virtual environment: an idempotent setup (run 1 creates, run 2 finds
it done) passes; a setup that appends on every run fails and names what run 2 changed; a second
``--twice`` on a set-up checkout passes and says the environment was already set up; the receipt
carries both runs' counts (environment and tree) and how many commands ran.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.env import make_venv
from tests.support.gitrepo import check, make_repo, receipt_of, verify_json
from tierlock.cli import main

OK = "print('ok')\n"
#: Creates out/state.txt and a marker in the active environment once; does nothing when they exist.
ONCE = """\
import os, pathlib
for path in (pathlib.Path("out/state.txt"), pathlib.Path(os.environ["VIRTUAL_ENV"], "armed.txt")):
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("set up\\n")
"""
#: Appends a line on every run.
APPEND = """\
import pathlib
p = pathlib.Path("out/setup.log")
p.parent.mkdir(exist_ok=True)
with p.open("a") as f:
    f.write("ran\\n")
"""

pytestmark = pytest.mark.usefixtures("git_identity")


@pytest.fixture
def active_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "env"
    make_venv(folder)
    monkeypatch.setenv("VIRTUAL_ENV", str(folder))
    return folder


def test_an_idempotent_setup_passes_and_both_runs_are_counted(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, active_env: Path
) -> None:
    repo = make_repo(
        tmp_path / "r", {"ok.py": OK, "once.py": ONCE}, [check("unit", "ok.py")], [check("arm", "once.py")]
    )
    code, doc = verify_json(capsys, repo, "--twice")
    assert code == 0, doc
    twice = receipt_of(doc)["setup"]["twice"]
    assert twice == doc["twice"]
    first, second = twice["runs"]
    assert (first["environment"]["added"], first["tree"]["added"]) == (1, 1)
    assert first["environment"]["files"] == ["armed.txt"]
    assert first["tree"]["files"] == ["out/state.txt"]
    for part in ("environment", "tree"):
        assert (second[part]["added"], second[part]["removed"], second[part]["changed"]) == (0, 0, 0)
    assert (twice["idempotent"], twice["alreadySetUp"], twice["commandsRun"]) == (True, False, 2)
    assert [c["list"] for c in doc["commands"]] == ["setup", "setup", "verification"]


def test_a_second_twice_on_a_set_up_checkout_says_the_environment_was_already_set_up(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, active_env: Path
) -> None:
    repo = make_repo(
        tmp_path / "r", {"ok.py": OK, "once.py": ONCE}, [check("unit", "ok.py")], [check("arm", "once.py")]
    )
    assert verify_json(capsys, repo, "--twice")[0] == 0
    code, doc = verify_json(capsys, repo, "--twice")
    assert code == 0
    twice = doc["twice"]
    assert (twice["idempotent"], twice["alreadySetUp"]) == (True, True)
    assert sum(twice["runs"][0][part]["added"] for part in ("environment", "tree")) == 0
    capsys.readouterr()
    assert main(["--project", str(repo), "verify", "--twice"]) == 0
    assert "already set up" in capsys.readouterr().out


def test_a_setup_that_changes_something_on_its_second_run_fails_and_names_it(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, active_env: Path
) -> None:
    repo = make_repo(
        tmp_path / "r", {"ok.py": OK, "append.py": APPEND}, [check("unit", "ok.py")], [check("arm", "append.py")]
    )
    code, doc = verify_json(capsys, repo, "--twice")
    assert (code, doc["result"]) == (1, "failed")
    twice = doc["twice"]
    assert twice["idempotent"] is False
    assert (twice["runs"][1]["tree"]["changed"], twice["runs"][1]["tree"]["files"]) == (1, ["out/setup.log"])
    assert any("out/setup.log" in reason for reason in doc["unusableBecause"])
    capsys.readouterr()
    assert main(["--project", str(repo), "verify", "--twice"]) == 1
    out = capsys.readouterr().out
    assert "not idempotent" in out
    assert "out/setup.log" in out


def test_twice_without_any_setup_command_is_refused(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"ok.py": OK}, [check("unit", "ok.py")], setup=[])
    code, doc = verify_json(capsys, repo, "--twice")
    assert (code, doc["result"]) == (2, "refused")
    assert "setup" in doc["error"]["message"]
