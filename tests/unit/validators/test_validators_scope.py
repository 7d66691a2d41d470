"""The cwd rule against real checkouts: symlinks followed, scopes, the git top level."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any, Literal

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


def test_ten_thousand_commands_sharing_a_cwd_resolve_it_once(checkout: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    resolved: list[str] = []
    real = os.path.realpath

    def counting(path: Any, *args: Any, **kwargs: Any) -> Any:
        resolved.append(os.fspath(path))
        return real(path, *args, **kwargs)

    commands = [{"key": f"k{i}", "command": "pytest", "cwd": "packages/app"} for i in range(10_000)]
    commands.append({"key": "bad", "command": "pytest", "cwd": "packages/none"})
    path = write_config(checkout, config(*commands))
    monkeypatch.setattr(os.path, "realpath", counting)
    result = validate_runtime_config(path, checkout=checkout)
    assert rules_at(result) == {("RC015", "verification[10000].cwd")}
    assert result.commands_checked == 10_001
    assert sum(1 for p in resolved if p.endswith(os.path.join("packages", "app"))) == 1
    assert sum(1 for p in resolved if p.endswith(os.path.join("packages", "none"))) == 1


def test_an_empty_repository_list_keeps_the_cwd_check_on(checkout: Path) -> None:
    (checkout / "tmp-link").symlink_to(checkout.parent / "outside", target_is_directory=True)
    commands = [
        {"key": "a", "command": "pytest", "cwd": "tmp-link"},
        {"key": "b", "command": "pytest", "cwd": "packages/nowhere"},
        {"key": "c", "command": "pytest", "cwd": "packages/app"},
    ]
    result = validate_runtime_config(write_config(checkout, config(*commands, repositories=[])), checkout=checkout)
    assert rules_at(result) == {("RC015", "verification[0].cwd"), ("RC015", "verification[1].cwd")}


def test_a_symlink_to_a_sibling_whose_name_starts_like_the_checkout_is_refused(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    evil = tmp_path / "repo-evil"
    (repo / "src").mkdir(parents=True)
    evil.mkdir()
    (repo / "sneaky").symlink_to(evil, target_is_directory=True)
    repos_doc = config(
        {"key": "a", "command": "pytest", "cwd": "sneaky"},
    )
    result = validate_runtime_config(write_config(repo, repos_doc), checkout=repo)
    assert rules_at(result) == {("RC015", "verification[0].cwd")}
    aliased = config(
        {"key": "a", "command": "pytest", "repositoryId": "r"}, repositories=[{"id": "r", "path": "sneaky"}]
    )
    result = validate_runtime_config(write_config(repo, aliased), checkout=repo)
    assert rules_at(result) == {("RC016", "repositories[0].path")}


@pytest.mark.parametrize("checkout_arg", ["checkout", False])
def test_a_repository_path_leaving_the_checkout_through_dotdot_is_refused_lexically(
    checkout: Path, checkout_arg: Any
) -> None:
    repos = [{"id": "x", "path": "packages/../../outside"}]
    document = config({"command": "pytest", "repositoryId": "x"}, repositories=repos)
    target: Path | Literal[False] = checkout if checkout_arg == "checkout" else False
    file_result = validate_runtime_config(write_config(checkout, document), checkout=target)
    assert ("RC016", "repositories[0].path") in rules_at(file_result)
    assert ("RC016", "repositories[0].path") in rules_at(validate_runtime_config(document, checkout=False))


def test_the_no_checkout_flag_refuses_a_repository_path_with_dotdot(
    checkout: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from tierlock.cli import main

    repos = [{"id": "x", "path": "../outside"}]
    path = write_config(checkout, config({"command": "pytest", "repositoryId": "x"}, repositories=repos))
    assert main(["validate", str(path), "--no-checkout"]) == 1
    assert "repositories[0].path: repository path leaves its repository through '..'" in capsys.readouterr().out


def test_a_scope_entry_that_is_a_symlink_is_refused_even_inside_the_repository(checkout: Path) -> None:
    (checkout / "app-link").symlink_to(checkout / "packages" / "app", target_is_directory=True)
    repos = [{"id": "app", "path": ".", "scope": ["app-link", "packages/lib"]}]
    cmd = {"command": "pytest", "repositoryId": "app", "cwd": "packages/lib"}
    result = validate_runtime_config(write_config(checkout, config(cmd, repositories=repos)), checkout=checkout)
    assert rules_at(result) == {("RC015", "repositories[0].scope[0]")}
    assert "symlink" in result.errors[0].message


def test_two_repositories_that_are_one_folder_through_a_symlink_are_a_duplicate(checkout: Path) -> None:
    (checkout / "app-alias").symlink_to(checkout / "packages" / "app", target_is_directory=True)
    repos = [{"id": "app", "path": "packages/app"}, {"id": "alias", "path": "app-alias"}]
    cmd = {"command": "pytest", "repositoryId": "app"}
    result = validate_runtime_config(write_config(checkout, config(cmd, repositories=repos)), checkout=checkout)
    assert rules_at(result) == {("RC016", "repositories[1].path")}
    assert result.errors[0].related is not None


@pytest.mark.parametrize(
    "document",
    [
        config({"command": "pytest"}, repositories=[{"id": "a", "path": "pack\x00ages"}]),
        config({"command": "pytest"}, repositories=[{"id": "a", "path": ".", "scope": ["src\x00"]}]),
        config({"command": "pytest", "cwd": "packages\x00/app"}),
        config({"command": "pytest", "cwd": "packages/\udc80app"}),
        config({"command": "pytest", "cwd": "packages/" + chr(0xD800) + "app"}),
    ],
    ids=["NUL in a repository path", "NUL in a scope", "NUL in cwd", "surrogate escape in cwd", "lone surrogate"],
)
def test_a_path_that_cannot_be_resolved_gives_a_report_not_a_crash(checkout: Path, document: dict[str, Any]) -> None:
    result = validate_runtime_config(document, checkout=checkout)
    assert result.exit_code == 1
    assert not result.internal_error


def test_a_nul_in_a_repository_path_read_from_a_file_is_reported(checkout: Path) -> None:
    repos = [{"id": "a", "path": "pack\x00ages", "scope": ["s\x00"]}]
    path = write_config(checkout, config({"command": "pytest", "repositoryId": "a"}, repositories=repos))
    result = validate_runtime_config(path, checkout=checkout)
    assert {("RC005", "repositories[0].path"), ("RC005", "repositories[0].scope[0]")} <= rules_at(result)
    assert result.exit_code == 1


def test_a_scope_refused_by_its_spelling_is_reported_once_not_resolved_as_well(tmp_path: Path) -> None:
    (tmp_path / "repo").mkdir()
    (tmp_path / "outside").mkdir()
    document = {
        "schemaVersion": 1,
        "repositories": [{"id": "app", "path": "repo", "scope": ["../outside"]}],
        "verification": [{"command": "run", "repositoryId": "app"}],
    }
    result = validate_runtime_config(document, checkout=tmp_path)
    assert [(e.rule, e.where) for e in result.errors if e.where.startswith("repositories")] == [
        ("RC015", "repositories[0].scope[0]")
    ]


def test_an_absolute_repository_path_is_reported_once_as_absolute_and_never_resolved(checkout: Path) -> None:
    outside = str(checkout.parent / "outside")
    repos = [{"id": "app", "path": outside}]
    path = write_config(checkout, config({"command": "pytest", "repositoryId": "app"}, repositories=repos))
    result = validate_runtime_config(path, checkout=checkout)
    found = [e.message for e in result.errors if e.where == "repositories[0].path"]
    assert found == ["must be relative to the config file's folder"]


def test_a_command_naming_an_unknown_repository_does_not_stop_the_cwd_check_of_the_next(checkout: Path) -> None:
    (checkout / "packages" / "app" / "out").symlink_to(checkout.parent / "outside", target_is_directory=True)
    repos = [{"id": "app", "path": "packages/app"}]
    commands = (
        {"command": "pytest", "repositoryId": "nope", "cwd": "tests"},
        {"command": "pytest", "repositoryId": "app", "cwd": "out"},
    )
    path = write_config(checkout, config(*commands, repositories=repos))
    result = validate_runtime_config(path, checkout=checkout)
    assert ("RC016", "verification[0].repositoryId") in rules_at(result)
    assert ("RC015", "verification[1].cwd") in rules_at(result)
