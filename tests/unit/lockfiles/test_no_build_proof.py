"""The no-build proof's words: markers, remedies, problems and notes, the proof line, per-tier coverage.

Pure: locks, records and projects are built in memory from real wheel file names.
"""

from __future__ import annotations

from pathlib import Path

from tests.support.artifactlocks import (
    GLIBC,
    LINUX,
    MAC,
    MUSL,
    NAT,
    PYTHONS,
    SDIST,
    WIN,
    entry,
    holds,
    lock,
    project,
    record,
    wheel,
)
from tierlock.lockfiles.artifacts import Record
from tierlock.lockfiles.coverage import gaps_of, tier_coverage
from tierlock.lockfiles.locks import Lock
from tierlock.lockfiles.nobuild import notes, package_marker, problems, relock_command, remedies
from tierlock.tiers.platforms import python_versions


def test_the_marker_example_leaves_a_package_out_exactly_where_it_has_no_wheel() -> None:
    app = project(["linux-x86_64", "macos-arm64", "windows-x86_64"])
    nomac = entry(
        "nomac",
        "1",
        [wheel(f"nomac-1-cp{v}-cp{v}-{p}.whl") for v in ("311", "312") for p in ("manylinux_2_17_x86_64", "win_amd64")],
    )
    old = entry(
        "old",
        "1",
        [wheel(f"old-1-cp311-cp311-{p}.whl") for p in ("manylinux_2_17_x86_64", "macosx_11_0_arm64", "win_amd64")],
    )
    for item in (nomac, old):
        _, gaps = gaps_of([item], record(item), app.platforms, PYTHONS)  # type: ignore[attr-defined]
        marker = package_marker(app, gaps)  # type: ignore[arg-type]
        assert marker is not None
        missing = {(g.platform.name, v) for g in gaps for v in g.pythons}
        for platform in ("linux-x86_64", "macos-arm64", "windows-x86_64"):
            for python in ((3, 11), (3, 12)):
                assert holds(marker, platform, python) == ((platform, f"3.{python[1]}") not in missing), marker
    assert marker is not None
    assert "python_version < '3.12'" in marker


def test_a_marker_names_the_machine_when_another_machine_of_that_os_has_a_wheel() -> None:
    app = project(["linux-x86_64", "linux-aarch64"])
    x86 = entry("x", "1", [wheel(f"x-1-cp{v}-cp{v}-manylinux_2_17_x86_64.whl") for v in ("311", "312")])
    _, gaps = gaps_of([x86], record(x86), app.platforms, PYTHONS)  # type: ignore[attr-defined]
    assert package_marker(app, gaps) == "sys_platform != 'linux' or platform_machine != 'aarch64'"  # type: ignore[arg-type]


def test_no_marker_where_it_would_leave_the_package_out_everywhere_or_where_only_musl_lacks_it() -> None:
    app = project(["linux-x86_64", "linux-x86_64-musl"])
    _, gaps = gaps_of([SDIST], record(SDIST), app.platforms, PYTHONS)  # type: ignore[attr-defined]
    assert package_marker(app, gaps) is None  # type: ignore[arg-type]
    _, gaps = gaps_of([GLIBC], record(GLIBC), [MUSL], PYTHONS)
    assert package_marker(app, gaps) is None  # type: ignore[arg-type]


def test_a_gap_on_the_oldest_pythons_or_scattered_ones_gets_the_matching_marker_or_none() -> None:
    app = project(["linux-x86_64", "windows-x86_64"], requires=">=3.10,<3.14")
    new = entry(
        "new",
        "1",
        [wheel(f"new-1-cp{v}-cp{v}-{p}.whl") for v in ("312", "313") for p in ("manylinux_2_17_x86_64", "win_amd64")],
    )
    _, gaps = gaps_of([new], record(new), [WIN], python_versions(">=3.10,<3.14"))
    assert package_marker(app, gaps) == "sys_platform != 'win32' or python_version >= '3.12'"  # type: ignore[arg-type]
    odd = entry("odd", "1", [wheel(f"odd-1-cp{v}-cp{v}-win_amd64.whl") for v in ("310", "312")])
    _, gaps = gaps_of([odd], record(odd), [WIN], python_versions(">=3.10,<3.14"))
    assert gaps[0].pythons == ("3.11", "3.13")
    assert package_marker(app, gaps) is None  # type: ignore[arg-type]


