"""The uv workspace a project is a member of, found as uv finds it: the nearest folder above with
``[tool.uv.workspace]``, when its ``members`` globs match the project's folder and no ``exclude`` glob does."""

from __future__ import annotations

from pathlib import Path

import pytest

from tierlock.tiers.workspace import lock_of, relative, workspace_root


def _write(folder: Path, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "pyproject.toml").write_text(text, encoding="utf-8")
    return folder


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    text = '[tool.uv.workspace]\nmembers = ["packages/*", "/abs", ""]\nexclude = ["packages/old"]\n'
    root = _write(tmp_path / "ws", text)
    for name in ("a", "old"):
        _write(root / "packages" / name, f'[project]\nname = "{name}"\n')
    (root / "uv.lock").write_text("version = 1\n", encoding="utf-8")
    return root


def test_a_member_finds_its_workspace_and_its_lock_named_from_the_member(workspace: Path) -> None:
    member = workspace / "packages" / "a"
    assert workspace_root(member) == workspace.resolve()
    found = lock_of(member)
    assert found == workspace.resolve() / "uv.lock"
    assert relative(member, found) == "../../uv.lock"


def test_an_excluded_folder_a_folder_no_glob_matches_and_the_root_itself_are_no_members(workspace: Path) -> None:
    assert workspace_root(workspace / "packages" / "old") is None
    assert workspace_root(_write(workspace / "tools" / "x", '[project]\nname = "x"\n')) is None
    assert workspace_root(workspace) is None  # (the root is no member of a workspace above it)


def test_the_nearest_workspace_decides_and_a_workspace_without_uv_lock_gives_no_lock(workspace: Path) -> None:
    inner = _write(workspace / "packages" / "a" / "nested", '[tool.uv.workspace]\nmembers = ["libs/*"]\n')
    lib = _write(inner / "libs" / "b", '[project]\nname = "b"\n')
    assert workspace_root(lib) == inner.resolve()
    assert lock_of(lib) is None  # the nested workspace has no uv.lock of its own
    assert workspace_root(_write(inner / "other", "")) is None  # the nearest does not list it: no outer search


@pytest.mark.parametrize(
    "text",
    ["[tool.uv]\nworkspace = 1\n", "not toml [", '[tool.uv.workspace]\nmembers = "packages/*"\n', "[tool]\nuv = 2\n"],
)
def test_a_damaged_pyproject_above_is_read_as_no_workspace_there(tmp_path: Path, text: str) -> None:
    _write(tmp_path / "ws", text)
    assert workspace_root(_write(tmp_path / "ws" / "packages" / "a", "")) is None


@pytest.mark.parametrize(
    ("lock", "accepted"),
    [("../../uv.lock", True), ("../../../ws/uv.lock", True), ("../uv.lock", False), ("../../pylock.toml", False)],
)
def test_a_members_lock_may_name_its_workspaces_uv_lock_and_nothing_else_above_it(
    workspace: Path, lock: str, accepted: bool
) -> None:
    from tierlock.errors import ConfigError
    from tierlock.tiers import load_project

    member = workspace / "packages" / "a"
    (workspace / "pylock.toml").write_text("", encoding="utf-8")
    (member / "pyproject.toml").write_text(f'[project]\nname = "a"\n\n[tool.tierlock]\nlock = "{lock}"\n')
    if accepted:
        assert load_project(member).lock == member / lock
    else:
        with pytest.raises(ConfigError) as caught:
            load_project(member)
        said = " ".join(p.message for p in caught.value.problems)
        assert "or the uv.lock of the uv workspace the project is a member of" in said
