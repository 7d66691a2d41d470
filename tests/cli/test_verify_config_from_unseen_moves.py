"""``--config-from REF`` when git does not see where the base's config went: the base's gate is never dropped.

Each test is a real git repository with a ``main`` holding a gate (a passing check and a failing ``strict`` one) and a
branch that moves or rewrites the config so that git sees no rename (under 50 % similar), moves it between
``pyproject.toml`` and a standalone file, splits or merges projects, or leaves REF's config as a symlink. Before, REF's
config was only looked for in the working tree's discovery folders and in folders git saw a rename from: anything
else left ``main`` "without a config", only the branch's own (passing) checks ran and ``verified`` said yes. Now the
base's config is the one REF holds that the branch no longer has; when that is not one file, nothing runs (exit 2) and
the message names REF, the paths looked at and the ``--config-from REF:PATH`` that names the base's config.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

import pytest

from tests.support.cli import run_cli
from tests.support.gitrepo import check, commit_all, git, receipt_of, verified_json, verify_json

OK = "print('ok')\n"
FAIL = "raise SystemExit('the strict check failed')\n"
PYPROJECT = '[project]\nname = "{name}"\nversion = "1"\n'

pytestmark = pytest.mark.usefixtures("git_identity")


def _gate() -> str:
    """The base's gate: a passing check and the failing ``strict`` one (the scripts at the top, on every branch)."""
    return json.dumps({"schemaVersion": 1, "verification": [check("unit", "ok.py"), check("strict", "fail.py")]})


def _rewritten() -> str:
    """A config the branch wrote anew (nothing like the base's, so git sees no rename): one passing check."""
    checks = [check("smoke", "ok.py", timeoutMs=60000, env={"SMOKE_LEVEL": "1", "SMOKE_NAME": "rewritten"})]
    return json.dumps({"verification": checks, "schemaVersion": 1}, indent=4, sort_keys=True)


def _write(repo: Path, files: Mapping[str, str | None]) -> None:
    for rel, text in files.items():
        path = repo / rel
        if text is None:
            git(repo, "rm", "-q", "-r", rel)
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def _repo(tmp_path: Path, base: Mapping[str, str], branch: Mapping[str, str | None]) -> Path:
    """``main`` holding *base*, then the branch ``b`` that applies *branch* (None deletes), both committed."""
    repo = tmp_path / "r"
    repo.mkdir()
    (repo / ".gitignore").write_text("__pycache__/\nout/\n", encoding="utf-8")
    git(repo, "init", "-q", "-b", "main")
    _write(repo, {"ok.py": OK, "fail.py": FAIL, **base})
    commit_all(repo, "the base's gate")
    git(repo, "checkout", "-q", "-b", "b")
    if branch:
        _write(repo, branch)
        commit_all(repo, "the branch")
    return repo


def _project(folder: str, name: str = "app", config: str | None = None) -> dict[str, str]:
    prefix = f"{folder}/" if folder else ""
    files = {f"{prefix}pyproject.toml": PYPROJECT.format(name=name)}
    files[f"{prefix}tierlock.runtime.json"] = config if config is not None else _gate()
    return files


def _gone(folder: str) -> dict[str, str | None]:
    return {folder: None}


def _assert_bases_gate_ran(capsys: pytest.CaptureFixture[str], start: Path, base_path: str, *args: str) -> None:
    """``verify --config-from main`` from *start* ran the base's ``strict`` check (found at *base_path*) and
    ``verified`` says no, after the branch's own config alone passed."""
    assert verify_json(capsys, start)[0] == 0  # the branch's own config alone: its one check passes
    code, doc = verify_json(capsys, start, "--config-from", "main", *args)
    keys = [(c["key"], c["commandSource"], c["status"]) for c in doc["commands"]]
    assert ("strict", "ref", "failed") in keys, (code, doc)
    assert code == 1
    origin = receipt_of(doc)["config"]["from"]
    assert (origin["ref"], origin["path"]) == ("main", base_path)
    code, gate = verified_json(capsys, start, "--config-from", "main", *args)
    assert (code, gate["reason"]) == (1, "failed"), gate