def test_remedies_name_a_version_a_marker_and_a_tier_that_may_build() -> None:
    app = project(["linux-x86_64", "macos-arm64"], tiers=("base", "brain"))
    _, gaps = gaps_of([GLIBC], record(GLIBC), [MAC], PYTHONS)
    assert remedies(app, "base", gaps) == [  # type: ignore[arg-type]
        "require a version of glibconly that publishes wheels for macos-arm64 on Python 3.11, 3.12 "
        "(the locked 1.0 has 1 wheel(s), none for those)",
        "leave it out there with a marker on its requirement: \"glibconly; sys_platform != 'darwin'\"",
        "move glibconly out of [project].dependencies into an extra or group (a tier that may build)",
    ]
    assert remedies(app, "brain", gaps)[-1] == (  # type: ignore[arg-type]
        "move glibconly to a tier that may build, or take brain out of [tool.tierlock].no-build"
    )
    assert relock_command(app, "base") == "tierlock lock base brain"  # type: ignore[arg-type]
    assert relock_command(app, "brain") == "tierlock lock brain"  # type: ignore[arg-type]


def test_problems_come_only_from_no_build_tiers_and_notes_only_from_the_others() -> None:
    app = project(["linux-x86_64", "linux-x86_64-musl"], tiers=("base", "brain"))
    base = tier_coverage("base", lock(GLIBC), record(GLIBC), app.platforms, PYTHONS, no_build=True, lockfile="b")  # type: ignore[attr-defined]
    brain = tier_coverage("brain", lock(SDIST), record(SDIST), app.platforms, PYTHONS, no_build=False, lockfile="c")  # type: ignore[attr-defined]
    found = problems(app, [base, brain])  # type: ignore[arg-type]
    assert [(p.tier, p.kind, p.line) for p in found] == [("base", "no-wheel", 3), ("base", "no-wheel", 3)]
    assert found[0].facts["command"] == ["tierlock", "lock", "base", "brain"]
    assert found[0].remedy.endswith("(every remedy: tierlock platforms base); then run: tierlock lock base brain")
    assert notes([base, brain]) == [
        "note: brain builds from source on linux-x86_64: sdonly 1.0 (sdist only, Python 3.11, 3.12)",
        "note: brain builds from source on linux-x86_64-musl: sdonly 1.0 (sdist only, Python 3.11, 3.12)",
    ]


def test_a_no_build_tier_without_a_usable_record_is_one_problem_with_the_command_that_records_it() -> None:
    app = project(["linux-x86_64"])
    absent = tier_coverage(
        "base",
        lock(NAT),
        Record("absent", path=Path("/app/l/base.artifacts.toml")),
        [LINUX],
        PYTHONS,
        no_build=True,
        lockfile="l/base.txt",
        record_file="l/base.artifacts.toml",
    )
    stale = tier_coverage(
        "base",
        lock(NAT),
        Record("stale", detail="it belongs to another body"),
        [LINUX],
        PYTHONS,
        no_build=True,
        lockfile="l/base.txt",
    )
    single = tier_coverage(
        "base",
        lock(NAT, platform="linux-x86_64/cpython-3.11"),
        record(NAT),
        [LINUX],
        PYTHONS,
        no_build=True,
        lockfile="l/base.txt",
    )
    found = problems(app, [absent, stale, single])  # type: ignore[arg-type]
    assert [(p.kind, p.remedy) for p in found] == [
        ("no-artifacts", "tierlock lock base"),
        ("no-artifacts", "tierlock lock base"),
        ("no-artifacts", "tierlock lock base --backend uv"),
    ]
    assert found[0].detail == (
        "l/base.txt records no artifacts (the wheel files of each package and their tags), so no wheel can be "
        "proven for linux-x86_64; locking it again records them in l/base.artifacts.toml"
    )
    assert (
        found[1].detail
        == "the artifact record l/base.txt is stale (it belongs to another body); locking again rewrites it"
    )
    assert found[2].detail.startswith(
        "l/base.txt is a single-platform lock (pip-tools, made for linux-x86_64/cpython-3.11)"
    )


