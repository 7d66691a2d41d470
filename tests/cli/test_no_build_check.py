"""``tierlock check`` proves offline that every no-build tier installs from wheels on every declared platform.

Locks are made by real uv from a local simple index (``file://``, a sha256 on each link, as a registry serves
them) over wheels carrying real platform tags (manylinux, musllinux, macosx, win) and sdists built at test time.
Each remedy that is a command is run exactly as printed.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import pytest

from tests.support.cli import cli_json, run_cli
from tests.support.lockproj import write_project
from tests.support.platformwheels import build_sdist, native_wheels, simple_index
from tests.support.wheels import build_wheel

PLATFORMS = '["linux-x86_64", "linux-x86_64-musl", "macos-arm64", "windows-x86_64"]'

PYPROJECT = """\
[project]
name = "app"
version = "0.1.0"
requires-python = ">=3.11,<3.13"
dependencies = [{base}]

[project.optional-dependencies]
native = ["glibconly"]

[tool.tierlock]
format = "{fmt}"
platforms = {platforms}

[tool.tierlock.tiers.native]
source = "extra:native"
"""

BASE = ["natpkg", "purepkg", "winextra; sys_platform == 'win32'"]


@pytest.fixture(scope="session")
def files(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheels and sdists every lock of this module resolves from."""
    files = tmp_path_factory.mktemp("files")
    native_wheels(files, "natpkg", "1.0", pythons=("311", "312"))
    native_wheels(files, "glibconly", "1.0", ["manylinux_2_17_x86_64.manylinux2014_x86_64"], ("311", "312"))
    native_wheels(files, "nomacwin", "1.0", ["manylinux_2_17_x86_64", "musllinux_1_1_x86_64"], ("311", "312"))
    native_wheels(files, "newglibc", "1.0", ["manylinux_2_34_x86_64"], ("311", "312"))
    native_wheels(files, "winextra", "1.0", ["win_amd64"], ("311", "312"))
    native_wheels(files, "oldpy", "1.0", pythons=("311",))
    build_wheel(files, "abi3pkg", "1.0", tag="cp311-abi3-manylinux_2_17_x86_64")
    build_wheel(files, "purepkg", "1.0")
    build_sdist(files, "sdonly", "1.0")
    build_wheel(files, "sdonly", "2.0")
    return files


@pytest.fixture(scope="session")
def uv_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """uv's cache for this module's locks: never the machine's (a reused index path must not meet old pages)."""
    return tmp_path_factory.mktemp("uv-cache")


@pytest.fixture(scope="session")
def index(tmp_path_factory: pytest.TempPathFactory, files: Path) -> str:
    """A simple index over *files* (a sha256 on every link, as a registry serves them)."""
    return simple_index(files, tmp_path_factory.mktemp("simple"))


