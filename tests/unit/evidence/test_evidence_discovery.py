"""Finding the runtime config on disk and at a git ref by the same rules (the base's own discovery).

Real folders and a real git repository: the project folder first, then the start folder; JSON before
TOML before a pyproject.toml runtime table; a pyproject.toml without the table is no config; at a ref,
the same order, in a sub-folder too, and an unknown ref is a LookupError.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.gitrepo import commit_all, git
from tierlock.evidence import discovery

TABLE = '[project]\nname = "x"\n\n[tool.tierlock.runtime]\nschemaVersion = 1\n'

pytestmark = pytest.mark.usefixtures("git_identity")


def test_the_project_folder_comes_before_the_start_folder(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    sub = tmp_path / "a" / "b"
    sub.mkdir(parents=True)
    assert discovery.folders(str(sub)) == [str(tmp_path), str(sub)]
    assert discovery.folders(str(tmp_path)) == [str(tmp_path)]
    assert discovery.folders(str(tmp_path / "pyproject.toml")) == [str(tmp_path)]
    (sub / "tierlock.runtime.toml").write_text("schemaVersion = 1\n")
    assert discovery.on_disk(str(sub)) == str(sub / "tierlock.runtime.toml")
    (tmp_path / "tierlock.runtime.json").write_text("{}")
    assert discovery.on_disk(str(sub)) == str(tmp_path / "tierlock.runtime.json")


def test_without_a_pyproject_the_start_folder_alone_is_looked_in(tmp_path: Path) -> None:
    assert discovery.folders(str(tmp_path)) == [str(tmp_path)]
    assert discovery.on_disk(str(tmp_path)) is None


def test_json_comes_before_toml_and_toml_before_a_pyproject_table(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(TABLE)
    assert discovery.on_disk(str(tmp_path)) == str(tmp_path / "pyproject.toml")
    (tmp_path / "tierlock.runtime.toml").write_text("schemaVersion = 1\n")
    assert discovery.on_disk(str(tmp_path)) == str(tmp_path / "tierlock.runtime.toml")
    (tmp_path / "tierlock.runtime.json").write_text("{}")
    assert discovery.on_disk(str(tmp_path)) == str(tmp_path / "tierlock.runtime.json")


@pytest.mark.parametrize(
    ("text", "found"),
    [
        (TABLE, True),
        ('[project]\nname = "x"\n[tool.tierlock]\nlock-dir = "l"\n', False),
        ("[tool.tierlock.runtime\nbroken", True),  # broken, but it names the table: validating says where
        ("[tool]\nbroken = ", False),
        ('[tool]\ntierlock = "not a table"\n', False),
        ("\ufeff" + TABLE, True),
    ],
)
def test_a_pyproject_counts_only_with_a_runtime_table(text: str, found: bool) -> None:
    assert discovery.runtime_table(text) is found


def test_a_pyproject_is_read_up_to_64_mib_only(tmp_path: Path) -> None:
    with (tmp_path / "pyproject.toml").open("w") as handle:
        handle.write(("#" * 1023 + "\n") * (64 * 1024))  # 64 MiB of comments
        handle.write(TABLE)  # past the cap
    assert discovery.on_disk(str(tmp_path)) is None


def test_a_folder_named_like_a_config_is_not_one(tmp_path: Path) -> None:
    (tmp_path / "tierlock.runtime.json").mkdir()
    (tmp_path / "tierlock.runtime.toml").write_text("schemaVersion = 1\n")
    assert discovery.on_disk(str(tmp_path)) == str(tmp_path / "tierlock.runtime.toml")


def test_at_a_ref_the_same_rules_find_the_config_the_ref_holds(tmp_path: Path) -> None:
    repo = tmp_path / "r"
    (repo / "app").mkdir(parents=True)
    (repo / "app" / "pyproject.toml").write_text(TABLE)
    git(repo, "init", "-q", "-b", "main")
    commit_all(repo, "a table")
    git(repo, "tag", "table")
    (repo / "app" / "tierlock.runtime.toml").write_text("schemaVersion = 1\n")
    (repo / "tierlock.runtime.json").write_text("{}")  # at the top: not a discovery folder of app/
    commit_all(repo, "a toml")
    folders = discovery.in_tree(str(repo), str(repo / "app"))
    assert folders == ["app"]
    blob = git(repo, "rev-parse", "main:app/tierlock.runtime.toml").strip()
    assert discovery.at_ref(str(repo), "main", folders) == ("app/tierlock.runtime.toml", blob)
    blob = git(repo, "rev-parse", "table:app/pyproject.toml").strip()
    assert discovery.at_ref(str(repo), "table", folders) == ("app/pyproject.toml", blob)
    assert discovery.at_ref(str(repo), "main", [""]) == (
        "tierlock.runtime.json",
        git(repo, "rev-parse", "main:tierlock.runtime.json").strip(),
    )
    with pytest.raises(LookupError):
        discovery.at_ref(str(repo), "no-such-ref", folders)


def test_at_a_ref_a_pyproject_without_the_table_is_no_config(tmp_path: Path) -> None:
    repo = tmp_path / "r"
    repo.mkdir()
    (repo / "pyproject.toml").write_text('[project]\nname = "x"\n')
    git(repo, "init", "-q", "-b", "main")
    commit_all(repo, "no config")
    assert discovery.at_ref(str(repo), "main", [""]) is None


def test_folders_outside_the_checkout_are_not_looked_in_at_a_ref(tmp_path: Path) -> None:
    repo = tmp_path / "r"
    repo.mkdir()
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "outer"\n')  # above the checkout
    assert discovery.in_tree(str(repo), str(repo)) == [""]
