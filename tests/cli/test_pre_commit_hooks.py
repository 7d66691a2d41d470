"""The pre-commit hooks this repository ships (``.pre-commit-hooks.yaml``), run by real pre-commit.

This working tree is taken as ``pre-commit try-repo`` takes it (its HEAD, or with uncommitted changes to tracked
files a shadow clone with them committed: :func:`_this_tree`), and a ``.pre-commit-config.yaml`` naming it as a
user's ``repo:`` entry would (the one the README and the how-to show, pointed at it) has real pre-commit install
the hooks into their own virtualenv, once for this module (``try-repo`` would build that virtualenv again at every
call, in a store of its own), and run them in a real git repository: a project whose lockfiles and runtime config
are in order passes both hooks; one whose pyproject.toml drifted from its lockfiles and whose runtime config is
invalid fails each, naming what is wrong; both run at every commit, one that only deletes a lockfile or changes a
lockfile in another lock-dir included.

Offline: pip (inside pre-commit's virtualenv) reads a local folder holding tierlock's dependencies and its
build backend, repacked from this environment.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from tests.support import doctutorial
from tests.support.dist import ROOT, dependency_wheels
from tests.support.env import bin_dir, clean_env
from tests.support.gitrepo import IDENTITY, git
from tests.support.plugin_project import CI_VARS
from tests.support.repack import repack_closure

pytestmark = pytest.mark.slow

DEMO = ROOT / "examples" / "demo"


@pytest.fixture(scope="module")
def hook_env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """pre-commit's home (its hook environments, shared by this module's tests) and pip pointed at a local folder."""
    house = tmp_path_factory.mktemp("hook-house")
    dependency_wheels(house, extras=("cli",))
    repack_closure(["hatchling"], house)  # tierlock's build backend: pip builds the hook repository
    home = tmp_path_factory.mktemp("pre-commit-home")
    return clean_env(
        {
            "PRE_COMMIT_HOME": str(home),
            "PIP_NO_INDEX": "1",
            "PIP_FIND_LINKS": str(house),
            "PATH": os.pathsep.join(["/usr/bin", "/bin"]),
            "NO_COLOR": "1",
        }
    )


def _project(root: Path) -> Path:
    """A git repository holding the demo project (lockfiles, runtime config, tests), committed."""
    shutil.copytree(DEMO, root, ignore=shutil.ignore_patterns("build", "__pycache__", "*.egg-info", ".venv"))
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    subprocess.run(["git", "add", "-A"], cwd=root, check=True)
    subprocess.run(["git", "commit", "-qm", "demo"], cwd=root, check=True)
    return root


def _this_tree(tmp: Path) -> tuple[str, str]:
    """(repository, rev) of this working tree as ``pre-commit try-repo`` takes it: this repository at HEAD, or,
    when a tracked file differs from HEAD, a clone of it at HEAD with those changes (staged or not) committed
    (the steps of pre-commit's ``try_repo._repo_ref``)."""
    env = clean_env(IDENTITY)
    head = git(ROOT, "rev-parse", "HEAD").strip()
    same = subprocess.run(["git", "diff", "--quiet", "--no-ext-diff", "HEAD"], cwd=ROOT, env=env, check=False)
    if same.returncode == 0:
        return str(ROOT), head
    shadow = tmp / "shadow-repo"
    subprocess.run(["git", "clone", "-q", str(ROOT), str(shadow)], check=True, env=env)
    subprocess.run(["git", "checkout", "-q", head, "-b", "_pc_tmp"], cwd=shadow, check=True, env=env)
    into = {
        **env,
        "GIT_INDEX_FILE": str(shadow / ".git" / "index"),
        "GIT_OBJECT_DIRECTORY": str(shadow / ".git" / "objects"),
    }
    staged = git(ROOT, "diff", "--staged", "--name-only", "--no-ext-diff", "-z").split("\0")
    if [name for name in staged if name]:
        subprocess.run(["git", "add", "--", *[n for n in staged if n]], cwd=ROOT, check=True, env=into)
    subprocess.run(["git", "add", "-u"], cwd=ROOT, check=True, env=into)
    subprocess.run(["git", "commit", "-qm", "uncommitted changes", "--no-verify"], cwd=shadow, check=True, env=env)
    return str(shadow), git(shadow, "rev-parse", "HEAD").strip()


def _snippet(page: Path, path: str) -> str:
    """The content of the ``<!-- file: PATH -->`` block of a documentation page (the doc-runner's reading)."""
    found = [
        s.content for s in doctutorial.parse(page.read_text(encoding="utf-8")) if s.kind == "file" and s.path == path
    ]
    assert len(found) == 1, f"{page}: one {path} block expected"
    return found[0]


HOWTO = ROOT / "docs" / "howto" / "pre-commit-and-github-action.md"


@pytest.fixture(scope="module")
def hook_config(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The how-to's ``.pre-commit-config.yaml`` (both hooks), pointed at this working tree (:func:`_this_tree`);
    outside the projects the hooks run in (``pre-commit run --config``)."""
    folder = tmp_path_factory.mktemp("this-tree")
    repo, rev = _this_tree(folder)
    config = _snippet(HOWTO, ".pre-commit-config.yaml")
    assert "https://github.com/OWNER/tierlock" in config
    assert "v0.1.0" in config
    path = folder / ".pre-commit-config.yaml"
    path.write_text(config.replace("https://github.com/OWNER/tierlock", repo).replace("v0.1.0", rev), encoding="utf-8")
    return path


def _pre_commit(root: Path, env: dict[str, str], config: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``pre-commit run --config CONFIG ARGS`` in the project *root* (the hooks' virtualenv made at its first run,
    kept in the module's ``PRE_COMMIT_HOME``)."""
    argv = [str(bin_dir() / "pre-commit"), "run", "--config", str(config), *args]
    return subprocess.run(argv, cwd=root, env=env, capture_output=True, text=True, check=False)


def test_the_manifest_declares_both_hooks_for_pip_installing_pre_commit() -> None:
    hooks = {h["id"]: h for h in yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))}
    assert sorted(hooks) == ["tierlock-check", "tierlock-validate"]
    for hook in hooks.values():
        assert hook["language"] == "python"
        assert hook["pass_filenames"] is False  # each looks at the whole project
        assert hook["always_run"] is True  # at every commit: a file pattern misses deletions and other lock-dirs
        assert "files" not in hook
        assert hook["additional_dependencies"] == [".[cli]"]
    assert hooks["tierlock-check"]["entry"] == "tierlock check --strict"  # fails what CI fails
    assert hooks["tierlock-validate"]["entry"] == "tierlock validate"


