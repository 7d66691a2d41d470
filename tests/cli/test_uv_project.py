"""A uv project arms, probes, gates and admits straight from its uv.lock, as ``uv sync`` would.

Real uv (this environment's) locks a real project offline: wheels built at test
time, extras, dependency groups, a marker, a fork by Python version, a workspace
member and a declared conflict. Each test compares what tierlock does with what
``uv sync`` does on the same lock, and runs every printed remedy as printed.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.support.importtime import loaded
from tests.support.kept import backdate, entries
from tests.support.uvproject import (
    copy_project,
    editable_source,
    installed,
    locked_project,
    tool,
    uv,
    uv_env,
)

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("uvcache")


@pytest.fixture(scope="module")
def env(uv_wheelhouse: Path, cache: Path) -> dict[str, str]:
    return uv_env(uv_wheelhouse, cache)


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory, env: dict[str, str]) -> Path:
    return locked_project(tmp_path_factory.mktemp("uvtemplate") / "proj", env)


@pytest.fixture
def project(template: Path, tmp_path: Path) -> Path:
    return copy_project(template, tmp_path / "proj")


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _sh(command: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """A printed remedy, run exactly as printed."""
    return subprocess.run(["bash", "-c", command], cwd=cwd, env=env, capture_output=True, text=True, check=False)


SELECTIONS = [
    (["base"], []),
    (["brain"], ["--extra", "brain"]),
    (["old", "test"], ["--extra", "old", "--group", "test"]),
    (["tools"], ["--group", "tools"]),
]


@pytest.mark.parametrize(("tiers", "flags"), SELECTIONS, ids=["base", "brain", "old+test", "tools"])
def test_install_tier_gives_the_environment_uv_sync_gives(
    project: Path, env: dict[str, str], tmp_path: Path, tiers: list[str], flags: list[str]
) -> None:
    synced = tmp_path / "synced"
    uv(["sync", "--no-default-groups", *flags], project, {**env, "UV_PROJECT_ENVIRONMENT": str(synced)})
    result = tool("install-tier", tiers, project, env)
    assert result.returncode == 0, result.stderr
    armed = project / ".venv"
    assert installed(armed) == installed(synced)
    for name in ("proj", "member"):  # the project itself and its workspace member, editable from their folders
        assert editable_source(armed, name) == editable_source(synced, name) is not None


def test_on_another_python_the_tier_takes_that_pythons_fork(project: Path, env: dict[str, str], tmp_path: Path) -> None:
    python312 = Path("/root/.pyenv/versions/3.12.1/bin/python3.12")
    if not python312.is_file():
        pytest.skip("needs CPython 3.12 at /root/.pyenv/versions/3.12.1")
    other = {**env, "UV_PYTHON": str(python312)}
    synced = tmp_path / "synced"
    uv(["sync", "--no-default-groups", "--group", "test"], project, {**other, "UV_PROJECT_ENVIRONMENT": str(synced)})
    uv(["venv", str(tmp_path / "armed")], project, other)
    result = tool("install-tier", ["test", "--python", str(tmp_path / "armed")], project, env)
    assert result.returncode == 0, result.stderr
    assert installed(tmp_path / "armed")["delta"] == installed(synced)["delta"] == "2.0"


def test_install_tier_and_uv_sync_leave_each_other_nothing_to_do(project: Path, env: dict[str, str]) -> None:
    assert tool("install-tier", ["brain"], project, env).returncode == 0
    synced = uv(["sync", "--inexact", "--extra", "brain", "--no-default-groups"], project, env)
    assert "Installed" not in synced.stderr, synced.stderr
    assert "Uninstalled" not in synced.stderr, synced.stderr
    shutil.rmtree(project / ".venv" / "tierlock")  # no receipt: the full plan, not the fast path, decides
    again = tool("install-tier", ["brain", "--json"], project, env)
    document = json.loads(again.stdout)
    assert document["result"] == "unchanged", document
    assert {p["action"] for p in document["local_packages"]} == {"satisfied"}


def test_status_says_a_plain_uv_sync_pruned_the_tier_and_its_remedy_rearms_it(
    project: Path, env: dict[str, str]
) -> None:
    assert tool("install-tier", ["brain"], project, env).returncode == 0
    uv(["sync"], project, env)  # exact, no extra: removes what brain added
    status = tool("tierlock", ["status", "brain", "--json"], project, env)
    (row,) = json.loads(status.stdout)["tiers"]
    assert row["state"] == "absent"
    assert row["pruned"] is True
    (why,) = [p for p in row["problems"] if "uv sync" in p]
    assert "corelib" in why
    assert "gamma" in why
    assert "`uv sync --inexact` keeps brain" in why
    assert _sh(row["remedy"], project, env).returncode == 0
    assert "corelib" in installed(project / ".venv")


def test_uv_run_keeps_the_tier_that_a_plain_uv_sync_prunes(project: Path, env: dict[str, str]) -> None:
    assert tool("install-tier", ["brain"], project, env).returncode == 0
    uv(["run", "python", "-c", "import corelib"], project, env)
    assert "corelib" in installed(project / ".venv")
    uv(["sync"], project, env)
    assert "corelib" not in installed(project / ".venv")


def test_a_member_of_the_workspace_is_armed_and_no_install_project_leaves_only_the_project_out(
    project: Path, env: dict[str, str]
) -> None:
    result = tool("install-tier", ["base", "--no-install-project"], project, env)
    assert result.returncode == 0, result.stderr
    armed = installed(project / ".venv")
    assert "proj" not in armed
    assert armed["member"] == "0.2.0"


def test_conflicting_extras_are_never_armed_together(project: Path, env: dict[str, str]) -> None:
    refused = tool("install-tier", ["brain", "old"], project, env)
    assert refused.returncode == 2, refused.stderr
    assert "brain" in refused.stderr
    assert "old" in refused.stderr
    assert not (project / ".venv").exists() or "corelib" not in installed(project / ".venv")
    assert uv(["sync", "--extra", "brain", "--extra", "old"], project, env, check=False).returncode != 0


def test_tierlock_lock_refuses_and_names_uv_lock(project: Path, env: dict[str, str]) -> None:
    before = _digest(project / "uv.lock")
    result = tool("tierlock", ["lock", "-P", "corelib"], project, env)
    assert result.returncode == 2
    assert "to fix: uv lock --upgrade-package corelib" in result.stderr
    assert _digest(project / "uv.lock") == before


def test_nothing_tierlock_runs_writes_uv_lock(project: Path, env: dict[str, str]) -> None:
    before = _digest(project / "uv.lock")
    for argv in (["check"], ["tiers"], ["status"], ["probe"], ["export", "brain"], ["matrix"], ["admit"]):
        tool("tierlock", argv, project, env)
    tool("install-tier", ["brain", "tools"], project, env)
    assert _digest(project / "uv.lock") == before


def test_probe_admit_export_and_matrix_read_the_tier_from_uv_lock(project: Path, env: dict[str, str]) -> None:
    assert tool("install-tier", ["brain"], project, env).returncode == 0
    probe = json.loads(tool("tierlock", ["probe", "brain", "--json"], project, env).stdout)
    (tier,) = probe["tiers"]
    assert tier["state"] == "present"
    assert tier["lock_used"] is True
    assert {d["name"] for d in tier["roots"]} == {"gamma", "corelib"}
    admit = tool("tierlock", ["admit", "--tier", "brain"], project, {**env, "CI": "true"})
    assert admit.returncode == 0, admit.stdout + admit.stderr
    exported = tool("tierlock", ["export", "brain", "--hashes"], project, env)
    assert "corelib==2.0" in exported.stdout
    assert "--hash=sha256:" in exported.stdout
    matrix = json.loads(tool("tierlock", ["matrix"], project, env).stdout)
    assert [job["tier"] for job in matrix["include"]] == ["base", "brain"]


EDITS: list[tuple[str, Callable[[str], str]]] = [
    ("nothing", lambda t: t),
    (
        "a comment and blank lines",
        lambda t: "# a comment\n\n" + t.replace("[dependency-groups]", "\n[dependency-groups]"),
    ),
    ("dependencies reordered and respelled", lambda t: t.replace('["alpha>=1", "winonly', '["Alpha >= 1.0", "winonly')),
    (
        "marker quoting",
        lambda t: t.replace("\"winonly; sys_platform == 'win32'\"", "'winonly ; sys_platform == \"win32\"'"),
    ),
    ("a dependency added", lambda t: t.replace('"member"]', '"member", "beta"]')),
    ("a specifier changed in an extra", lambda t: t.replace('"corelib>=2"', '"corelib>=1"')),
    ("an extra added", lambda t: t.replace('old = ["corelib<2"]', 'old = ["corelib<2"]\nnew = ["beta"]')),
    ("a group changed", lambda t: t.replace('tools = ["beta"', 'tools = ["alpha"')),
    ("requires-python changed", lambda t: t.replace('requires-python = ">=3.11"', 'requires-python = ">=3.11.2"', 1)),
    ("the version changed", lambda t: t.replace('version = "0.1.0"', 'version = "0.2.0"')),
    (
        "python_version spelled python_full_version",
        lambda t: t.replace("python_version < '3.12'", "python_full_version < '3.12'"),
    ),
    (
        "a group's items reordered",
        lambda t: t.replace(
            'tools = ["beta", { include-group = "test" }]', 'tools = [{ include-group = "test" }, "beta"]'
        ),
    ),
    ("an extra's name respelled", lambda t: t.replace("old = [", "Old = [")),
    ("a marker added", lambda t: t.replace('"corelib<2"]', "\"corelib<2; sys_platform != 'win32'\"]")),
    (
        "a conflict added",
        lambda t: t.replace('{ extra = "old" }]]', '{ extra = "old" }], [{ group = "tools" }, { extra = "old" }]]'),
    ),
    ("a member's dependency changed", lambda t: t),
]


@pytest.mark.parametrize(("label", "change"), EDITS, ids=[e[0] for e in EDITS])
def test_check_agrees_with_uv_lock_check_and_uv_lock_clears_what_it_finds(
    project: Path, env: dict[str, str], label: str, change: Callable[[str], str]
) -> None:
    pyproject = project / "pyproject.toml"
    pyproject.write_text(change(pyproject.read_text()), encoding="utf-8")
    if label == "the version changed":
        (project / "backend.py").write_text((project / "backend.py").read_text().replace("0.1.0", "0.2.0"))
    if label == "a member's dependency changed":
        member = project / "packages" / "member" / "pyproject.toml"
        member.write_text(member.read_text().replace('"beta<2"', '"beta<3"'), encoding="utf-8")
    before = _digest(project / "uv.lock")
    stale = uv(["lock", "--check"], project, env, check=False).returncode != 0
    check = tool("tierlock", ["check", "--json"], project, env)
    document = json.loads(check.stdout)
    drift = [f for f in document["findings"] if f["kind"] == "input-drift"]
    assert bool(drift) == stale, (label, document["findings"])
    assert _digest(project / "uv.lock") == before  # never rewritten
    if stale:
        assert all(f["remedy"] == "uv lock" and "out of date for pyproject.toml" in f["detail"] for f in drift)
        assert _sh(drift[0]["remedy"], project, env).returncode == 0
        again = json.loads(tool("tierlock", ["check", "--json"], project, env).stdout)
        assert not [f for f in again["findings"] if f["kind"] == "input-drift"], again["findings"]


def test_check_names_what_changed(project: Path, env: dict[str, str]) -> None:
    pyproject = project / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace('"corelib>=2"', '"corelib>=1"'), encoding="utf-8")
    check = tool("tierlock", ["check"], project, env)
    assert check.returncode == 1
    assert (
        'uv.lock: brain: input-drift: uv.lock is out of date for pyproject.toml: corelib>=2; extra == "brain"'
        in check.stdout
    )
    assert "became corelib>=1 (extra brain)" in check.stdout
    assert "to fix: uv lock" in check.stdout


def test_a_stale_uv_lock_named_from_outside_the_project_is_relocked_by_the_remedy_as_printed_there(
    project: Path, env: dict[str, str]
) -> None:
    """``install-tier --project proj brain`` from the folder above: ``uv lock`` run there finds no project; the
    remedy says ``uv --project proj lock``, which relocks it, and the same install then arms the tier."""
    pyproject = project / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace('"corelib>=2"', '"corelib>=1"'), encoding="utf-8")
    outside = project.parent
    argv = ["--project", "proj", "brain"]  # (into the project's own .venv, found from the project)
    refused = tool("install-tier", argv, outside, env)
    assert refused.returncode == 1, refused.stderr
    remedy = next(line for line in refused.stderr.splitlines() if "to fix: " in line).split("to fix: ", 1)[1]
    assert remedy == "uv --project proj lock"
    assert _sh(remedy, outside, env).returncode == 0
    armed = tool("install-tier", argv, outside, env)
    assert armed.returncode == 0, armed.stderr
    assert "corelib" in installed(project / ".venv")


def test_install_tier_fails_closed_on_a_stale_uv_lock(project: Path, env: dict[str, str]) -> None:
    pyproject = project / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace('"corelib>=2"', '"corelib>=1"'), encoding="utf-8")
    result = tool("install-tier", ["brain"], project, env)
    assert result.returncode == 1
    assert "to fix: uv lock" in result.stderr
    assert not (project / ".venv").exists()


@pytest.mark.parametrize("argv", [["probe", "--json"], ["check"], ["status"]], ids=["probe", "check", "status"])
def test_reading_uv_lock_keeps_the_fast_paths_light(project: Path, env: dict[str, str], argv: list[str]) -> None:
    import sys

    code = f"import sys; from tierlock.cli import main; sys.exit(main({argv!r}))"
    assert tool("install-tier", ["base"], project, env).returncode == 0
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", code],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode in (0, 1), proc.stderr[-2000:]
    modules = loaded(proc.stderr)
    assert "tierlock.lockfiles.uvselect" in modules
    assert {m for m in modules if m.split(".")[0] in {"rich", "jsonschema", "pip", "uv"}} == set()


def test_verify_arms_the_ci_tiers_from_uv_lock_and_binds_the_evidence(
    project: Path, env: dict[str, str], git_identity: None
) -> None:
    from tests.support.gitrepo import IDENTITY, commit_all, git, write_config

    write_config(project, [{"key": "imports", "command": ".venv/bin/python", "args": ["-c", "import corelib, proj"]}])
    (project / ".gitignore").write_text(".venv/\n__pycache__/\n", encoding="utf-8")
    git(project, "init", "-q", "-b", "main")
    commit_all(project, "first")
    evidence = project.parent / "evidence"
    verify = tool("tierlock", ["verify", "--evidence-dir", str(evidence), "--json"], project, {**env, **IDENTITY})
    document = json.loads(verify.stdout)
    assert verify.returncode == 0, document
    setup = json.loads(Path(document["receipt"]).read_text())["setup"]
    assert setup["source"] == "lockfile"
    assert "uv.lock" in setup["lockfiles"]
    assert [c["args"] for c in document["commands"] if c["list"] == "setup"] == [["base", "brain"]]
    assert tool("tierlock", ["verified", "--evidence-dir", str(evidence)], project, env).returncode == 0


def test_remove_takes_out_what_only_the_tier_needs_as_uv_lock_says(project: Path, env: dict[str, str]) -> None:
    assert tool("install-tier", ["brain"], project, env).returncode == 0
    removed = tool("tierlock", ["remove", "brain", "--json"], project, env)
    assert removed.returncode == 0, removed.stderr
    left = installed(project / ".venv")
    assert {"corelib", "gamma", "delta"}.isdisjoint(left)
    assert {"alpha", "beta", "member", "proj"} <= set(left)  # base and the project's tree stay


KEPT_EDITS = {
    "uv.lock": (
        "uv.lock",
        '{ name = "corelib", marker = "extra == \'brain\'", specifier = ">=2" }',
        '{ name = "corelib", marker = "extra == \'brain\'", specifier = ">=1" }',
    ),
    "member-pyproject": ("packages/member/pyproject.toml", '"beta<2"', '"beta<3"'),
}


@pytest.mark.parametrize("edit", list(KEPT_EDITS.values()), ids=list(KEPT_EDITS))
def test_a_kept_check_follows_an_edit_of_uv_lock_and_of_a_members_pyproject(
    project: Path, env: dict[str, str], tmp_path: Path, edit: tuple[str, str, str]
) -> None:
    edited, old, new = edit
    kept = {**env, "TIERLOCK_CACHE_DIR": str(tmp_path / "kept")}
    backdate(project)
    first = tool("tierlock", ["check"], project, kept)
    assert first.returncode == 0, first.stdout + first.stderr
    recorded = entries(tmp_path / "kept")
    again = tool("tierlock", ["check"], project, kept)
    assert (again.returncode, again.stdout) == (0, first.stdout)
    assert entries(tmp_path / "kept") == recorded != {}  # answered from the kept entry, not recorded again
    path = project / edited
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new), encoding="utf-8")
    after = tool("tierlock", ["check"], project, kept)
    assert after.returncode == 1, after.stdout
    assert "input-drift" in after.stdout
