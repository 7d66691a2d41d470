"""A lockfile read several times by one command is parsed once, and any change of its bytes is parsed again.

:func:`tierlock.lockfiles.fileread.read` keeps what it made of each lockfile by its path and exact bytes
(a tier's lock is read for the tier, for the tiers layered on it and for the remedies). The answer is the
one a fresh parse gives, including after an edit that keeps the file's size and modification time, and
for a file that stops being readable.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tierlock.lockfiles import fileread
from tierlock.lockfiles.locks import LockfileError

_BODY = (
    "alpha==1.0 \\\n    --hash=sha256:" + "a" * 64 + "\n"
    "beta==2.0 ; python_version >= '3.8' \\\n    --hash=sha256:" + "b" * 64 + "\n"
)


def _fresh(path: Path) -> fileread.ReadResult:
    return fileread._parsed(path, path.read_bytes())


def test_a_lockfile_read_twice_is_parsed_once_and_equal_to_a_fresh_parse(tmp_path: Path) -> None:
    lock = tmp_path / "base.txt"
    lock.write_text(_BODY)
    first = fileread.read(lock)
    assert fileread.read(lock) is first
    assert fileread.read(str(lock)) is first
    assert first == _fresh(lock)
    assert [e.pin for e in first.lock.entries] == ["alpha==1.0", "beta==2.0"]


def test_an_edit_that_keeps_the_size_and_the_time_is_parsed_again(tmp_path: Path) -> None:
    lock = tmp_path / "base.txt"
    lock.write_text(_BODY)
    before = os.stat(lock)
    first = fileread.read(lock)
    lock.write_text(_BODY.replace("alpha==1.0", "alpha==1.1"))
    os.utime(lock, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert os.stat(lock).st_size == before.st_size
    again = fileread.read(lock)
    assert [e.pin for e in again.lock.entries] == ["alpha==1.1", "beta==2.0"]
    assert again == _fresh(lock) != first
    assert again.lock.file_digest != first.lock.file_digest


def test_the_same_bytes_at_another_path_are_a_lock_of_that_path(tmp_path: Path) -> None:
    one, two = tmp_path / "one.txt", tmp_path / "two.txt"
    one.write_text(_BODY)
    two.write_text(_BODY)
    assert fileread.read(one).lock.path == one
    assert fileread.read(two).lock.path == two


def test_a_lockfile_that_goes_away_is_an_error_again(tmp_path: Path) -> None:
    lock = tmp_path / "base.txt"
    lock.write_text(_BODY)
    fileread.read(lock)
    lock.unlink()
    with pytest.raises(LockfileError, match="no lockfile at"):
        fileread.read(lock)


def test_what_is_kept_stays_bounded_and_another_file_read_between_does_not_drop_it(tmp_path: Path) -> None:
    one, two = tmp_path / "one.txt", tmp_path / "two.txt"
    one.write_text(_BODY)
    two.write_text(_BODY.replace("alpha", "gamma"))
    first = fileread.read(one)
    fileread.read(two)
    assert fileread.read(one) is first  # kept while the other was read
    lock = tmp_path / "base.txt"
    for n in range(fileread._KEEP + 5):
        lock.write_text(_BODY + f"# {n}\n")
        fileread.read(lock)
        assert len(fileread._READ) <= fileread._KEEP


def test_a_lockfile_that_cannot_be_read_is_an_error_naming_it(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("")
    lock = tmp_path / "file" / "base.txt"
    with pytest.raises(LockfileError, match=f"cannot read {lock}: Not a directory"):
        fileread.read(lock)
