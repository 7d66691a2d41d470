"""``--config-from REF`` when the branch moved the project folder: the base's checks still run.

Re-running "a branch that moves the config" with a variant no test had: the branch moves the project (its
``pyproject.toml`` and its ``tierlock.runtime.json``) into ``app/`` and drops the failing check there. The base's
config was looked up in the folders the *working tree's* discovery gives (``app/``), where the base has nothing:
``main`` seemed to hold no config, only the branch's own checks ran, and ``verified`` could pass without the base's
gate. The base's discovery now walks up from the start folder in the base's own tree, as it would on disk there.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.gitrepo import check, commit_all, git, make_repo, receipt_of, verified_json, verify_json

OK = "print('ok')\n"
FAIL = "raise SystemExit('the strict check failed')\n"

pytestmark = pytest.mark.usefixtures("git_identity")


def _moved(tmp_path: Path) -> Path:
    """``main`` (a project at the top: a passing and a failing check), then a branch that moves it into app/."""
    repo = make_repo(
        tmp_path / "r", {"ok.py": OK, "fail.py": FAIL}, [check("unit", "ok.py"), check("strict", "fail.py")]
    )
    (repo / "pyproject.toml").write_text('[project]\nname = "app"\nversion = "1"\n', encoding="utf-8")
    commit_all(repo, "a project")
    git(repo, "checkout", "-q", "-b", "move")
    (repo / "app").mkdir()
    for name in ("pyproject.toml", "ok.py", "fail.py", "tierlock.runtime.json"):
        git(repo, "mv", name, f"app/{name}")
    config = repo / "app" / "tierlock.runtime.json"
    document = json.loads(config.read_text(encoding="utf-8"))
    document["verification"] = [dict(c, cwd="app") for c in document["verification"] if c["key"] == "unit"]
    config.write_text(json.dumps(document), encoding="utf-8")
    commit_all(repo, "move the project into app/ and drop the strict check")
    return repo


def test_the_bases_checks_run_when_the_branch_moved_the_project_into_a_subfolder(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    repo = _moved(tmp_path)
    code, doc = verify_json(capsys, repo / "app", "--config-from", "main")
    assert code == 1
    keys = [(c["key"], c["commandSource"]) for c in doc["commands"]]
    assert ("strict", "ref") in keys, keys
    origin = receipt_of(doc)["config"]["from"]
    assert (origin["ref"], origin["path"]) == ("main", "tierlock.runtime.json")
    code, gate = verified_json(capsys, repo / "app", "--config-from", "main")
    assert code == 1
    assert gate["reason"] == "failed"


def test_the_branchs_passing_checks_alone_never_make_the_gate_green(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """Before: the run found no base config, ran the branch's one passing check, and ``verified`` said yes."""
    repo = _moved(tmp_path)
    assert verify_json(capsys, repo / "app")[0] == 0  # the branch's own config alone: its one check passes
    code, _ = verify_json(capsys, repo / "app", "--config-from", "main")
    assert code == 1
    code, gate = verified_json(capsys, repo / "app", "--config-from", "main")
    assert (code, gate["reason"]) == (1, "failed")


def _moved_up(tmp_path: Path, to: str) -> Path:
    """``main`` (a project in app/: a passing and a failing check), then a branch that moves it to *to* (the top,
    or a folder beside app/)."""
    repo = make_repo(tmp_path / "r", {".keep": ""}, [check("unit", "ok.py")])
    git(repo, "rm", "-q", "tierlock.runtime.json")
    app = repo / "app"
    app.mkdir()
    (app / "pyproject.toml").write_text('[project]\nname = "app"\nversion = "1"\n', encoding="utf-8")
    (app / "ok.py").write_text(OK, encoding="utf-8")
    (app / "fail.py").write_text(FAIL, encoding="utf-8")
    document = {"schemaVersion": 1, "verification": [check("unit", "ok.py"), check("strict", "fail.py")]}
    (app / "tierlock.runtime.json").write_text(json.dumps(document), encoding="utf-8")
    commit_all(repo, "a project in app/")
    git(repo, "checkout", "-q", "-b", "up")
    (repo / to).mkdir(exist_ok=True)
    for name in ("pyproject.toml", "ok.py", "fail.py", "tierlock.runtime.json"):
        git(repo, "mv", f"app/{name}", f"{to}/{name}" if to else name)
    config = repo / to / "tierlock.runtime.json"
    document = json.loads(config.read_text(encoding="utf-8"))
    document["verification"] = [dict(c, cwd=to or ".") for c in document["verification"] if c["key"] == "unit"]
    config.write_text(json.dumps(document), encoding="utf-8")
    commit_all(repo, "move the project and drop the strict check")
    return repo


@pytest.mark.parametrize("to", ["", "service"])
def test_the_bases_checks_run_when_the_branch_moved_the_project_up_or_sideways(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, to: str
) -> None:
    """Before: at main the top holds no config, so none was found; the branch's one passing check ran alone and
    ``verified`` said yes. git sees the config and the pyproject moved from app/: main's config there is the base's."""
    repo = _moved_up(tmp_path, to)
    start = repo / to
    assert verify_json(capsys, start)[0] == 0  # the branch's own config alone: its one check passes
    code, doc = verify_json(capsys, start, "--config-from", "main")
    assert code == 1
    keys = [(c["key"], c["commandSource"]) for c in doc["commands"]]
    assert ("strict", "ref") in keys, keys
    origin = receipt_of(doc)["config"]["from"]
    assert (origin["ref"], origin["path"]) == ("main", "app/tierlock.runtime.json")
    code, gate = verified_json(capsys, start, "--config-from", "main")
    assert code == 1, gate
