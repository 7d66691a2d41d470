"""``--config-from REF``: the base's checks and setup, found at REF by the base's own discovery, always run.

Real git repositories with a ``main`` holding the gate and a branch that tries to drop it: by deleting
the JSON config and adding a TOML one, by naming another file with ``--config``, by replacing the setup.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.gitrepo import check, commit_all, git, make_repo, receipt_of, verified_json, verify_json

OK = "print('ok')\n"
FAIL = "raise SystemExit('the strict check failed')\n"
#: Writes the file named by argv[1] (under the ignored out/ folder): proof that this setup ran.
MARK = "import pathlib, sys\np = pathlib.Path(sys.argv[1])\np.parent.mkdir(exist_ok=True)\np.write_text('ran')\n"

pytestmark = pytest.mark.usefixtures("git_identity")


def _base(tmp_path: Path) -> Path:
    """``main`` with a JSON config: a passing check and a failing one (the gate a branch wants gone)."""
    return make_repo(
        tmp_path / "r",
        {"ok.py": OK, "fail.py": FAIL, "mark.py": MARK},
        [check("unit", "ok.py"), check("strict", "fail.py")],
    )


def _toml_config(path: Path, key: str, script: str, *, setup: str = "") -> None:
    path.write_text(
        f'schemaVersion = 1\n{setup}\n[[verification]]\nkey = "{key}"\ncommand = {json.dumps(sys.executable)}\n'
        f'args = ["{script}"]\n',
        encoding="utf-8",
    )


def test_a_branch_that_swaps_the_json_config_for_a_toml_one_still_runs_every_check_of_the_base(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    repo = _base(tmp_path)
    git(repo, "checkout", "-q", "-b", "weaken")
    git(repo, "rm", "-q", "tierlock.runtime.json")
    _toml_config(repo / "tierlock.runtime.toml", "noop", "ok.py")
    commit_all(repo, "a toml config with one check that always passes")
    code, doc = verify_json(capsys, repo, "--config-from", "main")
    assert code == 1
    assert [(c["key"], c["commandSource"], c["status"]) for c in doc["commands"]] == [
        ("unit", "ref", "passed"),
        ("strict", "ref", "failed"),
        ("noop", "worktree", "passed"),
    ]
    receipt = receipt_of(doc)
    assert [c["configFile"] for c in receipt["commands"]] == [
        "main:tierlock.runtime.json",
        "main:tierlock.runtime.json",
        "tierlock.runtime.toml",
    ]
    origin = receipt["config"]["from"]
    assert (origin["ref"], origin["path"]) == ("main", "tierlock.runtime.json")
    assert origin["blob"] == git(repo, "rev-parse", "main:tierlock.runtime.json").strip()
    code, gate = verified_json(capsys, repo, "--config-from", "main")
    assert (code, gate["reason"]) == (1, "failed")


def test_config_naming_another_file_does_not_drop_the_checks_the_base_discovers(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    repo = _base(tmp_path)
    git(repo, "checkout", "-q", "-b", "alt")
    (repo / "alt.json").write_text(
        json.dumps({"schemaVersion": 1, "verification": [check("noop", "ok.py")]}), encoding="utf-8"
    )
    commit_all(repo, "an alternative config")
    code, doc = verify_json(capsys, repo, "--config", str(repo / "alt.json"), "--config-from", "main")
    assert code == 1
    assert [(c["key"], c["commandSource"]) for c in doc["commands"]] == [
        ("unit", "ref"),
        ("strict", "ref"),
        ("noop", "worktree"),
    ]
    code, gate = verified_json(capsys, repo, "--config", str(repo / "alt.json"), "--config-from", "main")
    assert (code, gate["reason"]) == (1, "failed")


def test_a_base_whose_config_lives_in_pyproject_is_found_there(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    repo = tmp_path / "r"
    repo.mkdir()
    (repo / "fail.py").write_text(FAIL)
    (repo / "ok.py").write_text(OK)
    (repo / "pyproject.toml").write_text(
        '[project]\nname = "app"\nversion = "1"\n\n[tool.tierlock.runtime]\nschemaVersion = 1\n\n'
        f'[[tool.tierlock.runtime.verification]]\nkey = "strict"\ncommand = {json.dumps(sys.executable)}\n'
        'args = ["fail.py"]\n',
        encoding="utf-8",
    )
    git(repo, "init", "-q", "-b", "main")
    commit_all(repo, "the gate in pyproject.toml")
    git(repo, "checkout", "-q", "-b", "weaken")
    _toml_config(repo / "tierlock.runtime.toml", "noop", "ok.py")  # found before pyproject.toml on the branch
    commit_all(repo, "a toml config that shadows pyproject's")
    code, doc = verify_json(capsys, repo, "--config-from", "main")
    assert code == 1
    assert [(c["key"], c["commandSource"], c["status"]) for c in doc["commands"]] == [
        ("strict", "ref", "failed"),
        ("noop", "worktree", "passed"),
    ]
    assert receipt_of(doc)["config"]["from"]["path"] == "pyproject.toml"


def test_the_setup_comes_from_the_base_not_from_the_branch(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    repo = make_repo(
        tmp_path / "r",
        {"ok.py": OK, "mark.py": MARK},
        [check("unit", "ok.py")],
        setup=[check("arm", "mark.py", "out/base-setup")],
    )
    git(repo, "checkout", "-q", "-b", "own-setup")
    (repo / "tierlock.runtime.json").write_text(
        json.dumps(
            {
                "schemaVersion": 1,
                "setup": [check("mine", "mark.py", "out/branch-setup")],
                "verification": [check("unit", "ok.py")],
            }
        ),
        encoding="utf-8",
    )
    commit_all(repo, "the branch's own setup")
    code, doc = verify_json(capsys, repo, "--config-from", "main")
    assert code == 0
    assert [(c["list"], c["key"], c["commandSource"]) for c in doc["commands"]] == [
        ("setup", "arm", "ref"),
        ("verification", "unit", "ref"),
    ]
    assert (repo / "out" / "base-setup").is_file()
    assert not (repo / "out" / "branch-setup").exists()
    assert receipt_of(doc)["setup"]["source"] == "ref"


def test_a_branch_cannot_swap_the_base_setup_for_a_derived_one(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    repo = make_repo(
        tmp_path / "r",
        {"ok.py": OK, "mark.py": MARK},
        [check("unit", "ok.py")],
        setup=[check("arm", "mark.py", "out/base-setup")],
    )
    git(repo, "checkout", "-q", "-b", "no-setup")
    (repo / "tierlock.runtime.json").write_text(
        json.dumps({"schemaVersion": 1, "verification": [check("unit", "ok.py")]}), encoding="utf-8"
    )
    commit_all(repo, "no setup on the branch")
    code, doc = verify_json(capsys, repo, "--config-from", "main")
    assert code == 0
    assert [c["key"] for c in doc["commands"] if c["list"] == "setup"] == ["arm"]
    assert (repo / "out" / "base-setup").is_file()


def test_an_explicit_empty_setup_means_no_setup_even_beside_a_lockfile(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    repo = make_repo(tmp_path / "r", {"ok.py": OK, "uv.lock": "version = 1\n"}, [check("unit", "ok.py")], setup=[])
    code, doc = verify_json(capsys, repo)
    assert code == 0
    assert [c["list"] for c in doc["commands"]] == ["verification"]
    setup = receipt_of(doc)["setup"]
    assert setup["source"] == "runtime-config"
    assert "empty" in setup["reason"]


def test_an_explicit_empty_setup_at_the_base_means_no_setup_whatever_the_branch_says(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    repo = make_repo(tmp_path / "r", {"ok.py": OK, "mark.py": MARK}, [check("unit", "ok.py")], setup=[])
    git(repo, "checkout", "-q", "-b", "own-setup")
    (repo / "tierlock.runtime.json").write_text(
        json.dumps(
            {
                "schemaVersion": 1,
                "setup": [check("mine", "mark.py", "out/branch-setup")],
                "verification": [check("unit", "ok.py")],
            }
        ),
        encoding="utf-8",
    )
    commit_all(repo, "a setup the base does not have")
    code, doc = verify_json(capsys, repo, "--config-from", "main")
    assert code == 0
    assert [c["list"] for c in doc["commands"]] == ["verification"]
    assert not (repo / "out" / "branch-setup").exists()


def test_the_gate_with_a_remote_branch_not_fetched_names_the_fetch_that_fixes_it(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    upstream = make_repo(tmp_path / "upstream", {"ok.py": OK}, [check("unit", "ok.py")])
    git(tmp_path, "clone", "-q", str(upstream), str(tmp_path / "clone"))
    repo = tmp_path / "clone"
    assert verify_json(capsys, repo, "--config-from", "origin/main")[0] == 0
    assert verified_json(capsys, repo, "--config-from", "origin/main")[0] == 0
    git(repo, "update-ref", "-d", "refs/remotes/origin/main")  # as if never fetched
    code, gate = verified_json(capsys, repo, "--config-from", "origin/main")
    fetch = f"git -C {repo} fetch origin +refs/heads/main:refs/remotes/origin/main"
    assert (code, gate["reason"], gate["remedy"]) == (1, "config-from-differs", fetch)
    assert "no such branch" in gate["message"]
    assert subprocess.run(gate["remedy"], shell=True, capture_output=True, check=False).returncode == 0
    assert verified_json(capsys, repo, "--config-from", "origin/main")[0] == 0


def test_a_check_the_branch_repeats_runs_once_and_one_it_changes_runs_beside_the_bases(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    keyless = {"command": sys.executable, "args": ["ok.py"]}
    repo = make_repo(tmp_path / "r", {"ok.py": OK, "fail.py": FAIL}, [dict(keyless), check("strict", "fail.py")])
    git(repo, "checkout", "-q", "-b", "same")
    (repo / "tierlock.runtime.json").write_text(
        json.dumps({"schemaVersion": 1, "verification": [dict(keyless), {**keyless, "args": ["ok.py", "-v"]}]}),
        encoding="utf-8",
    )
    commit_all(repo, "repeat the keyless check, add a changed one")
    code, doc = verify_json(capsys, repo, "--config-from", "main")
    assert code == 1
    assert [(c["key"], c["args"], c["commandSource"]) for c in doc["commands"]] == [
        (None, ["ok.py"], "ref"),
        ("strict", ["fail.py"], "ref"),
        (None, ["ok.py", "-v"], "worktree"),
    ]


def test_a_setup_derived_for_the_base_comes_from_the_lockfiles_the_base_holds(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """The base's config has no setup list: the setup is the base's lockfile's, whatever the branch left."""
    repo = make_repo(tmp_path / "r", {"ok.py": OK, "Cargo.lock": "version = 3\n"}, [check("unit", "ok.py")])
    git(repo, "checkout", "-q", "-b", "no-lockfile")
    git(repo, "rm", "-q", "Cargo.lock")
    commit_all(repo, "the branch drops the lockfile, and with it the derived setup")
    code, doc = verify_json(capsys, repo, "--no-setup")
    assert code == 0
    assert receipt_of(doc)["setup"]["source"] == "none"  # on its own, the branch derives nothing
    code, doc = verify_json(capsys, repo, "--config-from", "main")
    setup = [c for c in doc["commands"] if c["list"] == "setup"]
    assert [(c["command"], c["args"]) for c in setup] == [("cargo", ["fetch", "--locked"])], doc["commands"]
    recorded = receipt_of(doc)["setup"]
    assert recorded["source"] == "lockfile"
    main_commit = git(repo, "rev-parse", "main").strip()
    assert f"derived from the lockfiles at {main_commit[:12]}" in recorded["reason"]


