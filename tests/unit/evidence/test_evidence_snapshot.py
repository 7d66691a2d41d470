"""Snapshots of the environment and the tree for ``--twice``: what one setup run added, removed, changed.

Real files: a changed size, time or mode is a change, a symlink counts by its target and is not followed,
``.git`` and ``__pycache__`` and the folders asked to be skipped are left out.
"""

from __future__ import annotations

import os
from pathlib import Path

from tierlock.evidence import MAX_LISTED, snapshot


def test_added_removed_and_changed_files_are_counted_and_named(tmp_path: Path) -> None:
    (tmp_path / "keep.txt").write_text("same")
    (tmp_path / "edit.txt").write_text("one")
    (tmp_path / "gone.txt").write_text("bye")
    before = snapshot.take(tmp_path)
    (tmp_path / "edit.txt").write_text("two!")
    (tmp_path / "gone.txt").unlink()
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "new.txt").write_text("hi")
    changes = snapshot.compare(before, snapshot.take(tmp_path))
    assert (changes.added, changes.removed, changes.changed, changes.total) == (1, 1, 1, 3)
    assert changes.files == ("edit.txt", "gone.txt", "sub/new.txt")
    assert changes.to_dict() == {"added": 1, "removed": 1, "changed": 1, "files": list(changes.files)}
    assert snapshot.compare(before, before).total == 0


def test_a_touch_or_a_chmod_is_a_change(tmp_path: Path) -> None:
    path = tmp_path / "f"
    path.write_text("x")
    before = snapshot.take(tmp_path)
    os.utime(path, ns=(1, 1))
    assert snapshot.compare(before, snapshot.take(tmp_path)).changed == 1
    before = snapshot.take(tmp_path)
    path.chmod(0o700)
    assert snapshot.compare(before, snapshot.take(tmp_path)).changed == 1


def test_symlinks_count_by_their_target_and_are_not_followed(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    (outside / "deep").mkdir(parents=True)
    (outside / "deep" / "file").write_text("x")
    root = tmp_path / "root"
    root.mkdir()
    (root / "dir-link").symlink_to(outside)
    (root / "file-link").symlink_to(outside / "deep" / "file")
    taken = snapshot.take(root)
    assert sorted(taken) == ["dir-link", "file-link"]
    before = taken
    (root / "dir-link").unlink()
    (root / "dir-link").symlink_to(outside / "deep")
    assert snapshot.compare(before, snapshot.take(root)).files == ("dir-link",)


def test_git_pycache_and_skipped_folders_are_left_out(tmp_path: Path) -> None:
    for rel in (".git/HEAD", "__pycache__/m.pyc", "pkg/__pycache__/n.pyc", "env/bin/python", "evidence/r", "src/m.py"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("x")
    assert sorted(snapshot.take(tmp_path, [tmp_path / "env", tmp_path / "evidence"])) == ["src/m.py"]
    assert snapshot.take(tmp_path / "missing") == {}


def test_the_files_named_are_capped(tmp_path: Path) -> None:
    before = snapshot.take(tmp_path)
    for i in range(MAX_LISTED + 5):
        (tmp_path / f"f{i:03d}").write_text("x")
    changes = snapshot.compare(before, snapshot.take(tmp_path))
    assert (changes.added, len(changes.files)) == (MAX_LISTED + 5, MAX_LISTED)
