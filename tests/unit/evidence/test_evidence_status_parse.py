"""The one reader of ``git status --porcelain=v2 -z`` (verify's tree checks and the gate share it; runtime12).

Every kind of entry gives its path; a renamed entry's origin is not a path of its own; a submodule is named
among the changed submodules whatever changed in it (its commit, a file in it, an untracked file, a commit
staged for it), a file never; a status of more entries than Python keeps small integers for is read to its end.
"""

from __future__ import annotations

from tierlock.evidence.gitcall import evidence_pathspec, parse_status, remedy

OID = "0123456789abcdef0123456789abcdef01234567"
Z = "0" * 40


def _ordinary(path: str, xy: str = ".M", sub: str = "N...", mode: str = "100644") -> str:
    return f"1 {xy} {sub} {mode} {mode} {mode} {Z} {Z} {path}"


def test_every_kind_of_entry_gives_its_path_and_submodules_are_told_apart() -> None:
    entries = [
        f"# branch.oid {OID}",
        "# branch.head main",
        _ordinary("a file with spaces.py"),
        _ordinary("dep", sub="SC..", mode="160000"),
        _ordinary("edited", sub="S.M.", mode="160000"),
        _ordinary("untracked", sub="S..U", mode="160000"),
        _ordinary("staged", xy="M.", sub="S...", mode="160000"),
        f"2 R. N... 100644 100644 100644 {Z} {Z} R100 new name.py",
        "? old name.py",  # the origin, whatever it looks like, is not an entry of its own
        f"u UU N... 100644 100644 100644 100644 {Z} {Z} {Z} both.py",
        "? new.py",
        "! ignored.py",
        "",
    ]
    commit, paths, submodules = parse_status("\0".join(entries))
    assert commit == OID
    assert paths[:5] == ["a file with spaces.py", "dep", "edited", "untracked", "staged"]
    assert paths[5:] == ["new name.py", "both.py", "new.py"]
    assert submodules == ["dep", "edited", "untracked", "staged"]


def test_a_status_of_many_entries_is_read_to_its_end() -> None:
    entries = [f"? file{n}.py" for n in range(600)] + [""]
    commit, paths, submodules = parse_status("\0".join(entries))
    assert (commit, len(paths), paths[-1], submodules) == (None, 600, "file599.py", [])


def test_a_branch_without_a_commit_has_none() -> None:
    assert parse_status("# branch.oid (initial)\0? a.py\0") == (None, ["a.py"], [])


def test_the_pathspec_leaves_out_only_what_tierlock_writes_and_the_remedy_knows_submodules() -> None:
    assert evidence_pathspec(None) == evidence_pathspec([]) == []
    assert evidence_pathspec(["ev*[1]?", "a\\b"]) == [
        "--",
        ".",
        ":(exclude,glob)ev\\*\\[1]\\?/.validated.json",
        ":(exclude,glob)ev\\*\\[1]\\?/..validated.json.*.tmp",
        ":(exclude,glob)ev\\*\\[1]\\?/[0-9]*Z-*/**",
        ":(exclude,glob)a\\\\b/.validated.json",
        ":(exclude,glob)a\\\\b/..validated.json.*.tmp",
        ":(exclude,glob)a\\\\b/[0-9]*Z-*/**",
    ]
    assert remedy("/t", [], []) == [["git", "-C", "/t", "stash", "push", "--include-untracked"]]
    assert [step[3:] for step in remedy("/t", ["--", "."], ["dep"])] == [
        ["submodule", "foreach", "--recursive", "git stash push --include-untracked"],
        ["stash", "push", "--include-untracked", "--", "."],
        ["reset", "-q", "--", "dep"],
        ["submodule", "update", "--recursive"],
    ]