def test_no_marker_when_one_of_the_platforms_gaps_has_scattered_pythons() -> None:
    app = project(["linux-x86_64", "windows-x86_64"], requires=">=3.10,<3.14")
    files = [wheel(f"s-1-cp{v}-cp{v}-win_amd64.whl") for v in ("310", "312")]
    files += [wheel(f"s-1-cp{v}-cp{v}-manylinux_2_17_x86_64.whl") for v in ("310", "311", "312")]
    scattered = entry("s", "1", files)
    _, gaps = gaps_of([scattered], record(scattered), app.platforms, python_versions(">=3.10,<3.14"))  # type: ignore[attr-defined]
    assert [(g.platform.name, g.pythons) for g in gaps] == [
        ("linux-x86_64", ("3.13",)),
        ("windows-x86_64", ("3.11", "3.13")),
    ]
    assert package_marker(app, gaps) is None  # type: ignore[arg-type]


def test_another_machine_of_the_os_missing_as_many_pythons_or_more_leaves_the_machine_out_of_the_marker() -> None:
    app = project(["linux-x86_64", "linux-aarch64", "macos-arm64"])
    files = [wheel("m-1-cp311-cp311-manylinux_2_17_x86_64.whl")]
    files += [wheel(f"m-1-cp{v}-cp{v}-macosx_11_0_arm64.whl") for v in ("311", "312")]
    item = entry("m", "1", files)
    _, gaps = gaps_of([item], record(item), app.platforms, PYTHONS)  # type: ignore[attr-defined]
    assert [(g.platform.name, g.pythons) for g in gaps] == [
        ("linux-x86_64", ("3.12",)),
        ("linux-aarch64", ("3.11", "3.12")),
    ]
    assert package_marker(app, gaps) == (  # type: ignore[arg-type]
        "(sys_platform != 'linux' or python_version < '3.12') and "
        "(sys_platform != 'linux' or platform_machine != 'aarch64')"
    )


def test_the_proof_line_names_the_proven_no_build_tiers_their_platforms_and_pythons() -> None:
    from tierlock.lockfiles.nobuild import proven

    one = tier_coverage("base", lock(NAT), record(NAT), [LINUX, WIN], PYTHONS, no_build=True, lockfile="b")
    two = tier_coverage("core", lock(NAT), record(NAT), [LINUX, WIN], PYTHONS, no_build=True, lockfile="c")
    may = tier_coverage("brain", lock(SDIST), record(SDIST), [LINUX], PYTHONS, no_build=False, lockfile="d")
    assert proven([one, may]) == "; base installs from wheels on 2 platform(s), Python 3.11, 3.12"
    assert proven([one, two]) == "; base, core install from wheels on 2 platform(s), Python 3.11, 3.12"
    assert proven([may]) == ""


def read_result(found: Lock) -> object:
    from tierlock.lockfiles.fileread import ReadResult

    return ReadResult(found, ())


def test_project_coverage_covers_each_tier_with_a_lockfile_with_its_kind_and_record_file(tmp_path: Path) -> None:
    from tierlock.lockfiles.nobuild import project_coverage

    app = project(["linux-x86_64"], tiers=("base", "brain"))
    root = app.root  # type: ignore[attr-defined]
    brain = Lock(root / "lockfiles/brain.txt", "requirements", None, (NAT,), "", "sha256:body")
    pylock = Lock(root / "lockfiles/pylock.brain.toml", "pylock", None, (NAT,), "")
    tiers = list(app.tiers.values())  # type: ignore[attr-defined]
    found = project_coverage(app, tiers, {"base": None, "brain": read_result(brain)})  # type: ignore[arg-type, dict-item]
    assert [(c.tier, c.no_build, c.lockfile, c.record.state, c.record_file) for c in found] == [
        ("brain", False, "lockfiles/brain.txt", "absent", "lockfiles/brain.artifacts.toml")
    ]
    found = project_coverage(app, tiers, {"base": read_result(pylock), "brain": None})  # type: ignore[arg-type, dict-item]
    assert [(c.tier, c.no_build, c.record_file, c.proven) for c in found] == [("base", True, None, True)]
    assert project_coverage(project([]), tiers, {"base": read_result(pylock)}) == []  # type: ignore[arg-type, dict-item]


