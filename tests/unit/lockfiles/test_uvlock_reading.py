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


GRAPH = """\
version = 1
revision = 5
requires-python = ">=3.11"

[[package]]
name = "app"
version = "3.0"
source = { registry = "https://pypi.org/simple" }
sdist = { url = "https://example.org/app-3.0.tar.gz", hash = "sha256:ff", size = 9 }

[[package]]
name = "app"
version = "1.0"
source = { editable = "." }
dependencies = [
    { name = "shared", marker = "sys_platform == 'linux'" },
    { name = "tool", extra = ["fast"] },
    { name = "twin", version = "1.0", source = { registry = "https://two.example/simple" } },
]

[[package]]
name = "tool"
version = "1.0"
source = { registry = "https://pypi.org/simple" }
dependencies = [{ name = "shared", marker = "sys_platform == 'win32'" }]
wheels = [{ url = "https://example.org/tool-1.0-py3-none-any.whl", hash = "sha256:aa", size = 1 }]

[package.optional-dependencies]
fast = [{ name = "speedy", marker = "extra == 'extra-4-tool-fast'" }]
slow = [{ name = "lazy" }]

[[package]]
name = "shared"
version = "1.0"
source = { registry = "https://pypi.org/simple" }
wheels = [{ url = "https://example.org/shared-1.0-py3-none-any.whl", hash = "sha256:bb", size = 1 }]

[[package]]
name = "speedy"
version = "1.0"
source = { registry = "https://pypi.org/simple" }
wheels = [{ url = "https://example.org/speedy-1.0-py3-none-any.whl", hash = "sha256:cc", size = 1 }]

[[package]]
name = "lazy"
version = "1.0"
source = { registry = "https://pypi.org/simple" }

[[package]]
name = "twin"
version = "1.0"
source = { registry = "https://one.example/simple" }

[[package]]
name = "twin"
version = "1.0"
source = { registry = "https://two.example/simple" }
"""


def _graph(tmp_path: Path) -> object:
    return select(parse(GRAPH, tmp_path / "uv.lock"), "app")


def test_a_package_reached_on_two_paths_holds_where_either_path_does(tmp_path: Path) -> None:
    from tierlock.lockfiles.markers import applies

    chosen = _graph(tmp_path)
    shared = next(e for e in chosen.entries if e.name == "shared")  # type: ignore[attr-defined]
    assert applies(shared.marker, {"sys_platform": "linux"})
    assert applies(shared.marker, {"sys_platform": "win32"})
    assert not applies(shared.marker, {"sys_platform": "darwin"})


def test_the_project_is_its_folders_package_and_a_fork_by_source_follows_the_source_named(tmp_path: Path) -> None:
    chosen = _graph(tmp_path)
    assert [(p.name, p.version, p.editable) for p in chosen.local] == [("app", "1.0", True)]  # type: ignore[attr-defined]
    twin = next(e for e in chosen.entries if e.name == "twin")  # type: ignore[attr-defined]
    assert twin.index == "https://two.example/simple"
    assert "app" not in {e.name for e in chosen.entries}  # type: ignore[attr-defined]


def test_a_dependencys_own_extra_is_followed_and_its_conflict_marker_decided_by_the_walk(tmp_path: Path) -> None:
    chosen = _graph(tmp_path)
    names = {e.name for e in chosen.entries}  # type: ignore[attr-defined]
    assert "speedy" in names  # tool[fast] reached: its extra-4-tool-fast marker holds
    assert "lazy" not in names  # tool[slow] never asked for
    speedy = next(e for e in chosen.entries if e.name == "speedy")  # type: ignore[attr-defined]
    assert speedy.marker is None


def test_file_sizes_and_urls_are_kept(tmp_path: Path) -> None:
    chosen = _graph(tmp_path)
    tool = next(e for e in chosen.entries if e.name == "tool")  # type: ignore[attr-defined]
    (file,) = tool.files
    assert (file.size, file.url, file.filename, file.hashes) == (
        1,
        "https://example.org/tool-1.0-py3-none-any.whl",
        "tool-1.0-py3-none-any.whl",
        {"sha256": "aa"},
    )


@pytest.mark.parametrize(
    ("head", "problem"),
    [
        ("version = true\n", "no schema `version` (not a uv.lock?)"),
        ('version = "1"\n', "no schema `version` (not a uv.lock?)"),
        ("revision = 2\n", "no schema `version` (not a uv.lock?)"),
    ],
)
def test_a_schema_version_must_be_an_integer(tmp_path: Path, head: str, problem: str) -> None:
    lock = parse(head, tmp_path / "uv.lock")
    assert [p.detail for p in lock.problems] == [problem]
    assert lock.version is None


def test_a_lock_without_a_revision_is_revision_zero(tmp_path: Path) -> None:
    lock = parse("version = 1\n", tmp_path / "uv.lock")
    assert (lock.version, lock.revision, lock.problems) == (1, 0, ())