@pytest.mark.parametrize("to", ["", "service"], ids=["up", "sideways"])
def test_a_project_moved_with_its_config_rewritten_is_still_held_to_the_bases_gate(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, to: str
) -> None:
    """Before: git saw no rename (the config was rewritten), main "held no config", ``verified`` said yes."""
    branch: dict[str, str | None] = {**_gone("app"), **_project(to, "moved", _rewritten())}
    repo = _repo(tmp_path, _project("app"), branch)
    assert "R" not in git(repo, "diff", "-M", "--name-status", "main", "--").split()  # git sees no rename
    _assert_bases_gate_ran(capsys, repo / to, "app/tierlock.runtime.json")


def test_a_gate_moved_from_pyproject_to_a_standalone_config_in_another_folder_is_still_the_bases(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    table = (
        PYPROJECT.format(name="app") + "\n[tool.tierlock.runtime]\nschemaVersion = 1\n\n"
        f'[[tool.tierlock.runtime.verification]]\nkey = "strict"\ncommand = {json.dumps(sys.executable)}\n'
        'args = ["fail.py"]\n'
    )
    base = {"app/pyproject.toml": table}
    branch: dict[str, str | None] = {**_gone("app"), **_project("svc", "svc", _rewritten())}
    repo = _repo(tmp_path, base, branch)
    _assert_bases_gate_ran(capsys, repo / "svc", "app/pyproject.toml")


def test_a_gate_moved_from_a_standalone_config_into_pyproject_in_another_folder_is_still_the_bases(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    table = (
        PYPROJECT.format(name="top") + "\n[tool.tierlock.runtime]\nschemaVersion = 1\n\n"
        f'[[tool.tierlock.runtime.verification]]\nkey = "smoke"\ncommand = {json.dumps(sys.executable)}\n'
        'args = ["ok.py"]\n'
    )
    branch: dict[str, str | None] = {**_gone("app"), "pyproject.toml": table}
    repo = _repo(tmp_path, _project("app"), branch)
    _assert_bases_gate_ran(capsys, repo, "app/tierlock.runtime.json")


def test_a_config_deleted_on_the_branch_still_runs_the_bases_gate(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """The branch deletes its config and keeps a pyproject with a weaker runtime table: the base's still runs."""
    weak = (
        PYPROJECT.format(name="app") + "\n[tool.tierlock.runtime]\nschemaVersion = 1\n\n"
        f'[[tool.tierlock.runtime.verification]]\nkey = "smoke"\ncommand = {json.dumps(sys.executable)}\n'
        'args = ["ok.py"]\n'
    )
    repo = _repo(tmp_path, _project(""), {"tierlock.runtime.json": None, "pyproject.toml": weak})
    _assert_bases_gate_ran(capsys, repo, "tierlock.runtime.json")


def _two_projects(tmp_path: Path, branch: Mapping[str, str | None]) -> Path:
    return _repo(tmp_path, {**_project("a", "a"), **_project("b", "b")}, branch)


def test_two_gates_at_the_base_merged_into_one_new_project_fail_closed_naming_both(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """main holds a/ and b/, each with its gate; the branch replaces both by c/. Which gate is c's cannot be told:
    nothing runs (exit 2), the message names main, the paths looked at and both configs; its remedy, run as
    printed, runs the one it names, and the gate asked the same way judges that run."""
    repo = _two_projects(tmp_path, {**_gone("a"), **_gone("b"), **_project("c", "c", _rewritten())})
    start = repo / "c"
    code, out, err = run_cli(capsys, "--project", str(start), "verify", "--config-from", "main")
    assert code == 2, (out, err)
    for named in (
        "--config-from main",
        "c/tierlock.runtime.json",
        "a/tierlock.runtime.json",
        "b/tierlock.runtime.json",
    ):
        assert named in err
    remedy = next(line for line in err.splitlines() if "to fix:" in line).split("to fix:", 1)[1].strip()
    assert "--config-from main:a/tierlock.runtime.json" in remedy, remedy
    code, gate = verified_json(capsys, start, "--config-from", "main")
    assert (code, gate["reason"], gate["remedy"]) == (1, "config-from-ambiguous", remedy), gate
    proc = subprocess.run(
        [*shlex.split(remedy.replace("tierlock", f"{shlex.quote(sys.executable)} -m tierlock", 1)), "--json"],
        capture_output=True,
        text=True,
        check=False,
        cwd=start,
    )
    doc = json.loads(proc.stdout)
    assert proc.returncode == 1, proc.stderr
    assert ("strict", "ref", "failed") in [(c["key"], c["commandSource"], c["status"]) for c in doc["commands"]]
    assert receipt_of(doc)["config"]["from"]["path"] == "a/tierlock.runtime.json"
    code, gate = verified_json(capsys, start, "--config-from", "main:a/tierlock.runtime.json")
    assert (code, gate["reason"]) == (1, "failed"), gate


def test_two_gates_at_the_base_and_the_branch_keeps_one_moved_to_the_top_fail_closed(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """git sees a/'s config moved to the top, and b/'s gate is gone: following the rename alone dropped b's gate."""
    repo = _two_projects(tmp_path, {})
    git(repo, "mv", "a/tierlock.runtime.json", "tierlock.runtime.json")
    git(repo, "mv", "a/pyproject.toml", "pyproject.toml")
    git(repo, "rm", "-q", "-r", "b")
    commit_all(repo, "one project at the top")
    code, out, err = run_cli(capsys, "--project", str(repo), "verify", "--config-from", "main")
    assert code == 2, (out, err)
    assert "a/tierlock.runtime.json" in err
    assert "b/tierlock.runtime.json" in err
    assert verified_json(capsys, repo, "--config-from", "main")[1]["reason"] == "config-from-ambiguous"


def test_a_new_project_beside_the_bases_projects_has_no_base_gate_to_keep(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """Configs the branch still has (a/, b/) are their own projects' gates, not a new project's."""
    repo = _two_projects(tmp_path, _project("c", "c", _rewritten()))
    code, doc = verify_json(capsys, repo / "c", "--config-from", "main")
    assert code == 0, doc
    assert receipt_of(doc)["config"]["from"]["path"] is None


def test_a_base_config_named_as_ref_colon_path_is_the_one_run(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    repo = _two_projects(tmp_path, _project("c", "c", _rewritten()))
    code, doc = verify_json(capsys, repo / "c", "--config-from", "main:b/tierlock.runtime.json")
    assert code == 1
    origin = receipt_of(doc)["config"]["from"]
    assert (origin["ref"], origin["path"]) == ("main", "b/tierlock.runtime.json")
    assert [c["configFile"] for c in receipt_of(doc)["commands"]][:2] == ["main:b/tierlock.runtime.json"] * 2
    assert verified_json(capsys, repo / "c", "--config-from", "main:b/tierlock.runtime.json")[1]["reason"] == "failed"
    # the same run is not evidence for another base path
    assert verified_json(capsys, repo / "c", "--config-from", "main:a/tierlock.runtime.json")[0] == 1
    code, _, err = run_cli(capsys, "--project", str(repo / "c"), "verify", "--config-from", "main:nowhere.json")
    assert code == 2
    assert "main:nowhere.json" in err


def test_a_symlinked_config_at_the_base_is_followed_in_the_bases_tree(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """Before: the link's text (``ci/gate.json``) was read as the config and refused as invalid JSON."""
    repo = tmp_path / "r"
    repo.mkdir()
    for rel, text in {"pyproject.toml": PYPROJECT.format(name="app"), "ok.py": OK, "fail.py": FAIL}.items():
        (repo / rel).write_text(text, encoding="utf-8")
    (repo / "ci").mkdir()
    (repo / "ci" / "gate.json").write_text(_gate(), encoding="utf-8")
    os.symlink("ci/gate.json", repo / "tierlock.runtime.json")
    git(repo, "init", "-q", "-b", "main")
    commit_all(repo, "the gate, linked")
    git(repo, "checkout", "-q", "-b", "b")
    (repo / "tierlock.runtime.json").unlink()
    git(repo, "rm", "-q", "ci/gate.json")
    (repo / "tierlock.runtime.json").write_text(_rewritten(), encoding="utf-8")
    commit_all(repo, "a config of its own")
    _assert_bases_gate_ran(capsys, repo, "ci/gate.json")


def test_a_symlink_at_the_base_leaving_its_tree_fails_closed(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    repo = _repo(tmp_path, _project(""), {})
    git(repo, "checkout", "-q", "main")
    (repo / "tierlock.runtime.json").unlink()
    os.symlink("../../elsewhere.json", repo / "tierlock.runtime.json")
    commit_all(repo, "a link out of the tree")
    git(repo, "checkout", "-q", "b")
    code, out, err = run_cli(capsys, "--project", str(repo), "verify", "--config-from", "main")
    assert code == 2, (out, err)
    assert "main:tierlock.runtime.json is a symlink to ../../elsewhere.json" in err
    assert verified_json(capsys, repo, "--config-from", "main")[0] == 1


@pytest.mark.parametrize("kind", ["tag", "annotated-tag", "commit"])
def test_a_ref_naming_a_tag_or_a_commit_holds_the_branch_to_its_gate(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, kind: str
) -> None:
    repo = _repo(tmp_path, _project(""), {"tierlock.runtime.json": _rewritten()})
    ref = git(repo, "rev-parse", "main").strip() if kind == "commit" else "v1"
    if kind != "commit":
        git(repo, "tag", *(["-a", "-m", "v1"] if kind == "annotated-tag" else []), "v1", "main")
    code, doc = verify_json(capsys, repo, "--config-from", ref)
    assert code == 1
    assert ("strict", "ref", "failed") in [(c["key"], c["commandSource"], c["status"]) for c in doc["commands"]]
    assert receipt_of(doc)["config"]["from"]["ref"] == ref
    assert verified_json(capsys, repo, "--config-from", ref)[1]["reason"] == "failed"


@pytest.mark.parametrize(
    ("name", "text", "line"),
    [
        ("tierlock.runtime.json", '{\n "schemaVersion": 1,\n "verification": [,]\n}\n', 3),
        ("tierlock.runtime.toml", 'schemaVersion = 1\n\n[[verification]]\nkey = = "x"\n', 4),
        ("pyproject.toml", '[project]\nname = "a"\n[tool.tierlock.runtime]\nschemaVersion = \n', 4),
    ],
)
def test_a_config_at_the_base_that_does_not_parse_fails_closed_naming_file_and_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, name: str, text: str, line: int
) -> None:
    repo = _repo(tmp_path, {name: text, "ok.py": OK}, {name: None, "tierlock.runtime.json": _rewritten()})
    code, out, err = run_cli(capsys, "--project", str(repo), "verify", "--config-from", "main")
    assert code == 2, (out, err)
    assert f"main:{name} line {line} cannot be read" in err
    assert verified_json(capsys, repo, "--config-from", "main")[0] == 1


def test_a_ref_never_fetched_in_a_shallow_clone_names_the_fetch_that_fixes_it(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """A CI checkout of the branch alone, one commit deep: origin/main is not there. verify and verified fail
    closed naming the one fetch; run as printed, the next run holds the branch to main's gate."""
    upstream = _repo(tmp_path, _project(""), {"tierlock.runtime.json": _rewritten()})
    clone = tmp_path / "ci"
    url = f"file://{upstream}"
    git(tmp_path, "clone", "-q", "--depth", "1", "--single-branch", "--branch", "b", url, str(clone))
    assert git(clone, "rev-parse", "--is-shallow-repository").strip() == "true"
    code, out, err = run_cli(capsys, "--project", str(clone), "verify", "--config-from", "origin/main")
    assert code == 2, (out, err)
    remedy = next(line for line in err.splitlines() if "to fix:" in line).split("to fix:", 1)[1].strip()
    code, gate = verified_json(capsys, clone, "--config-from", "origin/main")
    assert (code, gate["remedy"]) == (1, remedy)
    assert subprocess.run(remedy, shell=True, capture_output=True, check=False).returncode == 0
    assert git(clone, "rev-parse", "--is-shallow-repository").strip() == "true"
    code, doc = verify_json(capsys, clone, "--config-from", "origin/main")
    assert ("strict", "ref", "failed") in [(c["key"], c["commandSource"], c["status"]) for c in doc["commands"]]
    assert verified_json(capsys, clone, "--config-from", "origin/main")[1]["reason"] == "failed"


def test_a_branch_that_deleted_its_config_runs_the_bases_alone_and_the_gates_remedy_is_right(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """Before: verify refused (no runtime config found, exit 2), so the remedy ``verified`` printed could never
    make evidence. Now the base's config runs alone; the receipt has no config path of its own."""
    repo = _repo(tmp_path, _project(""), {"tierlock.runtime.json": None})
    code, gate = verified_json(capsys, repo, "--config-from", "main")
    assert (code, gate["reason"]) == (1, "no-run")
    argv = [*shlex.split(gate["remedy"].replace("tierlock", f"{shlex.quote(sys.executable)} -m tierlock", 1)), "--json"]
    proc = subprocess.run(argv, capture_output=True, text=True, check=False)
    assert proc.returncode == 1, proc.stderr
    doc = json.loads(proc.stdout)
    assert [(c["key"], c["commandSource"], c["status"]) for c in doc["commands"]] == [
        ("unit", "ref", "passed"),
        ("strict", "ref", "failed"),
    ]
    config = receipt_of(doc)["config"]
    assert (config["path"], config["digest"], config["from"]["path"]) == (None, None, "tierlock.runtime.json")
    assert verified_json(capsys, repo, "--config-from", "main")[1]["reason"] == "failed"
    code, gate = verified_json(capsys, repo)
    assert (code, gate["reason"]) == (1, "stale-config")
    assert "--config-from main alone" in gate["message"]


def test_a_base_config_run_alone_is_no_evidence_once_the_tree_has_a_config_again(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    repo = _repo(tmp_path, {"tierlock.runtime.json": _rewritten()}, {"tierlock.runtime.json": None})
    assert verify_json(capsys, repo, "--config-from", "main")[0] == 0
    assert verified_json(capsys, repo, "--config-from", "main")[0] == 0
    other = tmp_path / "other.json"  # a config named with --config: never the base's alone
    other.write_text(_rewritten(), encoding="utf-8")
    assert verified_json(capsys, repo, "--config", str(other), "--config-from", "main")[0] == 1
    (repo / "tierlock.runtime.json").write_text(_gate(), encoding="utf-8")  # an ignored-looking, untracked config
    (repo / ".git" / "info" / "exclude").write_text("tierlock.runtime.json\n", encoding="utf-8")
    code, gate = verified_json(capsys, repo, "--config-from", "main")
    assert code == 1, gate


def test_no_config_here_nor_at_the_base_is_still_refused(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    repo = _repo(tmp_path, {"pyproject.toml": PYPROJECT.format(name="app")}, {"README": "x"})
    code, _, err = run_cli(capsys, "--project", str(repo), "verify", "--config-from", "main")
    assert code == 2
    assert "no runtime config found" in err


def test_a_tier_renamed_on_the_branch_still_gets_the_bases_ci_required_install_and_blocks(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """main requires the tier ``brain`` in CI (the setup is derived: ``install-tier base brain``); the branch renames
    it ``cortex`` and drops the requirement. The base's install still runs, finds no tier ``brain`` and the run is
    blocked: never green on the branch's own checks."""
    pyproject = (
        '[project]\nname = "app"\nversion = "1"\n[project.optional-dependencies]\nbrain = ["corelib"]\n'
        '[tool.tierlock]\nlock-dir = "locks"\nci-require = ["brain"]\n[tool.tierlock.tiers.brain]\n'
        'source = "extra:brain"\n'
    )
    base = {"pyproject.toml": pyproject, "locks/base.txt": "", "tierlock.runtime.json": _rewritten()}
    renamed = pyproject.replace("brain", "cortex").replace('ci-require = ["cortex"]\n', "")
    repo = _repo(tmp_path, base, {"pyproject.toml": renamed})
    code, doc = verify_json(capsys, repo, "--config-from", "main")
    setup = [(c["args"], c["status"]) for c in doc["commands"] if c["list"] == "setup"]
    assert [args for args, _ in setup] == [["base", "brain"]], doc["commands"]
    assert setup[0][1] != "passed"
    assert (code, doc["result"]) == (3, "blocked")
    assert verified_json(capsys, repo, "--config-from", "main")[1]["reason"] == "blocked"


def test_a_base_config_whose_object_is_missing_fails_closed_naming_it(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """Before: the missing blob was read as an empty file and refused as JSON that does not parse at line 1."""
    repo = _repo(tmp_path, _project(""), {"tierlock.runtime.json": _rewritten()})
    blob = git(repo, "rev-parse", "main:tierlock.runtime.json").strip()
    (repo / ".git" / "objects" / blob[:2] / blob[2:]).unlink()
    code, _, err = run_cli(capsys, "--project", str(repo), "verify", "--config-from", "main")
    assert code == 2
    assert f"main:tierlock.runtime.json cannot be read: git has no object {blob}" in err
    assert verified_json(capsys, repo, "--config-from", "main")[0] == 1


def test_a_setup_derived_at_the_base_comes_from_the_base_configs_own_folder(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """The base's config in app/ has no setup list: its setup is derived from the lockfile main holds in app/
    (the branch deleted it), not from the top's (none)."""
    base = {**_project("app"), "app/Cargo.lock": "version = 3\n"}
    repo = _repo(tmp_path, base, {"app/Cargo.lock": None})
    code, doc = verify_json(capsys, repo / "app", "--config-from", "main")
    setup = [(c["command"], c["args"]) for c in doc["commands"] if c["list"] == "setup"]
    assert setup == [("cargo", ["fetch", "--locked"])], doc["commands"]
    assert code != 0


def test_a_named_path_outside_the_tree_is_refused_as_no_file_at_the_ref(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """Before: git refused the path, and the message said the ref did not exist."""
    repo = _repo(tmp_path, _project(""), {})
    code, _, err = run_cli(capsys, "--project", str(repo), "verify", "--config-from", "main:../x.json")
    assert code == 2
    assert "main holds no file ../x.json" in err


def test_a_bare_branch_name_a_ci_checkout_has_only_as_a_remote_branch_names_that_one(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """A checkout of the branch alone has ``origin/main`` but no ``main``: ``--config-from main`` was refused with
    "pass an existing branch" (prose); now the remedy is the run with ``--config-from origin/main``, run as printed."""
    upstream = _repo(tmp_path, _project(""), {"tierlock.runtime.json": _rewritten()})
    clone = tmp_path / "ci"
    git(tmp_path, "clone", "-q", "--branch", "b", f"file://{upstream}", str(clone))
    code, _, err = run_cli(capsys, "--project", str(clone), "verify", "--config-from", "main")
    assert code == 2
    assert "(did you mean origin/main?)" in err
    remedy = next(line for line in err.splitlines() if "to fix:" in line).split("to fix:", 1)[1].strip()
    assert remedy == f"tierlock --project {clone} verify --config-from origin/main"
    code, gate = verified_json(capsys, clone, "--config-from", "main")
    assert (code, gate["remedy"]) == (1, remedy)
    argv = [*shlex.split(remedy.replace("tierlock", f"{shlex.quote(sys.executable)} -m tierlock", 1)), "--json"]
    doc = json.loads(subprocess.run(argv, capture_output=True, text=True, check=False).stdout)
    assert ("strict", "ref", "failed") in [(c["key"], c["commandSource"], c["status"]) for c in doc["commands"]]
    assert verified_json(capsys, clone, "--config-from", "origin/main")[1]["reason"] == "failed"
    code, _, err = run_cli(capsys, "--project", str(clone), "verify", "--config-from", "main:tierlock.runtime.json")
    assert "--config-from origin/main:tierlock.runtime.json" in err