@pytest.mark.usefixtures("git_identity")
def test_a_project_in_order_passes_both_hooks(hook_env: dict[str, str], hook_config: Path, tmp_path: Path) -> None:
    root = _project(tmp_path / "demo")
    run = _pre_commit(root, hook_env, hook_config, "--all-files")
    assert run.returncode == 0, run.stdout + run.stderr
    assert "tierlock check (lockfiles in sync with pyproject.toml, tests gated)" in run.stdout
    assert run.stdout.count("Passed") == 2, run.stdout


@pytest.mark.usefixtures("git_identity")
def test_a_drifted_lock_and_an_invalid_runtime_config_fail_their_hooks_naming_what_is_wrong(
    hook_env: dict[str, str], hook_config: Path, tmp_path: Path
) -> None:
    root = _project(tmp_path / "demo")
    pyproject = root / "pyproject.toml"
    pyproject.write_text(pyproject.read_text(encoding="utf-8").replace('"tabulate>=0.9"', '"tabulate>=0.8"'))
    shutil.copy(DEMO / "broken.runtime.json", root / "tierlock.runtime.json")
    subprocess.run(["git", "commit", "-qam", "drift"], cwd=root, check=True)

    check = _pre_commit(root, hook_env, hook_config, "tierlock-check", "--all-files")
    assert check.returncode == 1, check.stdout + check.stderr
    assert "Failed" in check.stdout
    assert "input-drift: base: tabulate>=0.9 became tabulate>=0.8" in check.stdout
    assert "to fix: tierlock lock base" in check.stdout

    validate = _pre_commit(root, hook_env, hook_config, "tierlock-validate", "--all-files")
    assert validate.returncode == 1, validate.stdout + validate.stderr
    assert "Failed" in validate.stdout
    assert "tierlock.runtime.json:" in validate.stdout