def test_the_base_s_ci_required_tiers_are_armed_even_when_the_branch_drops_them(tmp_path: Path) -> None:
    from tierlock.evidence import refconfig
    from tierlock.setup_derivation import from_lockfiles

    repo = tmp_path / "r"
    (repo / "locks").mkdir(parents=True)
    (repo / "locks" / "base.txt").write_text("", encoding="utf-8")
    pyproject = (
        '[project]\nname = "app"\nversion = "1"\n[project.optional-dependencies]\nbrain = ["corelib"]\n'
        '[tool.tierlock]\nlock-dir = "locks"\nci-require = ["brain"]\n[tool.tierlock.tiers.brain]\n'
        'source = "extra:brain"\n'
    )
    (repo / "pyproject.toml").write_text(pyproject, encoding="utf-8")
    git(repo, "init", "-q", "-b", "main")
    commit_all(repo, "brain is required in CI")
    git(repo, "checkout", "-q", "-b", "drop")
    (repo / "pyproject.toml").write_text(pyproject.replace('ci-require = ["brain"]\n', ""), encoding="utf-8")
    commit_all(repo, "the branch drops the requirement")
    assert from_lockfiles(repo).commands == [["install-tier", "base"]]
    base = refconfig.read(repo, "main", repo)
    derived = from_lockfiles(refconfig.tree(repo, base))
    assert derived.commands == [["install-tier", "base", "brain"]]
    assert derived.lockfiles == ["locks/base.txt"]
