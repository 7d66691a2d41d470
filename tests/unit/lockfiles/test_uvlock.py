"""uv.lock is read as TOML, without uv: each tier's part is what ``uv export`` (uv itself) says it is.

The oracle is real uv on a real lock: for every selection of extras and groups,
the packages tierlock picks out of uv.lock, evaluated on Linux and Windows for
Python 3.11 and 3.12, are the ones ``uv export --frozen`` lists for that
selection. The pure parts (the conflict encoding, problems with their lines,
the fallback for another schema) are tested on small documents.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from packaging.markers import Marker
from packaging.requirements import Requirement

from tests.support.uvproject import build_wheelhouse, locked_project, uv, uv_env
from tierlock.lockfiles.markers import applies, specialise
from tierlock.lockfiles.uvlock import conflict_atom, parse
from tierlock.lockfiles.uvselect import select

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def uv_project(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    wheels = build_wheelhouse(tmp_path_factory.mktemp("wheels"))
    env = uv_env(wheels, tmp_path_factory.mktemp("cache"))
    return locked_project(tmp_path_factory.mktemp("lock") / "proj", env), env


ENVIRONMENTS = [
    {"sys_platform": platform, "python_full_version": full, "python_version": full[:4], "platform_system": system}
    for platform, system in (("linux", "Linux"), ("win32", "Windows"))
    for full in ("3.11.7", "3.12.1")
]


def _exported(root: Path, env: dict[str, str], flags: list[str]) -> list[tuple[str, str, Marker | None]]:
    text = uv(["export", "--frozen", "--no-hashes", "--no-default-groups", *flags], root, env).stdout
    out = []
    for line in text.splitlines():
        if not line or line.startswith(("#", " ", "-e")):
            continue
        req = Requirement(line)
        (spec,) = req.specifier
        out.append((req.name, spec.version, req.marker))
    return out


def _on(pairs: list[tuple[str, str, Marker | None]], environment: dict[str, str]) -> set[tuple[str, str]]:
    return {(n, v) for n, v, m in pairs if applies(m, environment)}


@pytest.mark.parametrize(
    ("extras", "groups"),
    [((), ()), (("brain",), ()), (("old",), ()), ((), ("test",)), ((), ("tools",)), (("brain",), ("tools",))],
    ids=["base", "brain", "old", "test", "tools", "brain+tools"],
)
def test_a_selection_holds_the_packages_uv_export_lists_on_every_platform(
    uv_project: tuple[Path, dict[str, str]], extras: tuple[str, ...], groups: tuple[str, ...]
) -> None:
    root, env = uv_project
    flags = [f"--extra={e}" for e in extras] + [f"--group={g}" for g in groups]
    expected = _exported(root, env, flags)
    lock = parse((root / "uv.lock").read_text(), root / "uv.lock")
    chosen = select(lock, "proj", extras, groups)
    assert chosen.problems == ()
    mine = [(str(e.name), str(e.version), e.marker) for e in chosen.entries]
    for environment in ENVIRONMENTS:
        assert _on(mine, environment) == _on(expected, environment), environment
    assert {(p.name, p.editable) for p in chosen.local} == {("proj", True), ("member", True)}
    assert all(e.index == str((root.parent.parent / "wheels").resolve()) or e.index for e in chosen.entries)


def test_an_extra_or_group_missing_from_the_lock_is_a_problem_on_the_projects_line(
    uv_project: tuple[Path, dict[str, str]],
) -> None:
    root, _ = uv_project
    lock = parse((root / "uv.lock").read_text(), root / "uv.lock")
    chosen = select(lock, "proj", ("gpu",), ("docs",))
    details = [p.detail for p in chosen.problems]
    assert details == ["proj has no extra 'gpu' in the lock", "proj has no dependency group 'docs' in the lock"]
    line = next(i for i, text in enumerate((root / "uv.lock").read_text().splitlines(), 1) if text == 'name = "proj"')
    assert {p.line for p in chosen.problems} == {line - 1}


def test_a_lock_for_another_project_names_the_package_it_lacks(uv_project: tuple[Path, dict[str, str]]) -> None:
    root, _ = uv_project
    lock = parse((root / "uv.lock").read_text(), root / "uv.lock")
    (problem,) = select(lock, "other-project").problems
    assert "no package 'other-project'" in problem.detail


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