def test_markers_on_different_platforms_never_overlap_and_too_many_combinations_assume_the_worst() -> None:
    from tierlock.lockfiles.markers import overlap

    linux, windows = Marker('sys_platform == "linux"'), Marker('sys_platform == "win32"')
    assert overlap(linux, windows) is False
    assert overlap(linux, Marker('sys_platform == "linux" and python_version >= "3.12"')) is True
    values = [f"v{i}" for i in range(30)]
    wide = " or ".join(
        f'(platform_machine == "{a}" and os_name == "{a}" and platform_release == "{a}")' for a in values
    )
    narrow = " or ".join(f'(platform_machine == "{a}" and os_name == "{b}")' for a in values for b in values[:1])
    assert overlap(Marker(wide), Marker(narrow)) is True  # more than can be tried: assume they do
    assert equivalent(Marker(wide), Marker(narrow)) is False  # and never claim they mean the same


def test_requires_python_ranges_compare_by_the_versions_they_admit() -> None:
    from tierlock.lockfiles.uvdrift import _same_range

    assert _same_range(">=3.11", ">= 3.11.0")
    assert _same_range(None, None)
    assert not _same_range(None, ">=3.11")
    assert not _same_range(">=3.11", None)
    assert not _same_range(">=3.11", ">3.11")
    assert not _same_range("<3.11", "<=3.10")
    assert not _same_range(">=3.10.1", ">=3.10")


@pytest.mark.parametrize(
    ("first", "second"),
    [(">=3.11", ">3.11"), ("<=3.10", "<3.11"), (">=3.11", ""), ("<3.12", ""), ("~=3.11.2", ">=3.11.2")],
)
def test_requires_python_ranges_that_differ_anywhere_are_told_apart(first: str, second: str) -> None:
    from tierlock.lockfiles.uvdrift import _same_range

    assert not _same_range(first, second)
    assert not _same_range(second, first)


def test_a_revision_that_is_not_a_number_is_revision_zero(tmp_path: Path) -> None:
    assert parse('version = 1\nrevision = "5"\n', tmp_path / "uv.lock").revision == 0
    assert parse("version = 1\nrevision = true\n", tmp_path / "uv.lock").revision == 0


WEAK = """\
version = 1

[[package]]
name = "app"
version = "1.0"
source = { virtual = "." }
dependencies = [
    { name = "never", marker = "extra == 'extra-3-app-off'" },
    { name = "lib", marker = "sys_platform == 'linux'" },
    { name = "mid", marker = "sys_platform == 'linux'" },
]

[[package]]
name = "mid"
version = "1.0"
source = { registry = "https://pypi.org/simple" }
dependencies = [{ name = "lib", marker = "python_full_version >= '3.12'" }]

[[package]]
name = "lib"
version = "1.0"
source = { registry = "https://pypi.org/simple" }

[[package]]
name = "never"
version = "1.0"
source = { registry = "https://pypi.org/simple" }
"""


def test_an_edge_that_never_holds_skips_that_edge_only_and_a_narrower_path_adds_nothing(tmp_path: Path) -> None:
    chosen = select(parse(WEAK, tmp_path / "uv.lock"), "app")
    markers = {str(e.name): str(e.marker) for e in chosen.entries}
    assert markers == {"lib": 'sys_platform == "linux"', "mid": 'sys_platform == "linux"'}  # never: extra off


def test_an_encoded_conflict_without_a_name_is_no_conflict() -> None:
    assert conflict_atom("extra-3-abc-") is None
    assert conflict_atom("extra-3-abc-x") == ("abc", "extra", "x")


def test_the_line_of_a_schema_problem_is_the_line_of_its_key(tmp_path: Path) -> None:
    (problem,) = parse("# written by hand\n\nversion = true\n", tmp_path / "uv.lock").problems
    assert problem.line == 3


CYCLE = """\
version = 1

[[package]]
name = "app"
version = "1.0"
source = { virtual = "." }
dependencies = [
    { name = "left", marker = "sys_platform == 'linux'" },
    { name = "named", source = { registry = "https://other.example/simple" } },
]

[[package]]
name = "left"
version = "1.0"
source = { registry = "https://pypi.org/simple" }
dependencies = [{ name = "right" }, { name = "both", marker = "python_full_version >= '3.12'" }]

[[package]]
name = "right"
version = "1.0"
source = { registry = "https://pypi.org/simple" }
dependencies = [{ name = "left" }]

[[package]]
name = "both"
version = "1.0"
source = { registry = "https://pypi.org/simple" }

[[package]]
name = "named"
version = "1.0"
source = { registry = "https://pypi.org/simple" }
"""


