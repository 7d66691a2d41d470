"""The artifact record: the requirements sidecar, pylock's own files, what each entry may be installed from.

Pure: locks and records are built in memory from real wheel file names.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from packaging.utils import canonicalize_name
from packaging.version import Version

from tests.support.artifactlocks import (
    NAT,
    SDIST,
    entry,
    lock,
    sdist,
    wheel,
)
from tierlock.lockfiles import artifacts
from tierlock.lockfiles.artifacts import Record, record_of, sidecar_path
from tierlock.lockfiles.locks import Lock, LockedFile, LockEntry


def test_the_sidecar_sits_beside_the_lockfile() -> None:
    assert sidecar_path(Path("lockfiles/base.txt")) == Path("lockfiles/base.artifacts.toml")
    assert sidecar_path(Path("locks/dev.tools.txt")) == Path("locks/dev.tools.artifacts.toml")


def test_a_rendered_sidecar_parses_back_to_the_same_files(tmp_path: Path) -> None:
    url = LockEntry(
        canonicalize_name("direct"),
        Version("1.0"),
        None,
        ("sha256:" + "a" * 64,),
        url="file:///x/direct-1.0-py3-none-any.whl",
    )
    text = artifacts.render(
        "base.txt", "sha256:body", [SDIST, NAT, url], {artifacts.key(e): e.files for e in (NAT, SDIST)}
    )
    body, files = artifacts.parse(text)
    assert body == "sha256:body"
    assert files[("natpkg", "1.0")] == tuple(sorted(NAT.files, key=lambda f: f.filename))
    assert files[("sdonly", "1.0")] == SDIST.files
    assert ("direct", "1.0") not in files  # a direct reference names its file itself
    assert text.index('name = "natpkg"') < text.index('name = "sdonly"')
    assert 'wheels = []\nsdist = { file = "sdonly-1.0.tar.gz"' in text


def write(tmp_path: Path, text: str, *entries: LockEntry) -> Lock:
    (tmp_path / "base.artifacts.toml").write_text(text, encoding="utf-8")
    return Lock(tmp_path / "base.txt", "requirements", None, tuple(entries), "", "sha256:body")


def test_a_requirements_lock_reads_its_record_from_the_sidecar(tmp_path: Path) -> None:
    text = artifacts.render("base.txt", "sha256:body", [NAT, SDIST], {artifacts.key(e): e.files for e in (NAT, SDIST)})
    found = record_of(write(tmp_path, text, NAT, SDIST))
    assert found.state == "recorded"
    assert found.path == tmp_path / "base.artifacts.toml"
    assert found.files_for(SDIST) == SDIST.files


def test_without_a_sidecar_the_record_is_absent_and_says_nothing_of_any_package(tmp_path: Path) -> None:
    found = record_of(Lock(tmp_path / "base.txt", "requirements", None, (NAT,), ""))
    assert (found.state, found.usable, found.files_for(NAT)) == ("absent", False, None)


def test_a_record_of_another_body_is_stale(tmp_path: Path) -> None:
    text = artifacts.render("base.txt", "sha256:other", [NAT], {artifacts.key(NAT): NAT.files})
    found = record_of(write(tmp_path, text, NAT))
    assert (found.state, found.detail) == ("stale", "it belongs to another body of base.txt")
    assert found.files_for(NAT) is None


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("artifacts-version = [", "invalid TOML"),
        ('artifacts-version = 2\nbody-digest = "x"\n', "artifacts-version 2 is not 1"),
        ("artifacts-version = 1\nbody-digest = 3\n", "body-digest must be a string and packages an array of tables"),
        ('artifacts-version = 1\nbody-digest = "x"\npackages = [1]\n', "packages[0]: a table with a name is needed"),
        (
            'artifacts-version = 1\nbody-digest = "x"\n[[packages]]\nname = "a"\nwheels = "w"\n',
            "packages[0].wheels must be an array",
        ),
        (
            'artifacts-version = 1\nbody-digest = "x"\n[[packages]]\nname = "a"\nwheels = [{ file = "a.whl" }]\n',
            "packages[0].wheels: each file needs 'file' and 'hash' strings",
        ),
        (
            'artifacts-version = 1\nbody-digest = "x"\n[[packages]]\nname = "a"\nsdist = "a.tar.gz"\n',
            "packages[0].sdist: each file needs 'file' and 'hash' strings",
        ),
    ],
)
def test_an_unreadable_sidecar_says_where_it_is_wrong(tmp_path: Path, text: str, says: str) -> None:
    found = record_of(write(tmp_path, text, NAT))
    assert found.state == "unreadable"
    assert says in found.detail


def test_a_sidecar_that_is_not_text_is_unreadable(tmp_path: Path) -> None:
    (tmp_path / "base.artifacts.toml").write_bytes(b"\xff\xfe")
    assert record_of(Lock(tmp_path / "base.txt", "requirements", None, (), "")).state == "unreadable"


def test_only_files_whose_hash_the_entry_has_count() -> None:
    extra = wheel("natpkg-1.0-cp311-cp311-musllinux_1_2_x86_64.whl")
    found = Record("recorded", {("natpkg", "1.0"): (*NAT.files, extra)})
    assert found.files_for(NAT) == NAT.files
    assert Record("recorded").files_for(NAT) is None  # the record does not know the package


def test_a_direct_reference_is_its_own_record_even_without_one() -> None:
    direct = LockEntry(
        canonicalize_name("d"), Version("2"), None, ("sha256:" + "b" * 64,), url="https://x/d-2.tar.gz#frag"
    )
    (file,) = Record("absent").files_for(direct) or ()
    assert (file.kind, file.filename, file.hashes) == ("sdist", "d-2.tar.gz", {"sha256": "b" * 64})


def test_a_pylock_lock_is_its_own_record() -> None:
    found = record_of(lock(NAT, SDIST))
    assert (found.state, found.path) == ("recorded", None)
    assert found.files_for(NAT) == NAT.files


def test_a_listing_gives_each_entry_the_files_it_has_hashes_for() -> None:
    nat, listed = NAT.files[0], NAT.files[1]
    partial = entry("natpkg", "1.0", [nat])
    listing = (
        'lock-version = "1.0"\n[[packages]]\nname = "NatPkg"\nversion = "1.0"\n'
        f'wheels = [{{ url = "https://x/{nat.filename}", hashes = {{ sha256 = "{nat.hashes["sha256"].upper()}" }} }}, '
        f'{{ name = "{listed.filename}", path = "y", hashes = {{ sha256 = "{listed.hashes["sha256"]}" }} }}]\n'
        f'sdist = {{ url = "https://x/natpkg-1.0.tar.gz#sha256=1", hashes = {{ sha256 = "00" }} }}\n'
    )
    found = artifacts.from_listing([partial, SDIST], listing)
    assert [(f.kind, f.filename, f.url, f.hashes) for f in found[("natpkg", "1.0")]] == [
        ("wheel", nat.filename, f"https://x/{nat.filename}", nat.hashes)
    ]
    assert found[("sdonly", "1.0")] == ()


def test_a_listed_sdist_whose_hash_the_lock_has_is_recorded() -> None:
    (file,) = SDIST.files
    listing = (
        '[[packages]]\nname = "sdonly"\nversion = "1.0"\n'
        f'sdist = {{ url = "https://x/{file.filename}", hashes = {{ sha256 = "{file.hashes["sha256"]}" }} }}\n'
        '[[packages]]\nname = "natpkg"\nversion = "1.0"\nwheels = []\n'
    )
    found = artifacts.from_listing([SDIST, NAT], listing)
    assert [(f.kind, f.filename) for f in found[("sdonly", "1.0")]] == [("sdist", "sdonly-1.0.tar.gz")]
    assert found[("natpkg", "1.0")] == ()


def test_a_listed_file_named_by_its_path_or_its_url_drops_the_fragment_and_the_query() -> None:
    sdist_file = sdist("natpkg-1.0.tar.gz")
    plain = entry("natpkg", "1.0", [sdist_file])
    digest_of = sdist_file.hashes["sha256"]
    for where in (
        f'path = "natpkg-1.0.tar.gz#sha256={digest_of}"',
        f'url = "https://x/y/natpkg-1.0.tar.gz#sha256={digest_of}"',
    ):
        head = '[[packages]]\nname = "natpkg"\nversion = "1.0"\n'
        listing = f'{head}sdist = {{ {where}, hashes = {{ sha256 = "{digest_of}" }} }}\n'
        (found,) = artifacts.from_listing([plain], listing)[("natpkg", "1.0")]
        assert found.filename == "natpkg-1.0.tar.gz", where
    direct = LockEntry(
        canonicalize_name("d"), Version("2"), None, ("sha256:" + "b" * 64,), url="https://x/d-2.tar.gz?t=1"
    )
    (file,) = Record("absent").files_for(direct) or ()
    assert file.filename == "d-2.tar.gz"


def test_a_file_with_several_hashes_is_recorded_by_its_sha256() -> None:
    both = LockedFile("wheel", "b-1-py3-none-any.whl", None, None, None, {"sha512": "f" * 128, "sha256": "e" * 64})
    item = entry("b", "1", [both])
    text = artifacts.render("base.txt", "sha256:x", [item], {artifacts.key(item): (both,)})
    assert f'hash = "sha256:{"e" * 64}"' in text


def test_a_file_listed_twice_by_two_sources_is_recorded_once_in_the_order_first_listed() -> None:
    first, second = NAT.files[0], NAT.files[1]
    both = entry("natpkg", "1.0", [first, second])

    def wheel_at(folder: str, file: LockedFile) -> str:
        return f'{{ path = "{folder}/{file.filename}", hashes = {{ sha256 = "{file.hashes["sha256"]}" }} }}'

    files = [wheel_at("a", first), wheel_at("a", second), wheel_at("b", first), wheel_at("b", second)]
    listing = f'[[packages]]\nname = "natpkg"\nversion = "1.0"\nwheels = [{", ".join(files)}]\n'
    found = artifacts.from_listing([both], listing)[("natpkg", "1.0")]
    assert [(f.filename, f.path) for f in found] == [
        (first.filename, f"a/{first.filename}"),
        (second.filename, f"a/{second.filename}"),
    ]


def test_a_sidecar_as_lock_writes_it_reads_the_same_without_a_toml_parser() -> None:
    text = artifacts.render("base.txt", "sha256:body", [NAT, SDIST], {artifacts.key(e): e.files for e in (NAT, SDIST)})
    assert artifacts.parse_rendered(text) == artifacts.parse(text)


@pytest.mark.parametrize(
    "edit",
    [
        pytest.param(lambda t: t.replace('name = "natpkg"', 'name="natpkg"'), id="another spacing"),
        pytest.param(lambda t: t + "extra = 1\n", id="a key lock never writes"),
        pytest.param(lambda t: t.replace("    { file", "    {file", 1), id="a file written by hand"),
    ],
)
def test_a_sidecar_laid_out_otherwise_is_left_to_the_toml_parser(edit: object) -> None:
    text = artifacts.render("base.txt", "sha256:body", [NAT, SDIST], {artifacts.key(e): e.files for e in (NAT, SDIST)})
    assert callable(edit)
    assert artifacts.parse_rendered(edit(text)) is None
