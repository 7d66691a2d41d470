# ruff: noqa: F811  (the cache folder fixture imported from tests/support/keptparses.py is redefined as a parameter)
"""A requirements lockfile's parse is kept by the sha256 of its bytes, and a kept parse is given only for those
bytes: the read is always the one a parse with nothing kept gives.

:mod:`tierlock.lockfiles.keptparse` keeps what the parser made of a lockfile in tierlock's cache folder; the next
command that reads the same bytes rebuilds it (the versions and markers made again by packaging from their
text). Proved here against a parse with caching off, for lockfiles of every shape the parser reads (a header,
markers, a URL entry, problems of every kind, pins of one name twice), an edit that keeps the file's size and
modification time, a damaged or foreign kept file, another tierlock or packaging, and another lockfile path.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.support.keptparses import cache, forget, next_command, parsed_keeping_nothing  # noqa: F401
from tests.unit.lockfiles.test_lockfiles_reader import header_for
from tierlock.frozen import replace
from tierlock.lockfiles import fileread, keptparse, readercode
from tierlock.lockfiles import requirements as req_format
from tierlock.lockfiles.digest import sha256_hex

H1, H2 = "a" * 64, "b" * 64


BODIES = {
    "plain": [f"attrs==25.1.0 --hash=sha256:{H1} --hash=sha256:{H2}", f"numpy==2.3.0 --hash=sha256:{H2}"],
    "markers": [
        f"numpy==2.2.6 ; python_version < '3.11' --hash=sha256:{H1}",
        f"numpy==2.3.0 ; python_full_version >= '3.11' --hash=sha256:{H2}",
        f"pywin==1 ; sys_platform == 'win32' and platform_machine == 'AMD64' --hash=sha256:{H1}",
        f"Colorama==0.4.6 ; platform_system=='Windows' --hash=sha256:{H2}",
    ],
    "url": [f"pkg @ https://example.invalid/pkg-1.0-py3-none-any.whl --hash=sha256:{H1}"],
    "problems": [
        "unhashed==1.0",
        f"loose>=1 --hash=sha256:{H1}",
        "bad==1.0 --hash=md5:zz",
        f"twice==1.0 --hash=sha256:{H1}",
        f"twice==2.0 --hash=sha256:{H2}",
        "-e ./here",
        "--weird-option",
        "not a requirement ===",
        f"ends==1.0 --hash=sha256:{H1} \\",
    ],
}


def _write(folder: Path, name: str, header: bool = True) -> Path:
    body = BODIES[name]
    path = folder / f"{name}.txt"
    text = req_format.render(header_for(body), body) if header else "\n".join(body) + "\n"
    path.write_text(text, encoding="utf-8")
    return path


def _read_kept(path: Path, monkeypatch: pytest.MonkeyPatch) -> fileread.ReadResult:
    """The read of *path* by the next command, when it must come from the kept parse (the parser fails if called)."""
    next_command()
    with monkeypatch.context() as patch:
        patch.setattr(req_format, "parse", _no_parse)
        return fileread._parsed(path, path.read_bytes())


def _no_parse(text: str) -> object:
    raise AssertionError("parsed although a kept parse of these bytes was there")


@pytest.mark.parametrize("header", [True, False])
@pytest.mark.parametrize("name", sorted(BODIES))
def test_a_kept_parse_gives_exactly_what_a_parse_with_nothing_kept_gives(
    cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, header: bool
) -> None:
    path = _write(tmp_path, name, header)
    first = fileread._parsed(path, path.read_bytes())
    again = _read_kept(path, monkeypatch)
    expected = parsed_keeping_nothing(path, monkeypatch)
    assert first == again == expected
    assert again.problems == expected.problems
    assert [
        (str(e.version), str(e.marker), e.marker == f.marker)
        for e, f in zip(again.lock.entries, expected.lock.entries, strict=True)
    ] == [(str(f.version), str(f.marker), True) for f in expected.lock.entries]
    assert again.lock.header == expected.lock.header
    assert again.lock.body_digest == expected.lock.body_digest


def test_the_markers_made_again_evaluate_as_the_parsed_ones(
    cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _write(tmp_path, "markers")
    fileread._parsed(path, path.read_bytes())
    again, expected = _read_kept(path, monkeypatch), parsed_keeping_nothing(path, monkeypatch)
    for env in ({"python_version": "3.10", "python_full_version": "3.10.2"}, {"sys_platform": "win32"}, {}):
        assert [e.applies(env or None) for e in again.lock.entries] == [
            e.applies(env or None) for e in expected.lock.entries
        ]


def test_an_edit_that_keeps_the_size_and_the_time_is_parsed_again(
    cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _write(tmp_path, "plain")
    before = os.stat(path)
    fileread._parsed(path, path.read_bytes())
    path.write_text(path.read_text().replace("numpy==2.3.0", "numpy==2.3.1"))
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert os.stat(path).st_size == before.st_size
    got = fileread._parsed(path, path.read_bytes())
    assert [e.pin for e in got.lock.entries] == ["attrs==25.1.0", "numpy==2.3.1"]
    assert got == parsed_keeping_nothing(path, monkeypatch)
    assert _read_kept(path, monkeypatch) == got  # and the new parse is the one kept now


@pytest.mark.parametrize(
    "damage",
    [
        lambda data: data[:-7],
        lambda data: data[:40] + bytes([data[40] ^ 1]) + data[41:],
        lambda data: bytes([data[0] ^ 1]) + data[1:],
        lambda data: b"",
        lambda data: b"not marshal at all" * 3,
        lambda data: data + b"\0",
    ],
    ids=["cut", "flipped-inside", "flipped-seal", "empty", "garbage", "longer"],
)
def test_a_damaged_kept_parse_is_no_parse_and_the_lockfile_is_parsed(
    cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, damage: object
) -> None:
    path = _write(tmp_path, "markers")
    fileread._parsed(path, path.read_bytes())
    next_command()
    (kept,) = cache.glob("lockparse-*")
    kept.write_bytes(damage(kept.read_bytes()))  # type: ignore[operator]
    assert keptparse.find(str(path), sha256_hex(path.read_bytes())) is None
    assert fileread._parsed(path, path.read_bytes()) == parsed_keeping_nothing(path, monkeypatch)


def test_a_sealed_kept_file_of_another_shape_is_no_parse(cache: Path, tmp_path: Path) -> None:
    import marshal
    from hashlib import sha256

    path = _write(tmp_path, "plain")
    digest = sha256_hex(path.read_bytes())
    fileread._parsed(path, path.read_bytes())
    next_command()
    (kept,) = cache.glob("lockparse-*")
    where = str(path)
    for form in (
        {"key": keptparse.key()},
        [1, 2],
        {"key": keptparse.key(), "parses": [where]},
        {"key": keptparse.key(), "parses": {where: (digest, {"header": None, "entries": [(1,)]})}},
        {"key": keptparse.key(), "parses": {where: (digest, {"header": (1,), "entries": [], "problems": []})}},
    ):
        data = marshal.dumps(form)
        kept.write_bytes(bytes(sha256(data).digest()) + data)
        forget()
        assert keptparse.find(where, digest) is None


@pytest.mark.parametrize(
    "other",
    [{"__version__": "0.0.0-other"}, {"packaging_version": "0.1"}, {"SCHEMA": 0}],
    ids=["tierlock", "packaging", "schema"],
)
def test_a_parse_kept_by_another_tierlock_or_packaging_is_not_given(
    cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, other: dict[str, object]
) -> None:
    path = _write(tmp_path, "plain")
    digest = sha256_hex(path.read_bytes())
    fileread._parsed(path, path.read_bytes())
    next_command()
    assert keptparse.find(str(path), digest) is not None
    for name, value in other.items():
        monkeypatch.setattr(keptparse, name, value)
    forget()
    assert keptparse.find(str(path), digest) is None


def test_each_lockfile_keeps_its_own_parse_one_file_per_folder_and_another_paths_bytes_are_not_taken(
    cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    one, two = _write(tmp_path, "plain"), _write(tmp_path, "markers")
    (tmp_path / "other").mkdir()
    three = _write(tmp_path / "other", "url")
    for path in (one, two, three):
        fileread._parsed(path, path.read_bytes())
    assert not cache.exists()  # written once, when the command ends
    next_command()
    assert len(list(cache.glob("lockparse-*"))) == 2
    assert keptparse.find(str(one), sha256_hex(two.read_bytes())) is None
    assert _read_kept(one, monkeypatch).lock.path == one
    assert _read_kept(two, monkeypatch) == parsed_keeping_nothing(two, monkeypatch)
    assert _read_kept(three, monkeypatch) == parsed_keeping_nothing(three, monkeypatch)


def test_a_folder_of_more_lockfiles_than_kept_starts_afresh(
    cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(keptparse, "_KEPT", 2)
    paths = [_write(tmp_path, name) for name in ("plain", "markers", "url")]
    for path in paths:
        fileread._parsed(path, path.read_bytes())
    next_command()
    assert [keptparse.find(str(p), sha256_hex(p.read_bytes())) is not None for p in paths] == [False, False, True]


def test_nothing_is_kept_when_caching_is_off_or_the_folder_cannot_be_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    forget()
    path = _write(tmp_path, "plain")
    monkeypatch.setenv("TIERLOCK_CACHE_DIR", "")
    assert fileread._parsed(path, path.read_bytes()).lock.entries
    assert not keptparse._CHANGED
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    monkeypatch.setenv("TIERLOCK_CACHE_DIR", str(blocker / "cache"))
    assert fileread._parsed(path, path.read_bytes()) == parsed_keeping_nothing(path, monkeypatch)
    next_command()  # (nothing raised)
    assert keptparse.find(str(path), sha256_hex(path.read_bytes())) is None
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a-file", "plain.txt"]


def test_a_pylock_lockfile_is_not_kept(cache: Path, tmp_path: Path) -> None:
    path = tmp_path / "pylock.base.toml"
    path.write_text('lock-version = "1.0"\ncreated-by = "x"\n[[packages]]\nname = "a"\nversion = "1"\n')
    fileread._parsed(path, path.read_bytes())
    next_command()
    assert not cache.exists()


@pytest.mark.parametrize("shape", ["files", "index"])
def test_a_parse_with_pins_this_form_cannot_hold_is_not_kept(cache: Path, tmp_path: Path, shape: str) -> None:
    from tierlock.lockfiles.locks import LockedFile

    path = _write(tmp_path, "plain")
    digest = sha256_hex(path.read_bytes())
    parsed = fileread._parsed(path, path.read_bytes())
    forget()
    first = parsed.lock.entries[0]
    if shape == "files":
        wheel = LockedFile("wheel", "attrs-25.1.0-py3-none-any.whl", None, None, None, {"sha256": H1})
        odd = replace(first, files=(wheel,))
    else:
        odd = replace(first, index="https://example.invalid/simple")
    keptparse.keep(str(path), digest, keptparse.Parse(None, [odd, *parsed.lock.entries[1:]], [], ""))
    assert keptparse.find(str(path), digest) is None
    next_command()
    assert not cache.exists()


def test_the_markers_made_again_are_shared_by_text_across_lockfiles_and_stay_bounded(
    cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    one = _write(tmp_path, "markers")
    (tmp_path / "b").mkdir()
    two = _write(tmp_path / "b", "markers")
    for path in (one, two):
        fileread._parsed(path, path.read_bytes())
    next_command()
    monkeypatch.setattr(req_format, "parse", _no_parse)
    first, second = (fileread._parsed(path, path.read_bytes()) for path in (one, two))
    assert all(a.marker is b.marker for a, b in zip(first.lock.entries, second.lock.entries, strict=True))
    assert len(keptparse._MARKERS) == 4
    monkeypatch.setattr(keptparse, "_KEPT", 4)
    again = fileread._parsed(one, one.read_bytes())  # four kept: started afresh, and made again
    assert len(keptparse._MARKERS) == 4
    assert again.lock.entries[0].marker is not first.lock.entries[0].marker
    assert again == first


def test_a_parse_kept_by_other_code_of_the_lockfile_readers_is_not_given(
    cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    code = tmp_path / "code"
    code.mkdir()
    (code / "requirements.py").write_text("# the parser\n")
    monkeypatch.setattr(readercode, "_HERE", str(code))
    forget()
    path = _write(tmp_path, "plain")
    digest = sha256_hex(path.read_bytes())
    fileread._parsed(path, path.read_bytes())
    next_command()
    assert keptparse.find(str(path), digest) is not None
    (code / "requirements.py").write_text("# the parser, changed\n")
    forget()
    assert keptparse.find(str(path), digest) is None
    monkeypatch.setattr(readercode, "_HERE", str(tmp_path / "gone"))  # code that cannot be looked at
    forget()
    assert keptparse.find(str(path), digest) is None
    assert fileread._parsed(path, path.read_bytes()) == parsed_keeping_nothing(path, monkeypatch)