@pytest.fixture(autouse=True)
def from_the_index(index: str, uv_cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The user's uv settings: every lock (and every remedy run as printed) resolves from the index."""
    monkeypatch.setenv("UV_INDEX_URL", index)
    monkeypatch.setenv("UV_CACHE_DIR", str(uv_cache))


def project(
    folder: Path, index: str, base: list[str], *, fmt: str = "requirements", platforms: str = PLATFORMS
) -> Path:
    deps = ", ".join(f'"{d}"' for d in base)
    return write_project(folder, PYPROJECT.format(base=deps, fmt=fmt, platforms=platforms))


def lock(capsys: pytest.CaptureFixture[str], folder: Path, *tiers: str) -> None:
    code, _, err = run_cli(capsys, "--project", str(folder), "-q", "lock", *tiers)
    assert code == 0, err


def gaps(document: dict[str, Any]) -> set[tuple[str, str, tuple[str, ...], str]]:
    """(package, platform, Python versions, what exists) of every no-wheel finding."""
    return {
        (f["gap"]["package"], f["gap"]["platform"], tuple(f["gap"]["pythons"]), f["gap"]["exists"])
        for f in document["findings"]
        if f["kind"] == "no-wheel"
    }


def then_run(remedy: str) -> list[str]:
    """The command a remedy ends with (``...; then run: tierlock lock base``), as argv without the program."""
    command = remedy.rsplit("then run: ", 1)[1].split(" && ", maxsplit=1)[0]
    words = command.split()
    assert words[0] == "tierlock", remedy
    return words[1:]


@pytest.mark.parametrize("fmt", ["requirements", "pylock"])
def test_check_names_each_package_without_a_wheel_with_its_platform_python_versions_and_what_exists(
    tmp_path: Path, index: str, capsys: pytest.CaptureFixture[str], fmt: str
) -> None:
    folder = project(tmp_path / "app", index, [*BASE, "glibconly", "sdonly<2", "abi3pkg", "oldpy"], fmt=fmt)
    lock(capsys, folder)
    code, document = cli_json(capsys, "--project", str(folder), "check")
    assert code == 1
    musl, mac, win = "linux-x86_64-musl", "macos-arm64", "windows-x86_64"
    assert gaps(document) == {
        # a glibc wheel covers neither musl nor another OS
        ("glibconly", musl, ("3.11", "3.12"), "other-wheels"),
        ("glibconly", mac, ("3.11", "3.12"), "other-wheels"),
        ("glibconly", win, ("3.11", "3.12"), "other-wheels"),
        # an abi3 wheel covers later Pythons, but only on its own platform
        ("abi3pkg", musl, ("3.11", "3.12"), "other-wheels"),
        ("abi3pkg", mac, ("3.11", "3.12"), "other-wheels"),
        ("abi3pkg", win, ("3.11", "3.12"), "other-wheels"),
        # cp311 wheels everywhere, nothing for 3.12
        *{("oldpy", p, ("3.12",), "other-wheels") for p in ("linux-x86_64", musl, mac, win)},
        *{("sdonly", p, ("3.11", "3.12"), "sdist-only") for p in ("linux-x86_64", musl, mac, win)},
    }
    # natpkg has a wheel everywhere; winextra applies only on Windows, where it has one; purepkg is pure
    assert document["by_kind"] == {"no-wheel": 14}
    (sdist,) = {f["gap"]["files"][0] for f in document["findings"] if f["gap"]["package"] == "sdonly"}
    assert sdist == "sdonly-1.0.tar.gz"
    glibc_musl = next(
        f for f in document["findings"] if f["gap"]["package"] == "glibconly" and "musl" in f["gap"]["platform"]
    )
    assert glibc_musl["gap"]["nearest_tags"][0].startswith("cp311-cp311-manylinux_2_17_x86_64")
    assert glibc_musl["tier"] == "base"
    assert glibc_musl["line"] is not None


def test_check_text_says_where_and_one_remedy_per_package(
    tmp_path: Path, index: str, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = project(tmp_path / "app", index, [*BASE, "sdonly<2"])
    lock(capsys, folder)
    code, out, _ = run_cli(capsys, "--project", str(folder), "check")
    assert code == 1
    assert (
        "base: no-wheel: sdonly 1.0 has no wheel for linux-x86_64-musl (musllinux_1_2_x86_64) on Python 3.11, 3.12: "
        "the lock has only an sdist (sdonly-1.0.tar.gz); tier base installs from wheels only (no-build)"
    ) in out
    assert "4 problem(s): 2 tier(s) (every tier), 2 lockfile(s), 5 package(s) (9 lock entries) checked" in out
    fixes = [line for line in out.splitlines() if line.startswith("  to fix:")]
    assert len(fixes) == 1  # four platforms, one package: one remedy
    assert fixes[0].endswith(f"then run: tierlock --project {folder} lock base native")  # native is on base
    notes = [line for line in out.splitlines() if line.startswith("note: ")]
    assert notes[0] == "note: native builds from source on linux-x86_64: sdonly 1.0 (sdist only, Python 3.11, 3.12)"
    assert len(notes) == 4


def test_a_version_with_wheels_is_a_remedy_that_converges(
    tmp_path: Path, index: str, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = project(tmp_path / "app", index, [*BASE, "sdonly<2"])
    lock(capsys, folder)
    code, document = cli_json(capsys, "--project", str(folder), "check")
    finding = document["findings"][0]
    assert finding["gap"]["remedies"][0].startswith("require a version of sdonly that publishes wheels for")
    pyproject = folder / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace('"sdonly<2"', '"sdonly>=2"'))
    assert run_cli(capsys, "--project", str(folder), *then_run(finding["remedy"]))[0] == 0
    code, out, _ = run_cli(capsys, "--project", str(folder), "check")
    assert code == 0, out
    assert out.endswith("; base installs from wheels on 4 platform(s), Python 3.11, 3.12\n")


def test_the_printed_marker_leaves_the_package_out_exactly_where_it_has_no_wheel(
    tmp_path: Path, index: str, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = project(tmp_path / "app", index, [*BASE, "nomacwin"])
    lock(capsys, folder)
    code, out, _ = run_cli(capsys, "--project", str(folder), "platforms", "base")
    assert code == 1
    marker_line = next(line for line in out.splitlines() if "with a marker on its requirement" in line)
    requirement = marker_line.split('requirement: "', 1)[1].rstrip('"')
    assert requirement == "nomacwin; sys_platform != 'darwin' and sys_platform != 'win32'"
    pyproject = folder / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace('"nomacwin"', f'"{requirement}"'))
    relock = f"tierlock --project {folder} lock base native"  # (the project given names it: run as printed)
    assert out.splitlines()[-2].strip() == f"then run: {relock}"
    assert run_cli(capsys, *relock.split()[1:])[0] == 0
    code, out, _ = run_cli(capsys, "--project", str(folder), "check")
    assert code == 0, out


def test_musl_is_its_own_platform_no_marker_tells_it_and_moving_the_package_to_a_tier_that_may_build_converges(
    tmp_path: Path, index: str, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = project(tmp_path / "app", index, [*BASE, "glibconly"], platforms='["linux-x86_64", "linux-x86_64-musl"]')
    lock(capsys, folder)
    code, document = cli_json(capsys, "--project", str(folder), "platforms")
    assert code == 1
    (tier,) = [t for t in document["tiers"] if t["tier"] == "base"]
    (gap,) = tier["gaps"]
    assert (gap["package"], gap["platform"], gap["platform_tag"]) == (
        "glibconly",
        "linux-x86_64-musl",
        "musllinux_1_2_x86_64",
    )
    assert not any("with a marker" in r for r in gap["remedies"])
    assert any("markers cannot tell musl from glibc" in r for r in gap["remedies"])
    assert gap["remedies"][-1].startswith("move glibconly out of [project].dependencies into an extra")
    table = run_cli(capsys, "--project", str(folder), "platforms", "base")[1].splitlines()  # one gap, as text
    assert table[-7:-5] == [
        f"  glibconly 1.0 (lockfiles/base.txt:{gap['line']}) has no wheel for:",
        "    linux-x86_64-musl (musllinux_1_2_x86_64) on Python 3.11, 3.12: the lock has wheels only for "
        "cp311-cp311-manylinux_2_17_x86_64.manylinux2014_x86_64, "
        "cp312-cp312-manylinux_2_17_x86_64.manylinux2014_x86_64",
    ]
    assert table[-1] == "1 no-build tier(s) would build from source somewhere: base"
    pyproject = folder / "pyproject.toml"  # the native extra already holds it: leave it out of base
    pyproject.write_text(pyproject.read_text().replace(', "glibconly"]', "]"))
    assert run_cli(capsys, "--project", str(folder), *gap["command"][1:])[0] == 0
    assert run_cli(capsys, "--project", str(folder), "lock", "native")[0] == 0
    code, out, _ = run_cli(capsys, "--project", str(folder), "check")
    assert code == 0, out
    assert (
        "note: native builds from source on linux-x86_64-musl: glibconly 1.0 (no wheel there, Python 3.11, 3.12)" in out
    )


def test_a_glibc_newer_than_the_declared_one_is_no_wheel_for_it(
    tmp_path: Path, index: str, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = project(tmp_path / "app", index, ["newglibc"], platforms='["linux-x86_64", "manylinux_2_34_x86_64"]')
    lock(capsys, folder)
    code, document = cli_json(capsys, "--project", str(folder), "check")
    assert code == 1
    assert gaps(document) == {("newglibc", "linux-x86_64", ("3.11", "3.12"), "other-wheels")}  # 2.28 < 2.34


def test_an_older_lockfile_without_a_record_still_reads_and_check_says_to_lock_it_again(
    tmp_path: Path, index: str, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = project(tmp_path / "app", index, BASE)
    lock(capsys, folder)
    (folder / "lockfiles/base.artifacts.toml").unlink()
    code, document = cli_json(capsys, "--project", str(folder), "check")
    assert code == 1
    (finding,) = [f for f in document["findings"] if f["tier"] == "base"]
    assert finding["kind"] == "no-artifacts"
    assert "records no artifacts" in finding["detail"]
    assert finding["remedy"] == f"tierlock --project {folder} lock base"
    code, table, _ = run_cli(capsys, "--project", str(folder), "platforms")
    assert code == 1
    first, *rest = table.splitlines()
    assert first.startswith("base (no-build): lockfiles/base.txt: lockfiles/base.txt records no artifacts")
    assert first.endswith(f"; to fix: tierlock --project {folder} lock base")  # (no --backend: a universal lock)
    assert rest[0] == "native (may build): lockfiles/native.txt"  # the next tier's table still follows
    windows = next(line for line in rest if line.startswith("windows-x86_64"))
    assert windows.split("  ")[-1] == "3/4, builds glibconly"  # (winextra applies there; glibconly is built)
    code, out, _ = run_cli(capsys, *finding["remedy"].split()[1:])
    assert code == 0, out
    assert run_cli(capsys, "--project", str(folder), "check")[0] == 0


def test_a_record_of_another_body_is_stale_and_locking_again_rewrites_it(
    tmp_path: Path, index: str, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = project(tmp_path / "app", index, BASE)
    lock(capsys, folder)
    record = folder / "lockfiles/base.artifacts.toml"
    record.write_text(record.read_text().replace('body-digest = "sha256:', 'body-digest = "sha256:0'), encoding="utf-8")
    code, document = cli_json(capsys, "--project", str(folder), "check")
    assert code == 1
    (finding,) = document["findings"]
    assert finding["kind"] == "no-artifacts"
    assert "is stale" in finding["detail"]
    assert run_cli(capsys, "--project", str(folder), *finding["remedy"].split()[1:])[0] == 0
    assert run_cli(capsys, "--project", str(folder), "check")[0] == 0


def test_without_declared_platforms_check_proves_nothing_and_passes_as_before(
    tmp_path: Path, index: str, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = project(tmp_path / "app", index, [*BASE, "sdonly<2"], platforms="[]")
    lock(capsys, folder)
    code, document = cli_json(capsys, "--project", str(folder), "check")
    assert code == 0
    assert document["platforms"] == []
    assert document["coverage"] == []


def test_the_lock_records_only_files_whose_hash_it_carries(
    tmp_path: Path, index: str, files: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from tierlock.lockfiles import load

    folder = project(tmp_path / "app", index, BASE)
    lock(capsys, folder)
    record = tomllib.loads((folder / "lockfiles/base.artifacts.toml").read_text())
    natpkg = next(p for p in record["packages"] if p["name"] == "natpkg")
    assert len(natpkg["wheels"]) == 8  # four platforms, two Pythons: every file the index lists, each hashed
    # From a plain find-links folder uv hashes one file per version: only that one is an artifact of the lock.
    argv = ["--project", str(folder), "-q", "lock", "--upgrade", "--no-index", "--find-links", str(files)]
    code, _, err = run_cli(capsys, *argv)
    assert code == 0, err
    record = tomllib.loads((folder / "lockfiles/base.artifacts.toml").read_text())
    natpkg = next(p for p in record["packages"] if p["name"] == "natpkg")
    entry = next(e for e in load(folder / "lockfiles/base.txt").entries if e.name == "natpkg")
    assert sorted(w["hash"] for w in natpkg["wheels"]) == sorted(entry.hashes)
    assert len(entry.hashes) < 8


def test_a_pip_tools_lock_records_nothing_and_check_says_a_universal_lock_proves_the_platforms(
    tmp_path: Path, index: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = project(tmp_path / "app", index, BASE)
    lock(capsys, folder)
    assert (folder / "lockfiles/base.artifacts.toml").is_file()
    monkeypatch.setenv("PIP_INDEX_URL", index)
    code, out, err = run_cli(capsys, "--project", str(folder), "lock", "base", "--backend", "pip")
    assert code == 0, err
    assert "artifacts not recorded: a single-platform lock (pip-tools)" in out
    assert not (folder / "lockfiles/base.artifacts.toml").exists()  # an old record never outlives its lock
    code, document = cli_json(capsys, "--project", str(folder), "check", "base")
    assert code == 1
    (finding,) = document["findings"]
    assert finding["kind"] == "no-artifacts"
    assert "single-platform lock" in finding["detail"]
    assert finding["remedy"] == f"tierlock --project {folder} lock base native --backend uv"
    table = run_cli(capsys, "--project", str(folder), "platforms", "base")[1]
    assert table.splitlines()[0].endswith(f"; to fix: tierlock --project {folder} lock base native --backend uv")
    assert run_cli(capsys, *finding["remedy"].split()[1:])[0] == 0
    assert run_cli(capsys, "--project", str(folder), "check")[0] == 0


def test_a_pip_tools_lock_under_a_layered_tier_is_fixed_by_one_command_that_relocks_both(
    tmp_path: Path, index: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Before: the fix relocked base alone (``lock base --backend uv``); native, layered on it, then said base-moved
    # and needed a second command.
    folder = project(tmp_path / "app", index, ["purepkg"], platforms='["linux-x86_64"]')
    monkeypatch.setenv("PIP_INDEX_URL", index)
    code, _, err = run_cli(capsys, "--project", str(folder), "-q", "lock", "--backend", "pip")
    assert code == 0, err
    code, document = cli_json(capsys, "--project", str(folder), "check")
    assert code == 1
    remedies = {f["remedy"] for f in document["findings"]}
    assert remedies == {f"tierlock --project {folder} lock base native --backend uv"}
    assert run_cli(capsys, *remedies.pop().split()[1:])[0] == 0
    code, out, err = run_cli(capsys, "--project", str(folder), "check")
    assert code == 0, out + err


def test_platforms_prints_the_coverage_table_and_proves_with_given_platforms(
    tmp_path: Path, index: str, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = project(tmp_path / "app", index, BASE, platforms="[]")
    lock(capsys, folder)
    code, out, err = run_cli(capsys, "--project", str(folder), "platforms")
    assert code == 2
    assert "no platforms to prove" in err
    remedy = err.split("to fix: ", 1)[1].strip()
    code, out, _ = run_cli(capsys, "--project", str(folder), *remedy.split()[1:])
    assert code == 0, out
    base = out.split("base (no-build): lockfiles/base.txt\n", 1)[1].split("native (may build)", 1)[0]
    rows = {line.split("  ")[0]: line.split() for line in base.splitlines() if line.startswith(("linux", "windows"))}
    assert rows["linux-x86_64 (manylinux_2_28_x86_64)"][-4:] == ["2/2", "wheels", "2/2", "wheels"]
    assert rows["windows-x86_64 (win_amd64)"][-4:] == ["3/3", "wheels", "3/3", "wheels"]  # winextra applies there
    assert out.splitlines()[-1] == (
        "ok: every no-build tier installs from wheels on linux-x86_64, macos-arm64, windows-x86_64 (Python 3.11, 3.12)"
    )
    code, _, err = run_cli(capsys, "--project", str(folder), "platforms", "--platform", "linux_x86_64")
    assert code == 2
    assert "'linux_x86_64' names no libc" in err


def test_the_check_fast_path_with_platforms_imports_none_of_rich_jsonschema_pip_uv(
    tmp_path: Path, index: str, capsys: pytest.CaptureFixture[str]
) -> None:
    from tests.unit.probing.test_probe_tier import imported_modules

    folder = project(tmp_path / "app", index, [*BASE, "sdonly<2"])
    lock(capsys, folder)
    code = "import sys; from tierlock.cli import main; sys.exit(main(['check']))"
    modules = imported_modules(code, folder)
    assert {"tierlock.lockfiles.coverage", "tierlock.lockfiles.artifacts", "packaging.tags"} <= modules
    assert {m for m in modules if m.split(".")[0] in {"rich", "jsonschema", "pip", "uv"}} == set()


def test_matrix_emits_one_job_per_declared_platform_for_the_base_tier(
    tmp_path: Path, index: str, capsys: pytest.CaptureFixture[str]
) -> None:
    import json

    folder = project(tmp_path / "app", index, BASE)
    code, out, _ = run_cli(capsys, "--project", str(folder), "matrix", "--platforms")
    assert code == 0
    jobs = json.loads(out)["include"]
    assert [(j["platform"], j["runs_on"], j["container"]) for j in jobs] == [
        ("linux-x86_64", "ubuntu-latest", ""),
        ("linux-x86_64-musl", "ubuntu-latest", "python:3.12-alpine"),
        ("macos-arm64", "macos-latest", ""),
        ("windows-x86_64", "windows-latest", ""),
    ]
    assert {(j["tiers"], j["install"], j["python"]) for j in jobs} == {("base", "install-tier base", "3.12")}
    code, out, _ = run_cli(capsys, "--project", str(folder), "matrix", "--platforms", "--format", "gitlab")
    assert '      PLATFORM: "linux-x86_64-musl"\n      IMAGE: "python:3.12-alpine"\n' in out
    pyproject = folder / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace(f"platforms = {PLATFORMS}", "platforms = []"))
    code, _, err = run_cli(capsys, "--project", str(folder), "matrix", "--platforms")
    assert code == 2
    assert "declares no platform" in err


def test_an_unknown_platform_or_no_build_tier_is_a_config_error_with_its_line(
    tmp_path: Path, index: str, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = project(tmp_path / "app", index, BASE, platforms='["linux-x86-64", "win_amd64", "windows-x86_64"]')
    pyproject = folder / "pyproject.toml"
    pyproject.write_text(
        pyproject.read_text().replace('format = "requirements"', 'format = "requirements"\nno-build = ["bse"]')
    )
    code, _, err = run_cli(capsys, "--project", str(folder), "check")
    assert code == 2
    assert "[tool.tierlock].platforms[0]: 'linux-x86-64' is not a platform" in err
    assert "(did you mean 'linux-x86_64'?)" in err
    assert "[tool.tierlock].platforms[2]: 'windows-x86_64' and 'win_amd64' are one platform (win_amd64)" in err
    assert "[tool.tierlock].no-build[0]: unknown tier 'bse'" in err


@pytest.mark.parametrize("fmt", ["requirements", "pylock", "uv.lock"])
def test_platforms_without_the_lock_of_a_no_build_tier_proves_nothing_and_its_fix_converges(
    fmt: str, tmp_path: Path, index: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # before: the tier was left out of the table, and `ok: every no-build tier installs from wheels on ...`, exit 0
    import os
    import subprocess

    from tests.support.env import bin_dir

    folder = project(tmp_path / "app", index, ["purepkg"], fmt="requirements" if fmt == "uv.lock" else fmt)
    if fmt == "uv.lock":
        pyproject = folder / "pyproject.toml"
        text = pyproject.read_text(encoding="utf-8").replace('format = "requirements"\n', 'lock = "uv.lock"\n')
        pyproject.write_text(text, encoding="utf-8")
    lockfile = {"requirements": "lockfiles/base.txt", "pylock": "lockfiles/pylock.base.toml"}.get(fmt, "uv.lock")
    tool = "uv" if fmt == "uv.lock" else "tierlock"
    fix = f"uv --project {folder} lock" if tool == "uv" else f"tierlock --project {folder} lock base native"
    code, out, _ = run_cli(capsys, "--project", str(folder), "platforms")
    assert code == 1, out
    assert "ok:" not in out
    assert out.splitlines() == [
        f"base (no-build): {lockfile}: no lockfile, so no wheel can be proven for linux-x86_64, linux-x86_64-musl, "
        f"macos-arm64, windows-x86_64; to fix: {fix}",
        "1 no-build tier(s) not locked, nothing proven: base",
    ]
    code, document = cli_json(capsys, "--project", str(folder), "platforms", "base")
    assert (code, document["ok"]) == (1, False)
    assert [(t["tier"], t["record"], t["proven"], t["command"]) for t in document["tiers"]] == [
        ("base", "no-lockfile", False, ["uv", "lock"] if fmt == "uv.lock" else ["tierlock", "lock", "base", "native"])
    ]

    if tool == "uv":  # run as printed, from outside the project (uv's own command)
        env = {**os.environ, "PATH": f"{bin_dir()}{os.pathsep}{os.environ['PATH']}"}
        done = subprocess.run(fix.split(), cwd=tmp_path, env=env, capture_output=True, text=True, check=False)
        assert done.returncode == 0, done.stderr
    else:
        code, _, err = run_cli(capsys, *fix.split()[1:])
        assert code == 0, err
    code, out, _ = run_cli(capsys, "--project", str(folder), "platforms", "base")
    assert code == 0, out
    assert out.splitlines()[-1] == (
        "ok: every no-build tier installs from wheels on linux-x86_64, linux-x86_64-musl, macos-arm64, "
        "windows-x86_64 (Python 3.11, 3.12)"
    )
