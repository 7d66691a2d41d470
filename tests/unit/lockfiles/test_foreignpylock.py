"""A PEP 751 pylock.toml another tool wrote serves as the tiers' lock: extras and groups pick each tier's part.

Read with ``packaging.pylock``. A lock for several selections (extras and
dependency groups declared, packages marked ``'x' in extras``) gives each tier
its part; a lock made for one selection (``pip lock``, ``uv export``, both run
in ``test_foreignpylock_tools.py``) serves the base tier whole and names the tiers it cannot serve.
"""

from __future__ import annotations

from pathlib import Path

from tierlock.lockfiles.foreignpylock import read

MULTI = (
    """\
lock-version = "1.0"
created-by = "a-tool"
requires-python = ">=3.11"
extras = ["brain"]
dependency-groups = ["test"]
default-groups = []

[[packages]]
name = "alpha"
version = "1.1"
index = "https://pypi.org/simple"
wheels = [
    { url = "https://files.example/alpha-1.1-py3-none-any.whl", hashes = { sha256 = "HASH_A" } },
]

[[packages]]
name = "corelib"
version = "2.0"
marker = "'brain' in extras"
wheels = [
    { url = "https://files.example/corelib-2.0-py3-none-any.whl", hashes = { sha256 = "HASH_B" } },
]

[[packages]]
name = "testkit"
version = "1.0"
marker = "'test' in dependency_groups and sys_platform == 'linux'"
wheels = [
    { url = "https://files.example/testkit-1.0-py3-none-any.whl", hashes = { sha256 = "HASH_C" } },
]

[[packages]]
name = "proj"
directory = { path = ".", editable = true }

[[packages]]
name = "fromgit"
version = "0.1"
marker = "'brain' in extras"
vcs = { type = "git", url = "https://example.org/fromgit.git", commit-id = "0123abcd" }
""".replace("HASH_A", "a" * 64)
    .replace("HASH_B", "b" * 64)
    .replace("HASH_C", "c" * 64)
)


def _names(result: object) -> list[str]:
    return sorted(str(e.name) for e in result.lock.entries)  # type: ignore[attr-defined]


def test_each_tier_takes_the_packages_its_extras_and_groups_select(tmp_path: Path) -> None:
    path = tmp_path / "pylock.toml"
    base = read(path, MULTI, "0" * 64, root="proj", extras=(), groups=())
    assert _names(base) == ["alpha"]
    assert base.problems == ()
    brain = read(path, MULTI, "0" * 64, root="proj", extras=("brain",), groups=())
    assert _names(brain) == ["alpha", "corelib"]
    (vcs,) = brain.problems
    assert vcs.line == 36
    assert "fromgit comes from a VCS checkout" in vcs.detail
    test = read(path, MULTI, "0" * 64, root="proj", extras=(), groups=("test",))
    (testkit,) = [e for e in test.lock.entries if e.name == "testkit"]
    assert str(testkit.marker) == 'sys_platform == "linux"'  # the group decided, the environment kept
    assert [(p.name, p.editable, p.path) for p in base.lock.local] == [("proj", True, tmp_path)]


def test_an_extra_the_lock_does_not_declare_is_a_problem_naming_what_it_declares(tmp_path: Path) -> None:
    (problem,) = read(tmp_path / "pylock.toml", MULTI, "0" * 64, root="proj", extras=("gpu",), groups=()).problems
    assert problem.detail == "pylock.toml has no extra 'gpu' (it declares brain)"


def test_an_invalid_document_is_one_problem_with_its_line(tmp_path: Path) -> None:
    broken = MULTI.replace('version = "1.1"', "version = 11")
    (problem,) = read(tmp_path / "pylock.toml", broken, "0" * 64, root="proj", extras=(), groups=()).problems
    assert problem.line == 10
    assert problem.detail.startswith("invalid pylock")


def test_each_entry_names_where_its_files_come_from(tmp_path: Path) -> None:
    local = tmp_path / "wheels" / "beta-1.0-py3-none-any.whl"
    text = (
        MULTI
        + '\n[[packages]]\nname = "beta"\nversion = "1.0"\n'
        + f'wheels = [{{ url = "{local.as_uri()}", hashes = {{ sha256 = "{"d" * 64}" }} }}]\n'
    )
    result = read(tmp_path / "pylock.toml", text, "0" * 64, root="proj", extras=("brain",), groups=())
    index = {str(e.name): e.index for e in result.lock.entries}
    assert index == {"alpha": "https://pypi.org/simple", "corelib": None, "beta": str(tmp_path / "wheels")}


def test_a_directory_package_keeps_its_environment_marker_and_the_group_part_is_decided(tmp_path: Path) -> None:
    text = MULTI + (
        "\n[[packages]]\nname = \"winhelper\"\nmarker = \"'test' in dependency_groups and sys_platform == 'win32'\"\n"
        'directory = { path = "packages/winhelper", editable = true }\n'
    )
    test = read(tmp_path / "pylock.toml", text, "0" * 64, root="proj", extras=(), groups=("test",))
    helper = next(p for p in test.lock.local if p.name == "winhelper")
    assert str(helper.marker) == 'sys_platform == "win32"'
    assert helper.applies({**_LINUX, "sys_platform": "win32"})
    assert not helper.applies(_LINUX)
    (itself,) = [p for p in test.lock.local if p.name == "proj"]
    assert itself.marker is None
    assert itself.applies(_LINUX)
    base = read(tmp_path / "pylock.toml", text, "0" * 64, root="proj", extras=(), groups=())
    assert [p.name for p in base.lock.local] == ["proj"]  # not in the base tier's selection at all


#: A marker environment of a Linux CPython 3.12 (every variable PEP 508 names).
_LINUX = {
    "implementation_name": "cpython",
    "implementation_version": "3.12.1",
    "os_name": "posix",
    "platform_machine": "x86_64",
    "platform_release": "6.1",
    "platform_system": "Linux",
    "platform_version": "#1",
    "python_full_version": "3.12.1",
    "platform_python_implementation": "CPython",
    "python_version": "3.12",
    "sys_platform": "linux",
}