def test_a_dependency_cycle_ends_and_a_package_two_markers_deep_needs_both(tmp_path: Path) -> None:
    from tierlock.lockfiles.markers import applies

    chosen = select(parse(CYCLE, tmp_path / "uv.lock"), "app")
    assert chosen.problems == ()
    entries = {str(e.name): e for e in chosen.entries}
    assert set(entries) == {"left", "right", "both", "named"}
    both = entries["both"].marker
    assert applies(both, {"sys_platform": "linux", "python_full_version": "3.12.1", "python_version": "3.12"})
    assert not applies(both, {"sys_platform": "linux", "python_full_version": "3.11.7", "python_version": "3.11"})
    assert not applies(both, {"sys_platform": "win32", "python_full_version": "3.12.1", "python_version": "3.12"})
    assert entries["named"].index == "https://pypi.org/simple"  # the only package of the name, whatever source named


def test_packages_written_as_an_inline_array_are_read_without_lines(tmp_path: Path) -> None:
    """``package = [{...}, {...}]`` (no ``[[package]]`` header to count): every package is read, none has a line."""
    text = (
        'version = 1\npackage = [\n  { name = "alpha", version = "1.0", source = { registry = "https://x/simple" } },\n'
        '  { name = "beta", version = "2.0", source = { registry = "https://x/simple" } },\n]\n'
    )
    lock = parse(text, tmp_path / "uv.lock")
    assert [(p.name, p.line) for p in lock.packages] == [("alpha", None), ("beta", None)]


def test_a_dependency_without_a_name_is_a_problem_and_the_ones_after_it_are_kept(tmp_path: Path) -> None:
    text = (
        'version = 1\n\n[[package]]\nname = "app"\nversion = "0.1"\nsource = { virtual = "." }\n'
        'dependencies = [{ version = "1" }, { name = "beta" }]\n'
    )
    lock = parse(text, tmp_path / "uv.lock")
    (app,) = lock.packages
    assert [d.name for d in app.dependencies] == ["beta"]
    assert [(p.line, p.detail) for p in lock.problems] == [(3, "app: a dependency without a name")]


@pytest.mark.parametrize(
    ("wheel", "problem"),
    [
        ('{ url = "https://files.example.org/ab/lib-1.1-py3-none-any.whl", hash = "sha256:aa" }', "lib-1.1-py3"),
        ('{ url = "https://files.example.org/lib-1.1-py3-none-any.whl#sha256=aa" }', "lib-1.1-py3-none-any.whl is"),
        ('{ url = "https://files.example.org/lib-1.0%2Blocal-py3-none-any.whl?x=1" }', "lib-1.0+local-py3-none-any"),
        ('{ path = "wheels\\\\lib-2-cp312-cp312-win_amd64.whl" }', "lib-2-cp312-cp312-win_amd64.whl is of version 2"),
        ('{ filename = "lib-1.1-py3-none-any.whl", url = "https://x.org/download/17" }', "is of version 1.1"),
        (
            '{ url = "https://x.org/lib-1.0-py3-none-any.whl" }, { url = "https://x.org/lib-1.2-cp312-abi3-any.whl" }',
            "lib-1.2-cp312-abi3-any.whl is of version 1.2",
        ),
        ('{ url = "https://x.org/download/lib-1.0.0-py3-none-any.whl" }', None),
        ('{ url = "https://x.org/download/lib-1.0-1build-py3-none-any.whl" }', None),
        ('{ url = "https://x.org/download/lib-1.0-py3-none-any.whl" }', None),
        ('{ url = "https://x.org/download/lib-x.y-py3-none-any.whl" }', None),
        ('{ url = "https://x.org/download/17" }', None),
        ('{ hash = "sha256:aa" }', None),
        ("7", None),
    ],
    ids=[
        "a url",
        "a url with its hash",
        "a local version, quoted",
        "a path of another platform",
        "a filename beside the url",
        "the second of two",
        "the same version written longer",
        "a build tag",
        "the same",
        "no version",
        "no file name",
        "no place",
        "not a table",
    ],
)
def test_a_wheel_of_another_version_than_its_package_is_a_problem_on_its_line(
    tmp_path: Path, wheel: str, problem: str | None
) -> None:
    """A version edited by hand in uv.lock: uv refuses the lock ("inconsistent version"), and the file's hash
    pins the other version, so no backend installs it."""
    text = (
        'version = 1\n\n[[package]]\nname = "lib"\nversion = "1.0"\n'
        f'source = {{ registry = "https://x.org/simple" }}\nwheels = [{wheel}]\n'
    )
    problems = parse(text, tmp_path / "uv.lock").problems
    if problem is None:
        assert problems == ()
        return
    (found,) = problems
    assert found.line == 3
    assert found.detail.startswith("lib 1.0: its wheel ")
    assert problem in found.detail
    assert str(found.remedy).endswith("rm uv.lock && uv lock")


def test_wheels_that_are_not_a_list_are_no_problem_of_their_versions(tmp_path: Path) -> None:
    text = 'version = 1\n\n[[package]]\nname = "lib"\nversion = "1.0"\nsource = { registry = "https://x.org/s" }\n'
    assert parse(text + 'wheels = "lib-2.0-py3-none-any.whl"\n', tmp_path / "uv.lock").problems == ()
