"""The base's config at a ref when it is not where the working tree's discovery looks (``discovery.base_at_ref``).

``configs_at`` (every config a ref holds, one per folder), ``vanished`` (those the working tree no longer holds),
``follow`` (a symlink followed in the ref's tree), ``named`` and ``split`` (``REF:PATH``), ``fetch_remedy`` (the one
fetch for a remote branch never fetched), each on a real git repository.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.support.gitrepo import commit_all, git
from tierlock.evidence import discovery

pytestmark = pytest.mark.usefixtures("git_identity")

TABLE = '[project]\nname = "x"\n\n[tool.tierlock.runtime]\nschemaVersion = 1\n'
PLAIN = '[project]\nname = "x"\n\n[tool.tierlock]\nlock-dir = "locks"\n'  # names tierlock, no runtime table


def _repo(tmp_path: Path, files: dict[str, str]) -> Path:
    repo = tmp_path / "r"
    repo.mkdir()
    for rel, text in files.items():
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text(text, encoding="utf-8")
    git(repo, "init", "-q", "-b", "main")
    commit_all(repo, "base")
    return repo


def _blob(repo: Path, spec: str) -> str:
    return git(repo, "rev-parse", spec).strip()


def test_split_reads_ref_colon_path_as_git_spells_a_file_at_a_ref() -> None:
    assert discovery.split("main") == ("main", None)
    assert discovery.split("origin/main:app/tierlock.runtime.json") == ("origin/main", "app/tierlock.runtime.json")
    assert discovery.split("main:/a/b.json/") == ("main", "a/b.json")
    assert discovery.split("main:") == ("main", None)
    assert discovery.split(":a.json") == (":a.json", None)


def test_every_config_a_ref_holds_is_listed_once_per_folder_by_the_discovery_order(tmp_path: Path) -> None:
    repo = _repo(
        tmp_path,
        {
            "a/tierlock.runtime.toml": "",
            "a/pyproject.toml": TABLE,
            "b/pyproject.toml": TABLE,
            "c/pyproject.toml": PLAIN,
            "d/tierlock.runtime.json": "{}",
            "d/tierlock.runtime.toml": "",
            "e/my_pyproject.toml": TABLE,
            "pyproject.toml": '[project]\nname = "top"\n',
        },
    )
    found = discovery.configs_at(str(repo), "main")
    assert list(found) == ["a/tierlock.runtime.toml", "b/pyproject.toml", "d/tierlock.runtime.json"]
    assert found["b/pyproject.toml"] == ("100644", _blob(repo, "main:b/pyproject.toml"))
    with pytest.raises(LookupError):
        discovery.configs_at(str(repo), "no-such-ref")


def test_a_config_is_vanished_when_its_file_is_gone_or_its_pyproject_lost_the_runtime_table(tmp_path: Path) -> None:
    repo = _repo(
        tmp_path,
        {"kept/tierlock.runtime.json": "{}", "gone/tierlock.runtime.json": "{}", "t/pyproject.toml": TABLE},
    )
    assert discovery.vanished(str(repo), "main") == []
    git(repo, "rm", "-q", "gone/tierlock.runtime.json")
    (repo / "t" / "pyproject.toml").write_text(PLAIN, encoding="utf-8")
    assert discovery.vanished(str(repo), "main") == [
        ("gone/tierlock.runtime.json", _blob(repo, "main:gone/tierlock.runtime.json")),
        ("t/pyproject.toml", _blob(repo, "main:t/pyproject.toml")),
    ]


def test_a_symlink_is_followed_in_the_refs_tree_through_a_chain(tmp_path: Path) -> None:
    repo = _repo(tmp_path, {"ci/real.json": '{"schemaVersion": 1}'})
    os.symlink("real.json", repo / "ci" / "hop.json")
    os.symlink("ci/hop.json", repo / "tierlock.runtime.json")
    commit_all(repo, "links")
    top = str(repo)
    expected = ("ci/real.json", _blob(repo, "main:ci/real.json"))
    assert discovery.at_ref(top, "main", [""]) == expected
    assert discovery.named(top, "main", "tierlock.runtime.json") == expected
    assert discovery.named(top, "main", "/ci/real.json") == expected


@pytest.mark.parametrize(
    ("target", "why"),
    [
        ("../outside.json", "which leaves the repository"),
        ("/etc/passwd", "which leaves the repository"),
        ("missing.json", "which main does not hold as a file"),
        ("ci", "which main does not hold as a file"),
    ],
)
def test_a_symlink_that_leaves_the_tree_or_leads_nowhere_makes_the_base_unclear(
    tmp_path: Path, target: str, why: str
) -> None:
    repo = _repo(tmp_path, {"ci/real.json": "{}"})
    os.symlink(target, repo / "tierlock.runtime.json")
    commit_all(repo, "a bad link")
    with pytest.raises(discovery.BaseUnclear) as caught:
        discovery.at_ref(str(repo), "main", [""])
    assert caught.value.message.startswith(f"main:tierlock.runtime.json is a symlink to {target}, {why}")
    assert (caught.value.ref, caught.value.fix) == ("main", None)


def test_a_symlink_loop_makes_the_base_unclear(tmp_path: Path) -> None:
    repo = _repo(tmp_path, {"x": ""})
    os.symlink("b.json", repo / "a.json")
    os.symlink("a.json", repo / "b.json")
    os.symlink("a.json", repo / "tierlock.runtime.json")
    commit_all(repo, "a loop")
    with pytest.raises(discovery.BaseUnclear):
        discovery.at_ref(str(repo), "main", [""])


def test_a_named_path_the_ref_lacks_offers_a_config_the_ref_holds(tmp_path: Path) -> None:
    repo = _repo(tmp_path, {"app/tierlock.runtime.json": "{}"})
    with pytest.raises(discovery.BaseUnclear) as caught:
        discovery.named(str(repo), "main", "app/nothing.json")
    assert caught.value.message == "--config-from main:app/nothing.json: main holds no file app/nothing.json"
    assert caught.value.fix == "app/tierlock.runtime.json"
    with pytest.raises(LookupError):
        discovery.named(str(repo), "no-such-ref", "app/tierlock.runtime.json")


def test_the_base_is_the_one_config_the_branch_no_longer_has_and_two_are_unclear(tmp_path: Path) -> None:
    repo = _repo(tmp_path, {"a/pyproject.toml": TABLE, "b/tierlock.runtime.json": "{}", "c/pyproject.toml": PLAIN})
    top, start = str(repo), str(repo / "c")
    assert discovery.base_at_ref(top, "main", start) == (["c"], None)  # both still here: c has no base gate
    git(repo, "rm", "-q", "b/tierlock.runtime.json")
    assert discovery.base_at_ref(top, "main", start) == (
        ["c"],
        ("b/tierlock.runtime.json", _blob(repo, "main:b/tierlock.runtime.json")),
    )
    git(repo, "rm", "-q", "a/pyproject.toml")
    with pytest.raises(discovery.BaseUnclear) as caught:
        discovery.base_at_ref(top, "main", start)
    message = caught.value.message
    assert message.startswith("--config-from main: the base's config cannot be told: main holds no runtime config ")
    assert "(c/tierlock.runtime.json, c/tierlock.runtime.toml, c/pyproject.toml)" in message
    assert "and 2 that this branch no longer has (a/pyproject.toml, b/tierlock.runtime.json)" in message
    assert caught.value.fix == "a/pyproject.toml"
    assert discovery.base_at_ref(top, "main:b/tierlock.runtime.json", start) == (
        [],
        ("b/tierlock.runtime.json", _blob(repo, "main:b/tierlock.runtime.json")),
    )


def test_a_config_git_sees_renamed_and_the_same_one_vanished_count_once(tmp_path: Path) -> None:
    repo = _repo(tmp_path, {"app/tierlock.runtime.json": '{"schemaVersion": 1, "verification": []}\n'})
    git(repo, "mv", "app", "svc")
    base = ("app/tierlock.runtime.json", _blob(repo, "main:app/tierlock.runtime.json"))
    assert discovery.base_at_ref(str(repo), "main", str(repo / "svc")) == (["svc"], base)


def _clone(tmp_path: Path, *depth: str) -> Path:
    upstream = _repo(tmp_path, {"tierlock.runtime.json": "{}"})
    git(upstream, "checkout", "-q", "-b", "feature/x")
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", *depth, "--single-branch", "--branch", "feature/x", f"file://{upstream}", str(clone))
    return clone


def test_the_fetch_remedy_fetches_one_commit_into_a_shallow_clone_only(tmp_path: Path) -> None:
    clone = _clone(tmp_path, "--depth", "1")
    refspec = "+refs/heads/main:refs/remotes/origin/main"
    assert discovery.fetch_remedy(str(clone), "origin/main") == f"git -C {clone} fetch --depth=1 origin {refspec}"
    assert discovery.fetch_remedy(str(clone), "main") is None
    assert discovery.fetch_remedy(str(clone), "origin/") is None
    assert discovery.fetch_remedy(str(clone), "upstream/main") is None


def test_the_fetch_remedy_names_the_longest_remote_and_keeps_a_full_clone_full(tmp_path: Path) -> None:
    clone = _clone(tmp_path)
    git(clone, "remote", "add", "origin/mirror", "file:///nowhere")
    assert discovery.fetch_remedy(str(clone), "origin/mirror/feature/x") == (
        f"git -C {clone} fetch origin/mirror +refs/heads/feature/x:refs/remotes/origin/mirror/feature/x"
    )
    assert discovery.fetch_remedy(str(clone), "origin/feature/x") == (
        f"git -C {clone} fetch origin +refs/heads/feature/x:refs/remotes/origin/feature/x"
    )


def test_every_reason_of_the_gate_is_in_the_reference_table() -> None:
    from tierlock.evidence.answer import REASONS

    text = (Path(__file__).parents[3] / "docs" / "reference" / "verify.md").read_text(encoding="utf-8")
    rows = [line.split(" | ")[0] for line in text.splitlines() if line.startswith("| `")]
    missing = [reason for reason in REASONS if not any(f"`{reason}`" in row for row in rows)]
    assert missing == []


def test_a_pyproject_moved_after_other_renames_still_names_its_base_folder(tmp_path: Path) -> None:
    """``moved_from`` reads ``git diff -z`` three words per rename: the second rename's new path is the sixth word."""
    repo = _repo(tmp_path, {"a/notes.txt": "notes\n" * 20, "app/pyproject.toml": PLAIN})
    git(repo, "mv", "a", "b")
    git(repo, "mv", "app", "svc")
    assert discovery.moved_from(str(repo), "main", ["svc"]) == ["app"]


