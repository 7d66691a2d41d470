# ruff: noqa: F811  (the cache folder fixture imported from tests/support/keptparses.py is redefined as a parameter)
"""A kept lockfile parse attacked as an unlucky user would meet it gives the answer of a parse that keeps nothing.

:mod:`tierlock.lockfiles.keptparse` keeps what the parser made of a requirements lockfile by the sha256 of its
bytes. Attacked here: any single byte of the kept file changed (each one, in turn), two tiers' lockfiles with
identical bytes in two folders (each error names its own file, with the lines a fresh parse gives), a lockfile
whose bytes become those another lockfile of the folder was kept under, a ``${VAR}`` in a URL entry read
under two environments, and the cache folder shared by two interpreters that take turns.
"""

from __future__ import annotations

import marshal
from pathlib import Path

import pytest

from tests.support.keptparses import cache, forget, next_command, parsed_keeping_nothing  # noqa: F401
from tierlock.lockfiles import fileread, keptparse
from tierlock.lockfiles.digest import sha256_hex
from tierlock.lockfiles.locks import LockfileError

H1, H2 = "a" * 64, "b" * 64
BODY = (
    f"attrs==25.1.0 --hash=sha256:{H1}\n"
    f"numpy==2.2.6 ; python_version < '3.11' --hash=sha256:{H1}\n"
    "unhashed==1.0\n"
    f"twice==1.0 --hash=sha256:{H1}\n"
    f"twice==2.0 --hash=sha256:{H2}\n"
    "-r other.txt\n"
)


def _error(path: Path) -> str:
    """The error loading *path* raises, with each of its problems (file, line, what)."""
    with pytest.raises(LockfileError) as caught:
        fileread.load(path)
    shown = [f"{p.file}:{p.line}: {p.message}" for p in caught.value.problems]
    return "\n".join([str(caught.value), *shown])


def test_every_single_byte_of_the_kept_file_changed_gives_no_parse(
    cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "base.txt"
    path.write_text(BODY)
    digest = sha256_hex(path.read_bytes())
    fileread._parsed(path, path.read_bytes())
    next_command()
    (kept,) = cache.glob("lockparse-*")
    data = kept.read_bytes()
    assert keptparse.find(str(path), digest) is not None
    for at in range(len(data)):
        for flip in (0x01, 0x80):
            kept.write_bytes(data[:at] + bytes([data[at] ^ flip]) + data[at + 1 :])
            forget()
            assert keptparse.find(str(path), digest) is None, at
    forget()
    assert fileread._parsed(path, path.read_bytes()) == parsed_keeping_nothing(path, monkeypatch)


def test_two_lockfiles_of_identical_bytes_in_two_folders_each_name_their_own_file_and_lines(
    cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    one, two = tmp_path / "a" / "viz.txt", tmp_path / "b" / "brain.txt"
    for path in (one, two):
        path.parent.mkdir()
        path.write_text(BODY)
    expected = {path: _error(path) for path in (one, two)}  # nothing kept yet: parsed
    next_command()
    for path in (two, one):
        assert _error(path) == expected[path]  # from the kept parse
        assert f"{path}:3: unhashed" in expected[path]
        assert f"{path}:6: " in expected[path]
        assert fileread._parsed(path, path.read_bytes()) == parsed_keeping_nothing(path, monkeypatch)
    assert expected[one].replace(str(one), "X") == expected[two].replace(str(two), "X")


def test_a_lockfile_given_the_bytes_another_one_was_kept_under_reads_as_those_bytes_parsed(
    cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    one, two = tmp_path / "base.txt", tmp_path / "viz.txt"
    one.write_text(BODY)
    two.write_text(f"attrs==25.1.0 --hash=sha256:{H2}\n")
    for path in (one, two):
        fileread._parsed(path, path.read_bytes())
    next_command()
    two.write_bytes(one.read_bytes())  # copied over: bytes another path was kept under
    got = fileread._parsed(two, two.read_bytes())
    assert got == parsed_keeping_nothing(two, monkeypatch)
    assert got.lock.path == two
    assert [p.line for p in got.problems] == [p.line for p in parsed_keeping_nothing(one, monkeypatch).problems]


def test_a_url_entry_naming_an_environment_variable_reads_the_same_under_any_environment(
    cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "base.txt"
    path.write_text(f"pkg @ https://${{HOST}}/pkg-1.0-py3-none-any.whl --hash=sha256:{H1}\n")
    monkeypatch.setenv("HOST", "one.invalid")
    first = fileread._parsed(path, path.read_bytes())
    next_command()
    monkeypatch.setenv("HOST", "two.invalid")
    again = fileread._parsed(path, path.read_bytes())
    assert again == first == parsed_keeping_nothing(path, monkeypatch)
    assert again.lock.entries[0].url == "https://${HOST}/pkg-1.0-py3-none-any.whl"  # as pip is given it


def test_two_interpreters_taking_turns_on_one_cache_folder_each_get_their_own_parse(
    cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "base.txt"
    path.write_text(BODY)
    digest = sha256_hex(path.read_bytes())
    ours = keptparse.key()
    fileread._parsed(path, path.read_bytes())
    next_command()
    theirs = (*ours[:3], "cpython-39", *ours[4:])
    monkeypatch.setattr(keptparse, "key", lambda: theirs)
    assert keptparse.find(str(path), digest) is None  # the other interpreter's turn: not its parse
    assert fileread._parsed(path, path.read_bytes()) == parsed_keeping_nothing(path, monkeypatch)
    next_command()
    (kept,) = cache.glob("lockparse-*")
    assert marshal.loads(kept.read_bytes()[32:])["key"] == theirs
    monkeypatch.setattr(keptparse, "key", lambda: ours)
    assert keptparse.find(str(path), digest) is None  # ours was replaced by theirs: parsed again, never taken
    assert fileread._parsed(path, path.read_bytes()) == parsed_keeping_nothing(path, monkeypatch)
