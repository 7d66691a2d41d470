"""The cwd rule against real checkouts: symlinks followed, scopes, the git top level."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.support.env import clean_env
from tierlock.validators import validate_runtime_config


def write_config(folder: Path, document: dict[str, Any], name: str = "tierlock.runtime.json") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(json.dumps(document, indent=2), encoding="utf-8")
    return path


def config(*commands: dict[str, Any], **top: Any) -> dict[str, Any]:
    return {"schemaVersion": 1, "verification": list(commands), **top}


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    """A checkout with packages/app, packages/lib, and a folder outside it."""
    root = tmp_path / "checkout"
    (root / "packages" / "app" / "tests").mkdir(parents=True)
    (root / "packages" / "lib").mkdir(parents=True)
    (tmp_path / "outside").mkdir()
    return root


def rules_at(result: Any) -> set[tuple[str, str]]:
    return {(e.rule, e.where) for e in result.errors}


def test_a_cwd_inside_the_checkout_is_accepted(checkout: Path) -> None:
    path = write_config(checkout, config({"command": "pytest", "cwd": "packages/app/tests"}))
    result = validate_runtime_config(path, checkout=checkout)
    assert result.ok, result.errors


def test_a_symlink_that_leaves_the_checkout_is_refused(checkout: Path) -> None:
    (checkout / "escape").symlink_to(checkout.parent / "outside", target_is_directory=True)
    path = write_config(checkout, config({"command": "pytest", "cwd": "escape"}))
    result = validate_runtime_config(path, checkout=checkout)
    assert rules_at(result) == {("RC015", "verification[0].cwd")}
    assert "symlinks" in result.errors[0].message
    assert validate_runtime_config(path, checkout=False).ok  # lexically it looks fine


def test_a_symlink_inside_the_checkout_is_followed_into_the_scope(checkout: Path) -> None:
    (checkout / "app-link").symlink_to(checkout / "packages" / "app", target_is_directory=True)
    repos = [{"id": "app", "path": ".", "scope": ["packages/app"]}]
    path = write_config(
        checkout, config({"command": "pytest", "repositoryId": "app", "cwd": "app-link"}, repositories=repos)
    )
    assert validate_runtime_config(path, checkout=checkout).ok


def test_a_symlink_out_of_the_scope_is_refused(checkout: Path) -> None:
    (checkout / "packages" / "app" / "lib-link").symlink_to(checkout / "packages" / "lib", target_is_directory=True)
    repos = [{"id": "app", "path": ".", "scope": ["packages/app"]}]
    cmd = {"command": "pytest", "repositoryId": "app", "cwd": "packages/app/lib-link"}
    result = validate_runtime_config(write_config(checkout, config(cmd, repositories=repos)), checkout=checkout)
    assert rules_at(result) == {("RC015", "verification[0].cwd")}
    assert "scope" in result.errors[0].message


def test_a_cwd_that_does_not_exist_is_refused(checkout: Path) -> None:
    path = write_config(checkout, config({"command": "pytest", "cwd": "packages/nowhere"}))
    result = validate_runtime_config(path, checkout=checkout)
    assert rules_at(result) == {("RC015", "verification[0].cwd")}
    assert "not an existing folder" in result.errors[0].message


def test_a_cwd_that_is_a_file_is_refused(checkout: Path) -> None:
    (checkout / "README").write_text("x")
    path = write_config(checkout, config({"command": "pytest", "cwd": "README"}))
    assert rules_at(validate_runtime_config(path, checkout=checkout)) == {("RC015", "verification[0].cwd")}


def test_repository_paths_resolve_from_the_config_folder(checkout: Path) -> None:
    repos = [{"id": "lib", "path": "../packages/lib"}]
    path = write_config(
        checkout / "ci", config({"command": "pytest", "repositoryId": "lib", "cwd": "."}, repositories=repos)
    )
    assert validate_runtime_config(path, checkout=checkout).ok


def test_a_repository_outside_the_checkout_is_refused(checkout: Path) -> None:
    repos = [{"id": "x", "path": "../outside"}]
    path = write_config(checkout, config({"command": "pytest", "repositoryId": "x"}, repositories=repos))
    assert rules_at(validate_runtime_config(path, checkout=checkout)) == {("RC016", "repositories[0].path")}


def test_a_missing_scope_folder_is_refused(checkout: Path) -> None:
    repos = [{"id": "app", "path": ".", "scope": ["packages/gone"]}]
    path = write_config(checkout, config({"command": "pytest", "repositoryId": "app"}, repositories=repos))
    assert rules_at(validate_runtime_config(path, checkout=checkout)) == {("RC015", "repositories[0].scope[0]")}


def test_the_default_checkout_is_the_git_top_level_holding_the_config(tmp_path: Path) -> None:
    top = tmp_path / "repo"
    (top / "tools").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(top)], check=True, env=clean_env(), capture_output=True)
    # Without repositories, cwd is relative to the checkout root: the git top level, not the config's folder.
    path = write_config(top / "ci", config({"command": "pytest", "cwd": "tools"}))
    result = validate_runtime_config(path)
    assert result.checkout == top.resolve()
    assert result.ok, result.errors


def test_without_git_the_default_checkout_is_the_config_folder(tmp_path: Path) -> None:
    folder = tmp_path / "plain"
    (folder / "tools").mkdir(parents=True)
    path = write_config(folder, config({"command": "pytest", "cwd": "tools"}))
    result = validate_runtime_config(path)
    assert result.checkout == folder.resolve()
    assert result.ok


def test_ten_thousand_commands_sharing_a_cwd_resolve_it_once(checkout: Path) -> None:
    commands = [{"key": f"k{i}", "command": "pytest", "cwd": "packages/app"} for i in range(2000)]
    commands.append({"key": "bad", "command": "pytest", "cwd": "packages/none"})
    result = validate_runtime_config(write_config(checkout, config(*commands)), checkout=checkout)
    assert rules_at(result) == {("RC015", "verification[2000].cwd")}
    assert result.commands_checked == 2001