@pytest.mark.usefixtures("git_identity")
def test_both_hooks_run_at_every_commit_whichever_files_it_changes(
    hook_env: dict[str, str], hook_config: Path, tmp_path: Path
) -> None:
    # a file pattern cannot see what check reads: another lock-dir, `lock = "pylock.toml"`, a deleted file
    root = _project(tmp_path / "demo")
    run = _pre_commit(root, hook_env, hook_config, "--files", "README.md")
    assert run.returncode == 0, run.stdout + run.stderr
    assert "Skipped" not in run.stdout, run.stdout
    assert run.stdout.count("Passed") == 2, run.stdout


def _staged(root: Path, env: dict[str, str], config: Path, hook: str) -> subprocess.CompletedProcess[str]:
    """The hook as ``git commit`` runs it: on the staged files (pre-commit leaves deleted files out of them)."""
    return _pre_commit(root, env, config, hook)


@pytest.mark.usefixtures("git_identity")
def test_a_commit_that_only_deletes_a_lockfile_fails_the_check_hook(
    hook_env: dict[str, str], hook_config: Path, tmp_path: Path
) -> None:
    # before: pre-commit hands a hook no deleted file, so the hook was skipped and the commit passed
    root = _project(tmp_path / "demo")
    subprocess.run(["git", "rm", "-q", "lockfiles/brain.txt"], cwd=root, check=True)
    run = _staged(root, hook_env, hook_config, "tierlock-check")
    assert run.returncode == 1, run.stdout + run.stderr
    assert "Failed" in run.stdout
    assert "to fix: tierlock lock brain" in run.stdout


@pytest.mark.usefixtures("git_identity")
def test_a_commit_that_only_deletes_the_runtime_config_fails_the_validate_hook(
    hook_env: dict[str, str], hook_config: Path, tmp_path: Path
) -> None:
    root = _project(tmp_path / "demo")
    subprocess.run(["git", "rm", "-q", "tierlock.runtime.json"], cwd=root, check=True)
    run = _staged(root, hook_env, hook_config, "tierlock-validate")
    assert run.returncode != 0, run.stdout + run.stderr
    assert "no runtime config found" in run.stdout


@pytest.mark.usefixtures("git_identity")
def test_a_drifted_lockfile_in_another_lock_dir_fails_the_check_hook(
    hook_env: dict[str, str], hook_config: Path, tmp_path: Path
) -> None:
    # before: the hook watched lockfiles/ only: a lock-dir of another name was never checked
    root = _project(tmp_path / "demo")
    pyproject = root / "pyproject.toml"
    pyproject.write_text(pyproject.read_text(encoding="utf-8").replace('lock-dir = "lockfiles"', 'lock-dir = "locks"'))
    subprocess.run(["git", "mv", "lockfiles", "locks"], cwd=root, check=True)
    subprocess.run(["git", "commit", "-qam", "locks"], cwd=root, check=True)
    lockfile = root / "locks" / "base.txt"
    lockfile.write_text(lockfile.read_text(encoding="utf-8").replace("tabulate==0.10.0", "tabulate==0.9.0"))
    subprocess.run(["git", "add", "locks/base.txt"], cwd=root, check=True)
    run = _staged(root, hook_env, hook_config, "tierlock-check")
    assert run.returncode == 1, run.stdout + run.stderr
    assert "Failed" in run.stdout
    assert "locks/base.txt" in run.stdout


@pytest.mark.usefixtures("git_identity")
def test_a_new_test_file_needing_a_tier_outside_its_globs_runs_the_check_hook_and_fails_it(
    hook_env: dict[str, str], hook_config: Path, tmp_path: Path
) -> None:
    # before: the hook watched only pyproject.toml and the lockfiles: the commit passed, and CI's admit failed later
    root = _project(tmp_path / "demo")
    (root / "tests" / "test_stats.py").write_text("import numpy\n\n\ndef test_mean():\n    assert numpy\n")
    subprocess.run(["git", "add", "tests/test_stats.py"], cwd=root, check=True)
    run = _pre_commit(root, hook_env, hook_config, "tierlock-check", "--files", "tests/test_stats.py")
    assert run.returncode == 1, run.stdout + run.stderr
    assert "tests/test_stats.py:1: brain: census-importer:" in run.stdout
    assert "to fix: tierlock census --fix" in run.stdout
    ini = _pre_commit(root, hook_env, hook_config, "tierlock-check", "--files", "tox.ini", "conftest.py")
    assert "(no files to check)Skipped" not in ini.stdout  # (pytest's configuration and conftests are read too)