def test_a_config_left_on_disk_but_no_longer_committed_is_vanished(tmp_path: Path) -> None:
    """The branch deletes the config from git and ignores a local copy: a fresh checkout (CI) has none."""
    repo = _repo(tmp_path, {"app/tierlock.runtime.json": "{}"})
    assert discovery.vanished(str(repo), "main") == []
    git(repo, "checkout", "-q", "-b", "b")
    (repo / ".gitignore").write_text("app/tierlock.runtime.json\n", encoding="utf-8")
    git(repo, "rm", "-q", "--cached", "app/tierlock.runtime.json")
    commit_all(repo, "no longer committed")
    assert (repo / "app" / "tierlock.runtime.json").is_file()
    assert discovery.vanished(str(repo), "main") == [
        ("app/tierlock.runtime.json", _blob(repo, "main:app/tierlock.runtime.json"))
    ]


def test_a_chain_of_links_is_followed_up_to_the_limit_and_no_further(tmp_path: Path) -> None:
    repo = _repo(tmp_path, {"real.json": "{}"})
    names = [f"l{n}.json" for n in range(discovery.MAX_LINKS + 1)]
    for name, target in zip(names, [*names[1:], "real.json"], strict=True):
        os.symlink(target, repo / name)
    commit_all(repo, "a chain of links")
    top, blob = str(repo), _blob(repo, "main:real.json")
    last = names[-discovery.MAX_LINKS :]  # exactly MAX_LINKS links before the file
    assert discovery.named(top, "main", last[0]) == ("real.json", blob)
    with pytest.raises(discovery.BaseUnclear):
        discovery.named(top, "main", names[0])  # one more
