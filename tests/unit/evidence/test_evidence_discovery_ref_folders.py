"""The base's discovery folders at a ref, found in the ref's own tree (``discovery.ref_folders``).

A branch may move the project folder; at the ref the project folder is the nearest one at or above the start
that holds a ``pyproject.toml`` *there*, then the working tree's folders follow.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.gitrepo import commit_all, git
from tierlock.evidence import discovery

pytestmark = pytest.mark.usefixtures("git_identity")


def _moved(tmp_path: Path) -> Path:
    """``main``: the project at the top; then the branch moves it into app/."""
    repo = tmp_path / "r"
    repo.mkdir()
    (repo / "pyproject.toml").write_text('[project]\nname = "x"\n')
    (repo / "tierlock.runtime.json").write_text("{}")
    git(repo, "init", "-q", "-b", "main")
    commit_all(repo, "top")
    git(repo, "checkout", "-q", "-b", "move")
    (repo / "app").mkdir()
    git(repo, "mv", "pyproject.toml", "app/pyproject.toml")
    git(repo, "mv", "tierlock.runtime.json", "app/tierlock.runtime.json")
    commit_all(repo, "moved")
    return repo


def test_at_the_base_the_project_folder_is_the_one_the_base_holds(tmp_path: Path) -> None:
    repo = _moved(tmp_path)
    assert discovery.in_tree(str(repo), str(repo / "app")) == ["app"]
    assert discovery.ref_folders(str(repo), "main", str(repo / "app")) == ["", "app"]
    blob = git(repo, "rev-parse", "main:tierlock.runtime.json").strip()
    found = discovery.at_ref(str(repo), "main", discovery.ref_folders(str(repo), "main", str(repo / "app")))
    assert found == ("tierlock.runtime.json", blob)


def test_at_a_ref_that_holds_the_project_where_the_branch_does_the_folders_are_the_same(tmp_path: Path) -> None:
    repo = _moved(tmp_path)
    assert discovery.ref_folders(str(repo), "move", str(repo / "app")) == ["app"]


def test_a_start_deeper_than_the_project_keeps_both_folders_in_order(tmp_path: Path) -> None:
    repo = _moved(tmp_path)
    (repo / "app" / "sub").mkdir()
    assert discovery.ref_folders(str(repo), "main", str(repo / "app" / "sub")) == ["", "app/sub", "app"]
    assert discovery.ref_folders(str(repo), "move", str(repo / "app" / "sub")) == ["app", "app/sub"]


def test_a_ref_without_any_pyproject_above_the_start_keeps_the_start_folder(tmp_path: Path) -> None:
    repo = tmp_path / "r"
    (repo / "a" / "b").mkdir(parents=True)
    (repo / "x.txt").write_text("x")
    git(repo, "init", "-q", "-b", "main")
    commit_all(repo, "nothing")
    assert discovery.ref_folders(str(repo), "main", str(repo / "a" / "b")) == ["a/b"]


def test_an_unknown_ref_is_a_lookup_error_and_a_start_outside_the_checkout_has_no_folders(tmp_path: Path) -> None:
    repo = _moved(tmp_path)
    with pytest.raises(LookupError):
        discovery.ref_folders(str(repo), "no-such-ref", str(repo / "app"))
    assert discovery.ref_folders(str(repo), "main", str(tmp_path)) == []


def test_a_runtime_table_far_down_a_pyproject_is_found_on_disk(tmp_path: Path) -> None:
    """Read up to the 64 MiB cap, not a few bytes: a long ``[project]`` table comes first."""
    text = '[project]\nname = "x"\ndescription = "' + "d" * 4000 + '"\n\n[tool.tierlock.runtime]\nschemaVersion = 1\n'
    (tmp_path / "pyproject.toml").write_text(text)
    assert discovery.on_disk(str(tmp_path)) == str(tmp_path / "pyproject.toml")


def test_only_a_config_or_pyproject_moved_into_a_discovery_folder_names_where_it_was_at_the_base(
    tmp_path: Path,
) -> None:
    """``moved_from``: the base's folder of a runtime config or ``pyproject.toml`` the branch moved into a folder
    the working tree's discovery looks in; another file moved (out of a folder that holds a config at the base)
    names nothing."""
    repo = tmp_path / "r"
    (repo / "app").mkdir(parents=True)
    (repo / "other").mkdir()
    (repo / "app" / "pyproject.toml").write_text('[project]\nname = "x"\n')
    (repo / "other" / "tierlock.runtime.json").write_text('{"schemaVersion": 1, "verification": []}')
    (repo / "other" / "tool.py").write_text("print('a helper moved up')\n" * 5)
    git(repo, "init", "-q", "-b", "main")
    commit_all(repo, "base")
    git(repo, "checkout", "-q", "-b", "up")
    git(repo, "mv", "other/tool.py", "tool.py")
    assert discovery.moved_from(str(repo), "main", [""]) == []
    git(repo, "mv", "app/pyproject.toml", "pyproject.toml")
    assert discovery.moved_from(str(repo), "main", [""]) == ["app"]
    assert discovery.moved_from(str(repo), "main", ["elsewhere"]) == []
    assert discovery.moved_from(str(repo), "no-such-ref", [""]) == []
