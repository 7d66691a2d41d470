"""The artifact record (sidecar and pylock), wheel coverage per platform and Python, and the no-build proof's words.

Pure: locks, records and platforms are built in memory from real wheel file names.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest
from packaging.markers import Marker
from packaging.utils import canonicalize_name
from packaging.version import Version

from tierlock.lockfiles import artifacts
from tierlock.lockfiles.artifacts import Record, record_of, sidecar_path
from tierlock.lockfiles.coverage import gaps_of, nearest_tags, tier_coverage, wheel_tags
from tierlock.lockfiles.model import Lock, LockedFile, LockEntry, LockHeader
from tierlock.lockfiles.nobuild import notes, package_marker, problems, relock_command, remedies
from tierlock.tiers.platforms import parse, python_versions

LINUX, MUSL, MAC, WIN = (parse(n) for n in ("linux-x86_64", "linux-x86_64-musl", "macos-arm64", "windows-x86_64"))
PYTHONS = python_versions(">=3.11,<3.13")


def digest(name: str) -> str:
    import hashlib

    return hashlib.sha256(name.encode()).hexdigest()


def wheel(name: str) -> LockedFile:
    return LockedFile("wheel", name, None, None, None, {"sha256": digest(name)})


def sdist(name: str) -> LockedFile:
    return LockedFile("sdist", name, None, None, None, {"sha256": digest(name)})


def entry(name: str, version: str, files: Sequence[LockedFile], marker: str | None = None, line: int = 3) -> LockEntry:
    hashes = tuple(f"sha256:{f.hashes['sha256']}" for f in files)
    return LockEntry(
        canonicalize_name(name), Version(version), Marker(marker) if marker else None, hashes, line, tuple(files)
    )


def lock(*entries: LockEntry, platform: str | None = None, path: str = "lockfiles/base.txt") -> Lock:
    header = None
    if platform is not None:
        header = LockHeader("base", (), "", None, None, "", "pip-tools", "7", platform, "tierlock lock base")
    return Lock(Path(path), "pylock", header, tuple(entries), "", "sha256:body")


def record(*entries: LockEntry) -> Record:
    return Record("recorded", {artifacts.key(e): e.files for e in entries})


NAT = entry(
    "natpkg",
    "1.0",
    [
        wheel(f"natpkg-1.0-cp{py}-cp{py}-{p}.whl")
        for py in ("311", "312")
        for p in ("manylinux_2_17_x86_64", "win_amd64")
    ],
)
GLIBC = entry("glibconly", "1.0", [wheel("glibconly-1.0-cp311-cp311-manylinux_2_17_x86_64.manylinux2014_x86_64.whl")])
SDIST = entry("sdonly", "1.0", [sdist("sdonly-1.0.tar.gz")])
WINEXTRA = entry("winextra", "1.0", [wheel("winextra-1.0-cp311-abi3-win_amd64.whl")], "sys_platform == 'win32'")


# -- the record ------------------------------------------------------------------------


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


# -- coverage ----------------------------------------------------------------------------


def test_a_glibc_wheel_covers_glibc_only_and_a_marker_limits_where_a_package_applies() -> None:
    cells, gaps = gaps_of([NAT, GLIBC, WINEXTRA], record(NAT, GLIBC, WINEXTRA), [LINUX, MUSL, WIN], PYTHONS)
    assert [(g.name, g.platform.name, g.pythons, g.exists) for g in gaps] == [  # in lockfile order
        ("natpkg", "linux-x86_64-musl", ("3.11", "3.12"), "other-wheels"),
        ("glibconly", "linux-x86_64", ("3.12",), "other-wheels"),
        ("glibconly", "linux-x86_64-musl", ("3.11", "3.12"), "other-wheels"),
        ("glibconly", "windows-x86_64", ("3.11", "3.12"), "other-wheels"),
    ]
    linux311 = next(c for c in cells if (c.platform, c.python) == ("linux-x86_64", "3.11"))
    assert (linux311.packages, linux311.builds) == (2, ())  # winextra does not apply on Linux
    win312 = next(c for c in cells if (c.platform, c.python) == ("windows-x86_64", "3.12"))
    assert (win312.packages, win312.builds) == (3, ("glibconly",))  # its abi3 wheel serves 3.12


def test_a_package_the_record_does_not_know_or_has_no_hashed_file_for_is_a_gap_that_says_so() -> None:
    unknown = entry("ghost", "1.0", [wheel("ghost-1.0-py3-none-any.whl")])
    empty = LockEntry(canonicalize_name("bare"), Version("1.0"), None, ("sha256:" + "c" * 64,), 4)
    found = Record("recorded", {("bare", "1.0"): ()})
    _, gaps = gaps_of([unknown, empty], found, [LINUX], PYTHONS[:1])
    assert [(g.name, g.exists, g.what) for g in gaps] == [
        ("ghost", "unknown", "no file recorded for it (the index listed none of its hashed files)"),
        ("bare", "nothing", "no file the lock has a hash for"),
    ]


def test_a_gap_describes_the_package_platform_pythons_and_what_exists() -> None:
    (gap,) = gaps_of([SDIST], record(SDIST), [MUSL], PYTHONS)[1]
    assert gap.describe() == (
        "sdonly 1.0 has no wheel for linux-x86_64-musl (musllinux_1_2_x86_64) on Python 3.11, 3.12: "
        "the lock has only an sdist (sdonly-1.0.tar.gz)"
    )
    assert gap.to_dict() == {
        "package": "sdonly",
        "version": "1.0",
        "platform": "linux-x86_64-musl",
        "platform_tag": "musllinux_1_2_x86_64",
        "pythons": ["3.11", "3.12"],
        "exists": "sdist-only",
        "files": ["sdonly-1.0.tar.gz"],
        "nearest_tags": [],
        "line": 3,
    }


def test_the_nearest_tags_put_the_platform_first_then_the_python_then_the_os() -> None:
    wheels = [
        "p-1-cp312-cp312-win_amd64.whl",
        "p-1-cp310-cp310-manylinux_2_17_x86_64.whl",
        "p-1-cp311-cp311-macosx_11_0_arm64.whl",
        "p-1-cp311-cp311-manylinux_2_34_x86_64.whl",
    ]
    assert nearest_tags(wheels, LINUX, ["3.11"]) == (
        "cp310-cp310-manylinux_2_17_x86_64",
        "cp311-cp311-manylinux_2_34_x86_64",
        "cp311-cp311-macosx_11_0_arm64",
    )
    assert nearest_tags(wheels, MUSL, ["3.11"], limit=1) == ("cp311-cp311-manylinux_2_34_x86_64",)  # linux, x86_64
    assert wheel_tags("not-a-wheel.whl") == frozenset()


def test_many_wheels_elsewhere_are_counted_beyond_the_nearest_three() -> None:
    many = entry(
        "m", "1", [wheel(f"m-1-cp311-cp311-{p}.whl") for p in ("win_amd64", "win32", "win_arm64", "macosx_11_0_arm64")]
    )
    (gap,) = gaps_of([many], record(many), [LINUX], PYTHONS[:1])[1]
    assert gap.what.startswith("wheels only for ")
    assert gap.what.endswith(" (and 1 more)")


def test_a_tier_without_a_usable_record_or_with_a_single_platform_lock_proves_nothing() -> None:
    absent = tier_coverage("base", lock(NAT), Record("absent"), [LINUX], PYTHONS, no_build=True, lockfile="b")
    assert (absent.proven, absent.cells, absent.gaps) == (False, (), ())
    single = tier_coverage(
        "base",
        lock(NAT, platform="linux-x86_64/cpython-3.11"),
        record(NAT),
        [LINUX],
        PYTHONS,
        no_build=True,
        lockfile="b",
    )
    assert (single.proven, single.single_platform) == (False, "linux-x86_64/cpython-3.11")
    good = tier_coverage("base", lock(NAT), record(NAT), [LINUX], PYTHONS, no_build=True, lockfile="b", record_file="r")
    assert good.proven
    assert good.to_dict()["record_file"] == "r"
    assert good.to_dict()["cells"][0] == {"platform": "linux-x86_64", "python": "3.11", "packages": 1, "builds": []}


# -- the proof's words -------------------------------------------------------------------


def project(platforms: Sequence[str], requires: str = ">=3.11,<3.13", tiers: Sequence[str] = ("base",)) -> object:
    import tomllib

    from tierlock.tiers.loader import parse_project

    extras = "".join(f"{t} = []\n" for t in tiers if t != "base")
    layers = "".join(f'[tool.tierlock.tiers.{t}]\nlayered-on = "base"\n' for t in tiers if t != "base")
    text = (
        f'[project]\nname = "app"\nrequires-python = "{requires}"\ndependencies = []\n'
        f"[project.optional-dependencies]\n{extras}"
        f"[tool.tierlock]\nplatforms = {list(platforms)!r}\n{layers}"
    ).replace("'", '"')
    return parse_project(tomllib.loads(text), pyproject=Path("/app/pyproject.toml"), text=text)


def holds(marker: str, platform_name: str, python: tuple[int, int]) -> bool:
    return Marker(marker).evaluate(parse(platform_name).marker_environment(python))


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


def test_a_nearer_machine_outranks_another_machine_of_the_same_os_and_python() -> None:
    wheels = ["p-1-cp312-cp312-manylinux_2_34_aarch64.whl", "p-1-cp312-cp312-manylinux_2_34_x86_64.whl"]
    assert nearest_tags(wheels, LINUX, ["3.12"]) == (
        "cp312-cp312-manylinux_2_34_x86_64",
        "cp312-cp312-manylinux_2_34_aarch64",
    )


# -- what the mutation run asked for -------------------------------------------------------


def read_result(found: Lock) -> object:
    from tierlock.lockfiles.reader import ReadResult

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


def test_a_wheel_list_no_longer_than_the_nearest_says_no_more() -> None:
    two = entry("t", "1", [wheel(f"t-1-cp311-cp311-{p}.whl") for p in ("win_amd64", "win32")])
    (gap,) = gaps_of([two], record(two), [LINUX], PYTHONS[:1])[1]
    assert gap.what == "wheels only for cp311-cp311-win_amd64, cp311-cp311-win32"  # an x86_64 machine first


def test_the_nearest_tags_weigh_platform_python_os_and_machine_in_that_order() -> None:
    # accepted here and for this Python, over accepted here only
    both = ["p-1-cp311-cp311-manylinux_2_17_x86_64.whl", "p-1-cp312-cp312-manylinux_2_17_x86_64.whl"]
    assert nearest_tags(both, LINUX, ["3.12"])[0] == "cp312-cp312-manylinux_2_17_x86_64"
    # this Python on another OS ties with this OS and machine for another Python (the name decides)
    tied = ["p-1-cp312-cp312-win32.whl", "p-1-cp310-cp310-manylinux_2_34_x86_64.whl"]
    assert nearest_tags(tied, LINUX, ["3.12"])[0] == "cp310-cp310-manylinux_2_34_x86_64"
    # this Python outranks this OS alone
    python = ["p-1-cp312-cp312-win32.whl", "p-1-cp310-cp310-manylinux_2_34_aarch64.whl"]
    assert nearest_tags(python, LINUX, ["3.12"])[0] == "cp312-cp312-win32"
    # this OS alone outranks nothing in common
    os_only = ["p-1-cp310-cp310-macosx_10_9_i386.whl", "p-1-cp310-cp310-manylinux_2_34_aarch64.whl"]
    assert nearest_tags(os_only, LINUX, ["3.12"])[0] == "cp310-cp310-manylinux_2_34_aarch64"


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