def test_problems_of_a_no_build_tier_after_a_tier_that_may_build_and_of_a_package_with_one_gap() -> None:
    app = project(["linux-x86_64"], tiers=("base", "brain"))
    brain = tier_coverage("brain", lock(SDIST), record(SDIST), [LINUX], PYTHONS, no_build=False, lockfile="c")
    base = tier_coverage("base", lock(SDIST), record(SDIST), [LINUX], PYTHONS, no_build=True, lockfile="b")
    (found,) = problems(app, [brain, base])  # type: ignore[arg-type]
    assert (found.tier, found.kind, found.facts["package"]) == ("base", "no-wheel", "sdonly")
    assert found.facts["remedies"][0] == (
        "require a version of sdonly that publishes wheels for every declared platform on Python 3.11, 3.12 "
        "(the locked 1.0 has only an sdist (sdonly-1.0.tar.gz))"
    )


def test_remedies_name_each_platform_with_its_own_pythons_when_they_differ_or_a_platform_has_a_wheel() -> None:
    app = project(["linux-x86_64", "windows-x86_64", "macos-arm64"], requires=">=3.10,<3.14")
    pythons = python_versions(">=3.10,<3.14")
    files = [wheel(f"w-1-cp{v}-cp{v}-manylinux_2_17_x86_64.whl") for v in ("310", "311")]
    files += [wheel(f"w-1-cp{v}-cp{v}-{p}.whl") for v in ("310", "311", "312", "313") for p in ("macosx_11_0_arm64",)]
    item = entry("w", "1", files)
    _, gaps = gaps_of([item], record(item), app.platforms, pythons)  # type: ignore[attr-defined]
    assert remedies(app, "base", gaps)[0].startswith(  # type: ignore[arg-type]
        "require a version of w that publishes wheels for linux-x86_64 on Python 3.12, 3.13; "
        "windows-x86_64 on Python 3.10-3.13 ("
    )
    assert package_marker(app, gaps) == (  # type: ignore[arg-type]
        "(sys_platform != 'linux' or python_version < '3.12') and sys_platform != 'win32'"
    )
    same = entry("v", "1", [wheel(f"v-1-cp{v}-cp{v}-macosx_11_0_arm64.whl") for v in ("310", "311", "312", "313")])
    _, gaps = gaps_of([same], record(same), app.platforms, pythons)  # type: ignore[attr-defined]
    assert remedies(app, "base", gaps)[0].startswith(  # type: ignore[arg-type]
        "require a version of v that publishes wheels for linux-x86_64 on Python 3.10-3.13; windows-x86_64 on"
    )


def test_one_platform_one_gap_is_every_declared_platform() -> None:
    app = project(["windows-x86_64"])
    _, gaps = gaps_of([SDIST], record(SDIST), app.platforms, PYTHONS)  # type: ignore[attr-defined]
    assert remedies(app, "base", gaps)[0].startswith(  # type: ignore[arg-type]
        "require a version of sdonly that publishes wheels for every declared platform on Python 3.11, 3.12"
    )


def test_the_same_newest_pythons_missing_on_every_glibc_platform_is_a_python_marker_even_with_musl_declared() -> None:
    app = project(["linux-x86_64", "windows-x86_64", "linux-x86_64-musl"], requires=">=3.10,<3.14")
    pythons = python_versions(">=3.10,<3.14")
    files = [wheel(f"n-1-cp{v}-cp{v}-{p}.whl") for v in ("310", "311") for p in ("manylinux_2_17_x86_64", "win_amd64")]
    files += [wheel(f"n-1-cp{v}-cp{v}-musllinux_1_2_x86_64.whl") for v in ("310", "311", "312", "313")]
    item = entry("n", "1", files)
    _, gaps = gaps_of([item], record(item), app.platforms, pythons)  # type: ignore[attr-defined]
    assert [(g.platform.name, g.pythons) for g in gaps] == [
        ("linux-x86_64", ("3.12", "3.13")),
        ("windows-x86_64", ("3.12", "3.13")),
    ]
    assert package_marker(app, gaps) == "python_version < '3.12'"  # type: ignore[arg-type]


def test_a_may_build_tier_is_never_in_the_proof_line_even_when_it_has_every_wheel() -> None:
    from tierlock.lockfiles.nobuild import proven

    may = tier_coverage("brain", lock(NAT), record(NAT), [LINUX], PYTHONS, no_build=False, lockfile="d")
    assert may.proven
    assert proven([may]) == ""