@pytest.mark.usefixtures("git_identity")
def test_the_documented_pre_commit_config_runs_as_written(
    hook_env: dict[str, str], hook_config: Path, tmp_path: Path
) -> None:
    """The README's snippet is the how-to's; pointed at this repository's tree (:func:`_this_tree`), pre-commit runs
    both hooks from the project's own ``.pre-commit-config.yaml``."""
    assert _snippet(ROOT / "README.md", ".pre-commit-config.yaml") == _snippet(HOWTO, ".pre-commit-config.yaml")
    root = _project(tmp_path / "demo")
    (root / ".pre-commit-config.yaml").write_text(hook_config.read_text(encoding="utf-8"), encoding="utf-8")
    run = subprocess.run(
        [str(bin_dir() / "pre-commit"), "run", "--all-files"],
        cwd=root,
        env=hook_env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.stdout.count("Passed") == 2, run.stdout


@pytest.mark.usefixtures("git_identity")
def test_the_documented_monorepo_config_checks_each_project_in_its_subfolder(
    hook_env: dict[str, str], hook_config: Path, tmp_path: Path
) -> None:
    """The how-to's monorepo snippet: a hook entry per project (``args: [--project, DIR]``); the project whose lock
    drifted fails its own entry, naming its lockfile, and the other passes."""
    root = tmp_path / "monorepo"
    root.mkdir()
    for name in ("api", "worker"):
        shutil.copytree(DEMO, root / name, ignore=shutil.ignore_patterns("build", "__pycache__", "*.egg-info", ".venv"))
    repo = yaml.safe_load(hook_config.read_text(encoding="utf-8"))["repos"][0]
    documented = yaml.safe_load(_snippet(HOWTO, "monorepo/.pre-commit-config.yaml"))
    documented["repos"][0].update(repo=repo["repo"], rev=repo["rev"])
    config = root / ".pre-commit-config.yaml"
    config.write_text(yaml.safe_dump(documented), encoding="utf-8")
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    subprocess.run(["git", "add", "-A"], cwd=root, check=True)
    subprocess.run(["git", "commit", "-qm", "two projects"], cwd=root, check=True)
    passed = _pre_commit(root, hook_env, config, "--all-files")
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert passed.stdout.count("Passed") == 3, passed.stdout

    lockfile = root / "worker" / "lockfiles" / "base.txt"
    lockfile.write_text(lockfile.read_text(encoding="utf-8").replace("tabulate==0.10.0", "tabulate==0.9.0"))
    subprocess.run(["git", "add", "worker/lockfiles/base.txt"], cwd=root, check=True)
    run = _pre_commit(root, hook_env, config)
    assert run.returncode == 1, run.stdout + run.stderr
    assert "tierlock check (api)" in run.stdout
    assert run.stdout.count("Failed") == 1, run.stdout
    assert "lockfiles/base.txt: base: hand-edit" in run.stdout
    assert "to fix: tierlock --project worker lock base brain" in run.stdout


@pytest.mark.usefixtures("git_identity")
def test_a_commit_that_switches_the_pytest_gate_off_fails_the_check_hook_as_it_fails_in_ci(
    hook_env: dict[str, str], hook_config: Path, tmp_path: Path
) -> None:
    # before: `tierlock check` outside CI only warns (the gate switched off fails in CI): the commit passed the
    # hook, and CI's check and admit failed it later
    laptop = {k: v for k, v in hook_env.items() if k not in CI_VARS}  # a commit on a laptop, even in a CI run
    root = _project(tmp_path / "demo")
    pyproject = root / "pyproject.toml"
    text = pyproject.read_text(encoding="utf-8")
    pyproject.write_text(text.replace('testpaths = ["tests"]', 'testpaths = ["tests"]\naddopts = "-p no:tierlock"'))
    subprocess.run(["git", "add", "pyproject.toml"], cwd=root, check=True)
    run = _staged(root, laptop, hook_config, "tierlock-check")
    assert run.returncode == 1, run.stdout + run.stderr
    assert "Failed" in run.stdout
    assert "the tierlock pytest gate is off: addopts holds -p no:tierlock" in run.stdout
    assert "to fix: remove -p no:tierlock from addopts in pyproject.toml" in run.stdout
