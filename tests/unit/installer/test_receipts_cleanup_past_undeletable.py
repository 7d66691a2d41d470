"""Deleting the leftovers of killed receipt writes goes on past one that cannot be deleted.

A folder named like a leftover (``.brain.json.1.tmp``) cannot be unlinked, even by root: it stands for
any leftover the install cannot delete. The others are still deleted, and only they are reported.
"""

from __future__ import annotations

import os
from pathlib import Path

from tierlock.installer import receipts


def test_a_leftover_that_cannot_be_deleted_is_kept_and_the_others_are_still_deleted(tmp_path: Path) -> None:
    folder = receipts.receipts_dir(tmp_path)
    folder.mkdir(parents=True)
    stuck = folder / ".brain.json.1.tmp"
    stuck.mkdir()
    left = [folder / f".base.json.{n}.tmp" for n in range(2, 6)]
    for path in left:
        path.write_text("{", encoding="utf-8")
    # The listing order is the file system's: make sure a deletable leftover comes after the stuck one.
    while os.listdir(folder)[-1] == stuck.name:
        stuck.rmdir()
        stuck.mkdir()  # listed first on file systems that list the newest entry first
        left.append(folder / f".base.json.{len(left) + 2}.tmp")
        left[-1].write_text("{", encoding="utf-8")  # a name hashed after it on those that list by hash
    assert sorted(receipts.clean_temporary(tmp_path)) == sorted(p.name for p in left)
    assert stuck.is_dir()
    assert not any(p.exists() for p in left)
