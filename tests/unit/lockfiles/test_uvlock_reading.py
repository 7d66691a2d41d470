"""uv.lock's parts that need no uv: the conflict encoding, marker specialisation and equivalence, problems with
their lines, the fallback for another schema, and the cache of the parsed document."""

from __future__ import annotations

from pathlib import Path

import pytest
from packaging.markers import Marker

from tierlock.lockfiles.markers import equivalent, specialise
from tierlock.lockfiles.uvlock import conflict_atom, parse
from tierlock.lockfiles.uvselect import select


@pytest.mark.parametrize(
    ("value", "decoded"),
    [
        ("extra-4-proj-brain", ("proj", "extra", "brain")),
        ("group-4-proj-test", ("proj", "group", "test")),
        ("extra-6-my-pkg-gpu-cu12", ("my-pkg", "extra", "gpu-cu12")),
        ("extra-40-proj-brain", None),
        ("brain", None),
        ("extra-x-proj-brain", None),
    ],
)
def test_uvs_conflict_encoding_is_decoded_by_its_length_prefix(value: str, decoded: object) -> None:
    assert conflict_atom(value) == decoded


def test_specialise_decides_the_atoms_it_knows_and_keeps_the_environment() -> None:
    def decide(variable: str, op: str, value: str) -> bool | None:
        return (value == "on") == (op == "==") if variable == "extra" else None

    marker = Marker("(python_full_version < '3.12' and extra == 'on') or (extra == 'on' and extra == 'off')")
    assert str(specialise(marker, decide)) == 'python_full_version < "3.12"'
    assert specialise(Marker("extra == 'off'"), decide) is False
    assert specialise(Marker("extra != 'off' or sys_platform == 'win32'"), decide) is True
    assert specialise(None, decide) is True


DOC = """\
version = 1
revision = 3
requires-python = ">=3.11"

[[package]]
name = "app"
version = "1.0"
source = { virtual = "." }
dependencies = [{ name = "lib" }, { name = "vcs" }, { name = "ghost" }]

[[package]]
name = "lib"
version = "2.0"
source = { registry = "https://example.org/simple" }
sdist = { url = "https://example.org/lib-2.0.tar.gz", hash = "sha256:aa", size = 1 }
wheels = [{ url = "https://example.org/lib-2.0-py3-none-any.whl", hash = "sha256:bb", size = 1 }]

[[package]]
name = "vcs"
version = "0.1"
source = { git = "https://example.org/vcs.git?rev=main#0123abc" }
"""


def test_a_git_source_and_a_missing_package_are_problems_with_their_lines(tmp_path: Path) -> None:
    lock = parse(DOC, tmp_path / "uv.lock")
    chosen = select(lock, "app")
    assert sorted((p.line, p.detail.split(":")[0]) for p in chosen.problems) == [
        (5, "app depends on ghost, but the lock has no package of that name"),
        (18, "vcs comes from git (https"),
    ]
    (lib,) = chosen.entries
    assert lib.index == "https://example.org/simple"
    assert lib.hashes == ("sha256:bb", "sha256:aa")
    assert chosen.local == ()  # a virtual project installs nothing of its own


def test_invalid_toml_and_a_package_without_a_version_are_reported_with_lines(tmp_path: Path) -> None:
    (broken,) = parse("version = 1\n[[package]\n", tmp_path / "uv.lock").problems
    assert broken.line == 2
    assert broken.detail.startswith("invalid TOML")
    text = 'version = 1\n\n[[package]]\nname = "x"\nsource = { registry = "https://pypi.org/simple" }\n'
    (missing,) = parse(text, tmp_path / "uv.lock").problems
    assert (missing.line, missing.detail) == (3, "x: no version")


def test_another_schema_is_read_through_uv_or_named_as_unreadable(tmp_path: Path) -> None:
    from tierlock.lockfiles.uvread import read

    text = DOC.replace("version = 1\n", "version = 2\n", 1)
    result = read(tmp_path / "uv.lock", text, "0" * 64, root="app", extras=(), groups=())
    (problem,) = result.problems
    assert problem.detail.startswith("uv.lock schema version 2, but this tierlock reads version 1")
    assert result.lock.entries == ()


def test_the_parsed_lock_is_kept_in_pytests_cache_folder_and_used_only_for_the_same_bytes(tmp_path: Path) -> None:
    import hashlib

    from tierlock.lockfiles import uvread

    lock = tmp_path / "uv.lock"
    lock.write_text(DOC)
    digest = hashlib.sha256(DOC.encode()).hexdigest()
    uvread._PARSED.clear()
    uvread.parsed(lock, DOC, digest)
    assert not (tmp_path / ".pytest_cache").exists()  # never made here
    (tmp_path / ".pytest_cache").mkdir()
    uvread._PARSED.clear()
    uvread.parsed(lock, DOC, digest)
    kept = tmp_path.joinpath(*uvread.CACHE)
    assert kept.is_file()
    kept.write_text(kept.read_text().replace('"lib"', '"cached-lib"'))
    uvread._PARSED.clear()
    assert {p.name for p in uvread.parsed(lock, DOC, digest).packages} == {"app", "cached-lib", "vcs"}
    changed = DOC.replace('version = "2.0"', 'version = "2.1"')
    uvread._PARSED.clear()
    fresh = uvread.parsed(lock, changed, hashlib.sha256(changed.encode()).hexdigest())
    assert {p.name for p in fresh.packages} == {"app", "lib", "vcs"}  # other bytes: parsed again
    kept.write_text("not json")
    uvread._PARSED.clear()
    assert {p.name for p in uvread.parsed(lock, DOC, digest).packages} == {"app", "lib", "vcs"}


@pytest.mark.parametrize(
    ("first", "second", "requires_python", "same"),
    [
        ('python_version < "3.11"', 'python_full_version < "3.11"', None, True),
        ('python_version >= "3.8"', None, ">=3.11", True),
        ('python_version >= "3.8"', None, None, False),
        ('python_version >= "3.12"', None, ">=3.11", False),
        ('extra == "brain" and sys_platform == "linux"', 'sys_platform == "linux" and extra == "brain"', None, True),
        ('extra == "brain"', 'extra == "old"', None, False),
        ('sys_platform == "win32"', 'sys_platform != "win32"', None, False),
        (None, None, None, True),
    ],
)
def test_markers_are_equivalent_when_no_environment_tells_them_apart(
    first: str | None, second: str | None, requires_python: str | None, same: bool
) -> None:
    a = Marker(first) if first else None
    b = Marker(second) if second else None
    assert equivalent(a, b, requires_python) is same
    assert equivalent(b, a, requires_python) is same
