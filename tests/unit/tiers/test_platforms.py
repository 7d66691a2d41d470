"""Declared platforms: short names and wheel platform tags, the tags each accepts, its markers, and the two keys."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tierlock.errors import ConfigError
from tierlock.tiers.loader import parse_project
from tierlock.tiers.platforms import SHORT_NAMES, parse, python_versions


@pytest.mark.parametrize(
    ("written", "tag", "os", "arch", "libc"),
    [
        ("linux-x86_64", "manylinux_2_28_x86_64", "linux", "x86_64", "glibc"),
        ("Linux-X86_64-MUSL", "musllinux_1_2_x86_64", "linux", "x86_64", "musl"),
        ("linux-aarch64", "manylinux_2_28_aarch64", "linux", "aarch64", "glibc"),
        ("macos-arm64", "macosx_13_0_arm64", "macos", "arm64", None),
        ("macos-x86_64", "macosx_13_0_x86_64", "macos", "x86_64", None),
        ("windows-x86_64", "win_amd64", "windows", "AMD64", None),
        ("windows-arm64", "win_arm64", "windows", "ARM64", None),
        ("manylinux2014_aarch64", "manylinux_2_17_aarch64", "linux", "aarch64", "glibc"),
        ("manylinux1_x86_64", "manylinux_2_5_x86_64", "linux", "x86_64", "glibc"),
        ("musllinux_1_1_aarch64", "musllinux_1_1_aarch64", "linux", "aarch64", "musl"),
        ("macosx-14.0-arm64", "macosx_14_0_arm64", "macos", "arm64", None),
        ("win32", "win32", "windows", "x86", None),
    ],
)
def test_a_platform_is_a_short_name_or_a_wheel_platform_tag(
    written: str, tag: str, os: str, arch: str, libc: str | None
) -> None:
    platform = parse(written)
    assert (platform.tag, platform.os, platform.arch, platform.libc) == (tag, os, arch, libc)


def test_a_short_name_keeps_its_name_and_shows_its_tag() -> None:
    assert parse("Linux-x86_64").name == "linux-x86_64"
    assert parse("linux-x86_64").label == "linux-x86_64 (manylinux_2_28_x86_64)"
    assert parse("win_amd64").label == "win_amd64"
    assert set(SHORT_NAMES) >= {"linux-x86_64", "linux-x86_64-musl", "macos-arm64", "windows-x86_64"}


@pytest.mark.parametrize(
    ("written", "says"),
    [
        ("linux_x86_64", "'linux_x86_64' names no libc; write manylinux_2_X_ARCH (glibc) or musllinux_1_X_ARCH (musl)"),
        ("linux-x86-64", "'linux-x86-64' is not a platform: use a short name (linux-x86_64, "),
        ("solaris", "'solaris' is not a platform"),
        ("macosx_14_0_ppc", "is not a platform"),
    ],
)
def test_an_unknown_platform_says_why_and_what_is_known(written: str, says: str) -> None:
    with pytest.raises(ValueError, match=re.escape(says)):
        parse(written)


def test_a_near_miss_gets_the_closest_short_name() -> None:
    with pytest.raises(ValueError, match=r"did you mean 'linux-x86_64-musl'\?"):
        parse("linux-x86_64-mus")
    with pytest.raises(ValueError, match=r"^'plan9' is not a platform: .* or a wheel platform tag$"):
        parse("plan9")


def test_glibc_platform_accepts_every_older_manylinux_and_its_legacy_names_and_nothing_newer() -> None:
    tags = parse("linux-x86_64").platform_tags()
    assert tags[0] == "manylinux_2_28_x86_64"
    assert tags[-1] == "manylinux1_x86_64"
    assert tags.index("manylinux_2_17_x86_64") + 1 == tags.index("manylinux2014_x86_64")
    assert tags.index("manylinux_2_12_x86_64") + 1 == tags.index("manylinux2010_x86_64")
    assert "manylinux_2_29_x86_64" not in tags
    assert not any(t.startswith("musllinux") for t in tags)


def test_aarch64_manylinux_starts_at_glibc_2_17_with_manylinux2014_only() -> None:
    tags = parse("manylinux_2_20_aarch64").platform_tags()
    assert tags == [
        "manylinux_2_20_aarch64",
        "manylinux_2_19_aarch64",
        "manylinux_2_18_aarch64",
        "manylinux_2_17_aarch64",
        "manylinux2014_aarch64",
    ]


def test_musl_accepts_older_musllinux_only() -> None:
    assert parse("linux-x86_64-musl").platform_tags() == [
        "musllinux_1_2_x86_64",
        "musllinux_1_1_x86_64",
        "musllinux_1_0_x86_64",
    ]


def test_macos_and_windows_tags_come_from_packaging() -> None:
    mac = parse("macos-arm64").platform_tags()
    assert mac[:3] == ["macosx_13_0_arm64", "macosx_13_0_universal2", "macosx_12_0_arm64"]
    assert "macosx_11_0_arm64" in mac
    assert "macosx_14_0_arm64" not in mac
    assert parse("windows-x86_64").platform_tags() == ["win_amd64"]


def test_tags_for_a_python_version_include_abi3_of_older_pythons_and_pure_wheels() -> None:
    linux = parse("linux-x86_64")
    accepted = linux.tags((3, 12))
    assert "cp312-cp312-manylinux_2_17_x86_64" in accepted
    assert "cp311-abi3-manylinux_2_17_x86_64" in accepted
    assert "cp311-cp311-manylinux_2_17_x86_64" not in accepted
    assert "py3-none-any" in accepted
    assert "cp312-cp312-musllinux_1_2_x86_64" not in accepted
    assert "cp312-cp312-manylinux_2_34_x86_64" not in accepted


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("linux-x86_64", {"sys_platform": "linux", "platform_system": "Linux", "os_name": "posix"}),
        ("linux-aarch64-musl", {"sys_platform": "linux", "platform_machine": "aarch64"}),
        ("macos-arm64", {"sys_platform": "darwin", "platform_system": "Darwin", "platform_machine": "arm64"}),
        ("windows-x86_64", {"sys_platform": "win32", "os_name": "nt", "platform_machine": "AMD64"}),
    ],
)
def test_each_platform_has_the_marker_environment_of_cpython_there(name: str, expected: dict[str, str]) -> None:
    environment = parse(name).marker_environment((3, 12), 4)
    assert expected.items() <= environment.items()
    assert environment["python_version"] == "3.12"
    assert environment["python_full_version"] == "3.12.4"
    assert environment["implementation_name"] == "cpython"


@pytest.mark.parametrize(
    ("requires", "expected"),
    [
        (">=3.11", [((3, 11), 0), ((3, 12), 0), ((3, 13), 0), ((3, 14), 0)]),
        (">=3.11.2,<3.13", [((3, 11), 2), ((3, 12), 0)]),
        ("<3.10", [((3, 8), 0), ((3, 9), 0)]),
        ("==3.12.*", [((3, 12), 0)]),
        (">=4", []),
    ],
)
def test_python_versions_are_the_known_minors_requires_python_allows(
    requires: str, expected: list[tuple[tuple[int, int], int]]
) -> None:
    assert python_versions(requires) == expected


def test_no_or_an_unreadable_requires_python_allows_every_known_minor() -> None:
    assert [v for v, _ in python_versions(None)] == [(3, m) for m in range(8, 15)]
    assert python_versions("not a specifier") == python_versions(None)


def load(table: str) -> object:
    import tomllib

    text = f'[project]\nname = "app"\ndependencies = []\n[project.optional-dependencies]\nbrain = []\n{table}'
    return parse_project(tomllib.loads(text), pyproject=Path("/work/app/pyproject.toml"), text=text)


def test_no_build_defaults_to_base_and_platforms_to_none() -> None:
    project = load("[tool.tierlock.tiers.brain]\n")
    assert project.no_build == ("base",)  # type: ignore[attr-defined]
    assert project.platforms == ()  # type: ignore[attr-defined]
    assert not project.builds("base")  # type: ignore[attr-defined]
    assert project.builds("brain")  # type: ignore[attr-defined]


def test_no_build_may_name_no_tier_at_all() -> None:
    project = load("[tool.tierlock]\nno-build = []\n[tool.tierlock.tiers.brain]\n")
    assert project.builds("base")  # type: ignore[attr-defined]


def test_bad_platforms_and_no_build_are_reported_together_with_their_places() -> None:
    table = (
        '[tool.tierlock]\nplatforms = ["linux-x86_64", "manylinux_2_28_x86_64", 3, "bsd"]\n'
        'no-build = ["base", "Base", "brian"]\n[tool.tierlock.tiers.brain]\n'
    )
    with pytest.raises(ConfigError) as caught:
        load(table)
    rendered = [p.render() for p in caught.value.problems]
    assert rendered == [
        "/work/app/pyproject.toml:7 [tool.tierlock].platforms[2]: must be a string, not an integer",
        "/work/app/pyproject.toml:7 [tool.tierlock].platforms[1]: 'manylinux_2_28_x86_64' and 'linux-x86_64' are "
        "one platform (manylinux_2_28_x86_64)",
        "/work/app/pyproject.toml:7 [tool.tierlock].platforms[3]: 'bsd' is not a platform: use a short name "
        "(linux-x86_64, linux-aarch64, linux-x86_64-musl, linux-aarch64-musl, macos-arm64, macos-x86_64, "
        "windows-x86_64, windows-arm64, windows-x86) or a wheel platform tag",
        "/work/app/pyproject.toml:8 [tool.tierlock].no-build[1]: tier 'Base' is listed twice",
        "/work/app/pyproject.toml:8 [tool.tierlock].no-build[2]: unknown tier 'brian'; declared tiers: base, brain "
        "(did you mean 'brain'?)",
    ]


def test_platforms_must_be_an_array() -> None:
    with pytest.raises(ConfigError) as caught:
        load('[tool.tierlock]\nplatforms = "linux-x86_64"\n')
    assert caught.value.problems[0].message == "must be an array of strings, not a string"


def test_consecutive_python_versions_read_as_a_range() -> None:
    from tierlock.tiers.platforms import versions_text

    assert versions_text(["3.10", "3.11", "3.12"]) == "3.10-3.12"
    assert versions_text(["3.11", "3.12"]) == "3.11, 3.12"
    assert versions_text(["3.10", "3.12", "3.13"]) == "3.10, 3.12, 3.13"
    assert versions_text(["3.13"]) == "3.13"


def test_the_marker_environment_defaults_to_the_first_release_of_a_version() -> None:
    assert parse("linux-x86_64").marker_environment((3, 12))["python_full_version"] == "3.12.0"


def test_legacy_manylinux_names_and_musllinux_versions_read_right() -> None:
    assert parse("manylinux2010_x86_64").tag == "manylinux_2_12_x86_64"
    assert parse("manylinux2010_x86_64").version == (2, 12)
    assert parse("musllinux_1_2_aarch64").version == (1, 2)
    assert parse("manylinux_2_31_x86_64").version == (2, 31)
