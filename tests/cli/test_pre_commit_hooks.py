"""The pre-commit hooks this repository ships (``.pre-commit-hooks.yaml``), run by real pre-commit.

``pre-commit try-repo`` installs the hooks from this working tree (uncommitted changes included) into its own
virtualenv, as a user's ``repo:`` entry would, and runs them in a real git repository: a project whose lockfiles
and runtime config are in order passes both hooks; one whose pyproject.toml drifted from its lockfiles and whose
runtime config is invalid fails each, naming what is wrong; a change to no file a hook watches skips it. The
``.pre-commit-config.yaml`` the README and the how-to show runs as written (pointed at this repository's commit).

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


def _try_repo(root: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    argv = [str(bin_dir() / "pre-commit"), "try-repo", str(ROOT), *args]
    return subprocess.run(argv, cwd=root, env=env, capture_output=True, text=True, check=False)


def test_the_manifest_declares_both_hooks_for_pip_installing_pre_commit() -> None:
    hooks = {h["id"]: h for h in yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))}
    assert sorted(hooks) == ["tierlock-check", "tierlock-validate"]
    for hook in hooks.values():
        assert hook["language"] == "python"
        assert hook["pass_filenames"] is False  # each looks at the whole project
        assert hook["additional_dependencies"] == [".[cli]"]
    assert hooks["tierlock-check"]["entry"] == "tierlock check"
    assert hooks["tierlock-validate"]["entry"] == "tierlock validate"


@pytest.mark.usefixtures("git_identity")
def test_a_project_in_order_passes_both_hooks(hook_env: dict[str, str], tmp_path: Path) -> None:
    root = _project(tmp_path / "demo")
    run = _try_repo(root, hook_env, "--all-files")
    assert run.returncode == 0, run.stdout + run.stderr
    assert "tierlock check (lockfiles in sync with pyproject.toml)" in run.stdout
    assert run.stdout.count("Passed") == 2, run.stdout


@pytest.mark.usefixtures("git_identity")
def test_a_drifted_lock_and_an_invalid_runtime_config_fail_their_hooks_naming_what_is_wrong(
    hook_env: dict[str, str], tmp_path: Path
) -> None:
    root = _project(tmp_path / "demo")
    pyproject = root / "pyproject.toml"
    pyproject.write_text(pyproject.read_text(encoding="utf-8").replace('"tabulate>=0.9"', '"tabulate>=0.8"'))
    shutil.copy(DEMO / "broken.runtime.json", root / "tierlock.runtime.json")
    subprocess.run(["git", "commit", "-qam", "drift"], cwd=root, check=True)

    check = _try_repo(root, hook_env, "tierlock-check", "--all-files")
    assert check.returncode == 1, check.stdout + check.stderr
    assert "Failed" in check.stdout
    assert "input-drift: base: tabulate>=0.9 became tabulate>=0.8" in check.stdout
    assert "to fix: tierlock lock base" in check.stdout

    validate = _try_repo(root, hook_env, "tierlock-validate", "--all-files")
    assert validate.returncode == 1, validate.stdout + validate.stderr
    assert "Failed" in validate.stdout
    assert "tierlock.runtime.json:" in validate.stdout


@pytest.mark.usefixtures("git_identity")
def test_a_change_to_no_watched_file_skips_both_hooks(hook_env: dict[str, str], tmp_path: Path) -> None:
    root = _project(tmp_path / "demo")
    run = _try_repo(root, hook_env, "--files", "README.md")
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.stdout.count("(no files to check)Skipped") == 2, run.stdout
    watched = _try_repo(root, hook_env, "tierlock-check", "--files", "lockfiles/base.txt")
    assert watched.returncode == 0, watched.stdout + watched.stderr
    assert "Passed" in watched.stdout


def _snippet(page: Path, path: str) -> str:
    """The content of the ``<!-- file: PATH -->`` block of a documentation page (the doc-runner's reading)."""
    found = [
        s.content for s in doctutorial.parse(page.read_text(encoding="utf-8")) if s.kind == "file" and s.path == path
    ]
    assert len(found) == 1, f"{page}: one {path} block expected"
    return found[0]


@pytest.mark.usefixtures("git_identity")
def test_the_documented_pre_commit_config_runs_as_written(hook_env: dict[str, str], tmp_path: Path) -> None:
    """The README's snippet is the how-to's; pointed at this repository's commit, pre-commit runs both hooks."""
    howto = _snippet(ROOT / "docs" / "howto" / "pre-commit-and-github-action.md", ".pre-commit-config.yaml")
    assert _snippet(ROOT / "README.md", ".pre-commit-config.yaml") == howto
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True, check=True)
    config = howto.replace("https://github.com/OWNER/tierlock", str(ROOT)).replace("v0.1.0", head.stdout.strip())
    root = _project(tmp_path / "demo")
    (root / ".pre-commit-config.yaml").write_text(config, encoding="utf-8")
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
