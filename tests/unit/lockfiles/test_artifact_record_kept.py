# ruff: noqa: F811  (the cache folder fixture imported from tests/support/keptparses.py is redefined as a parameter)
"""A sidecar's artifact record is kept by the sha256 of its bytes, beside the lockfiles' kept parses, and given
only for those bytes: the record is always the one a parse with nothing kept gives.

Every arming reads the records of its tiers' locks; a large sidecar (every wheel of every platform) costs
milliseconds of TOML. Proved against a read with caching off, for records of every state, an edit that keeps
the size and the modification time, a kept form of another shape, arbitrary bytes, and a sidecar that is not a
regular file.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.support.artifactlocks import NAT, SDIST, entry, wheel
from tests.support.keptparses import cache, forget, next_command  # noqa: F401
from tierlock.lockfiles import artifacts, keptparse
from tierlock.lockfiles.artifacts import Record, record_of
from tierlock.lockfiles.digest import sha256_hex
from tierlock.lockfiles.locks import Lock

FILES = {artifacts.key(e): e.files for e in (NAT, SDIST)}
SIDECARS = {
    "recorded": artifacts.render("base.txt", "sha256:body", [NAT, SDIST], FILES),
    "stale": artifacts.render("base.txt", "sha256:other", [NAT], FILES),
    "hand-written": (
        'artifacts-version = 1\nbody-digest = "sha256:body"\n'
        '[[packages]]\nname = "natpkg"\nversion = "1.0"\n'
        'wheels = [{ file = "natpkg-1.0-py3-none-any.whl", hash = "sha256:' + "a" * 64 + '" }]\n'
        '[[packages]]\nname = "sdonly"\nversion = "1.0"\nsdist = { file = "sdonly-1.0.tar.gz", hash = "md5:x" }\n'
    ),
    "unreadable": 'artifacts-version = 1\nbody-digest = "x"\npackages = [1]\n',
}


def _lock(folder: Path) -> Lock:
    return Lock(folder / "base.txt", "requirements", None, (NAT, SDIST), "", "sha256:body")


def _unparsed(text: str) -> object:
    raise AssertionError("parsed although a kept record of these bytes was there")


def _read_kept(lock: Lock, monkeypatch: pytest.MonkeyPatch) -> Record:
    """The record the next command reads, when it must come from the kept parse (the parser fails if called)."""
    next_command()
    with monkeypatch.context() as patch:
        patch.setattr(artifacts, "parse", _unparsed)
        return record_of(lock)


def _read_keeping_nothing(lock: Lock, monkeypatch: pytest.MonkeyPatch) -> Record:
    with monkeypatch.context() as patch:
        patch.setenv("TIERLOCK_CACHE_DIR", "")
        forget()
        return record_of(lock)


@pytest.mark.parametrize("state", ["recorded", "stale", "hand-written"])
def test_a_kept_record_gives_exactly_what_a_parse_with_nothing_kept_gives(
    cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, state: str
) -> None:
    (tmp_path / "base.artifacts.toml").write_text(SIDECARS[state], encoding="utf-8")
    lock = _lock(tmp_path)
    first = record_of(lock)
    again = _read_kept(lock, monkeypatch)
    assert again == first == _read_keeping_nothing(lock, monkeypatch)
    assert again.state == ("stale" if state == "stale" else "recorded")
    assert list(cache.iterdir())  # (kept in the cache folder, not only in memory)


def test_an_unreadable_sidecar_is_not_kept_and_says_the_same_every_time(
    cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "base.artifacts.toml").write_text(SIDECARS["unreadable"], encoding="utf-8")
    lock = _lock(tmp_path)
    first = record_of(lock)
    next_command()
    assert record_of(lock) == first
    assert (first.state, first.detail) == ("unreadable", "packages[0]: a table with a name is needed")


def test_an_edit_that_keeps_the_size_and_the_time_is_read_again(
    cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sidecar = tmp_path / "base.artifacts.toml"
    sidecar.write_text(SIDECARS["recorded"], encoding="utf-8")
    lock = _lock(tmp_path)
    assert record_of(lock).state == "recorded"
    before = sidecar.stat()
    edited = SIDECARS["recorded"].replace('"sha256:body"', '"sha256:bodz"')
    assert len(edited) == len(SIDECARS["recorded"])
    sidecar.write_text(edited, encoding="utf-8")
    os.utime(sidecar, ns=(before.st_atime_ns, before.st_mtime_ns))
    next_command()
    assert record_of(lock) == Record("stale", path=sidecar, detail="it belongs to another body of base.txt")


@pytest.mark.parametrize(
    "form",
    [None, 1, ("sha256:body",), ("sha256:body", [("natpkg",)]), (3, []), ("sha256:body", [("a", "1", [(1,)])])],
)
def test_a_kept_record_of_another_shape_is_no_record_and_the_sidecar_is_parsed(
    cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, form: object
) -> None:
    sidecar = tmp_path / "base.artifacts.toml"
    sidecar.write_text(SIDECARS["recorded"], encoding="utf-8")
    keptparse.keep_form(str(sidecar), sha256_hex(sidecar.read_bytes()), "artifacts", form)
    next_command()
    lock = _lock(tmp_path)
    assert record_of(lock) == _read_keeping_nothing(lock, monkeypatch)


def test_a_lockfiles_kept_parse_and_a_sidecars_kept_record_are_never_taken_for_each_other(
    cache: Path, tmp_path: Path
) -> None:
    sidecar = tmp_path / "base.artifacts.toml"
    sidecar.write_text(SIDECARS["recorded"], encoding="utf-8")
    digest = sha256_hex(sidecar.read_bytes())
    record_of(_lock(tmp_path))
    next_command()
    assert keptparse.find(str(sidecar), digest) is None  # a record is no lockfile's parse
    assert keptparse.find_form(str(sidecar), digest, "another") is None
    assert keptparse.find_form(str(sidecar), "0" * 64, "artifacts") is None  # other bytes
    assert keptparse.find_form(str(sidecar), digest, "artifacts") is not None


@pytest.mark.parametrize("kind", ["folder", "fifo"])
def test_a_sidecar_that_is_not_a_regular_file_is_unreadable_and_never_waited_on(
    cache: Path, tmp_path: Path, kind: str
) -> None:
    sidecar = tmp_path / "base.artifacts.toml"
    if kind == "folder":
        sidecar.mkdir()
    else:
        os.mkfifo(sidecar)
    found = record_of(_lock(tmp_path))
    assert found.state == "unreadable"
    assert str(sidecar) in found.detail


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    data=st.one_of(
        st.binary(max_size=300),
        st.sampled_from(sorted(SIDECARS.values())).map(str.encode),
        st.tuples(st.sampled_from(sorted(SIDECARS.values())), st.integers(0, 400), st.binary(max_size=8)).map(
            lambda t: t[0].encode()[: t[1]] + t[2] + t[0].encode()[t[1] :]
        ),
    )
)
def test_any_bytes_read_from_the_kept_record_read_as_they_do_with_nothing_kept(
    cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, data: bytes
) -> None:
    (tmp_path / "base.artifacts.toml").write_bytes(data)
    lock = _lock(tmp_path)
    forget()
    first = record_of(lock)
    next_command()
    assert record_of(lock) == first == _read_keeping_nothing(lock, monkeypatch)


def test_a_record_read_by_a_command_is_kept_when_its_process_ends(
    cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "base.artifacts.toml").write_text(SIDECARS["recorded"], encoding="utf-8")
    child = (
        "import sys; from pathlib import Path; from tierlock.lockfiles.locks import Lock\n"
        "from tierlock.lockfiles.artifacts import record_of\n"
        "print(record_of(Lock(Path(sys.argv[1]), 'requirements', None, (), '', 'sha256:body')).state)\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PIP_", "UV_"))} | {
        "TIERLOCK_CACHE_DIR": str(cache)
    }
    ran = subprocess.run(
        [sys.executable, "-c", child, str(tmp_path / "base.txt")], env=env, capture_output=True, text=True, check=True
    )
    assert ran.stdout == "recorded\n"
    forget()  # (this process: nothing in memory; what the child kept is on disk, written at its exit)
    with monkeypatch.context() as patch:
        patch.setattr(artifacts, "parse", _unparsed)
        assert record_of(_lock(tmp_path)).state == "recorded"


@settings(max_examples=80, deadline=None)
@given(
    names=st.lists(st.text(min_size=1, max_size=12), min_size=1, max_size=4, unique=True),
    edit=st.one_of(st.none(), st.tuples(st.integers(0, 2000), st.text(max_size=3))),
)
def test_a_sidecar_read_without_the_toml_parser_reads_as_the_toml_parser_reads_it(
    names: list[str], edit: tuple[int, str] | None
) -> None:
    """A record lock wrote (any file names: quotes, backslashes, control characters, surrogates), and the same
    edited anywhere: read without a TOML parser only when it is exactly what lock writes for these entries, and
    then to what the TOML parser reads."""
    files = tuple(wheel(f"{name}.whl") for name in names)
    pinned = entry("natpkg", "1.0", files)
    lock = Lock(Path("lockfiles/base.txt"), "requirements", None, (pinned,), "", "sha256:body")
    text = artifacts.render("base.txt", "sha256:body", [pinned], {artifacts.key(pinned): files})
    if edit is not None:
        text = text[: edit[0]] + edit[1] + text[edit[0] :]
    quick = artifacts._rendered(text, lock)
    if quick is not None:
        assert quick == artifacts.parse(text)
    if edit is None and "\\ud" not in text:  # (a character past U+FFFF or a surrogate: escapes TOML refuses)
        assert quick is not None  # (what lock writes is read the quick way)


@pytest.mark.parametrize(
    ("name", "change"),
    [
        pytest.param("a.whl", ("artifacts-version = 1", "artifacts-version = 2"), id="another version: refused"),
        pytest.param("a.whl", ('"a.whl"', '"\\U0001F600.whl"'), id="an escape only TOML reads"),
        pytest.param("\U0001f600.whl", None, id="an escape pair TOML refuses"),
    ],
)
def test_a_sidecar_the_two_readers_would_read_apart_is_left_to_the_toml_parser(
    tmp_path: Path, name: str, change: tuple[str, str] | None
) -> None:
    files = (wheel(name),)
    pinned = entry("natpkg", "1.0", files)
    lock = Lock(tmp_path / "base.txt", "requirements", None, (pinned,), "", "sha256:body")
    text = artifacts.render("base.txt", "sha256:body", [pinned], {artifacts.key(pinned): files})
    if change is not None:
        assert change[0] in text
        text = text.replace(change[0], change[1])
    (tmp_path / "base.artifacts.toml").write_text(text, encoding="utf-8")
    assert artifacts._rendered(text, lock) is None
    found = record_of(lock)
    if found.state == "unreadable":
        with pytest.raises(ValueError, match=r"invalid TOML|artifacts-version") as refused:
            artifacts.parse(text)
        assert found.detail == str(refused.value)
    else:
        assert found.files == artifacts.parse(text)[1]
        assert found.files[("natpkg", "1.0")][0].filename == "\U0001f600.whl"


def test_a_sidecar_as_lock_wrote_it_is_read_without_the_toml_parser_with_nothing_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "base.artifacts.toml").write_text(SIDECARS["recorded"], encoding="utf-8")
    lock = _lock(tmp_path)
    expected = _read_keeping_nothing(lock, monkeypatch)
    with monkeypatch.context() as patch:
        patch.setenv("TIERLOCK_CACHE_DIR", "")
        patch.setattr(artifacts, "parse", _unparsed)
        assert record_of(lock) == expected
