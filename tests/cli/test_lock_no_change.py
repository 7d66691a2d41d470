"""A ``tierlock lock`` that changes nothing: one resolver run per tier, the same bytes as a full lock writes.

Real uv against the lock tests' local wheel folder. The artifact record of an
unchanged body is kept from the record already written when that record names
a file for every hash of every entry (what listing the files again would
find); anything less and the files are listed again.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest

from tests.support.cli import run_cli
from tests.support.env import clean_env
from tests.support.importtime import loaded
from tests.support.lockproj import lock_offline, offline


def snapshot(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted((folder / "lockfiles").iterdir())}


def resolver_runs(started: Sequence[tuple[str, ...]]) -> list[str]:
    """The tier each ``uv pip compile`` started for (its input file's stem), listings marked."""
    return [
        Path(argv[3]).name.split(".")[0] + (" (listing)" if "--no-deps" in argv else "")
        for argv in started
        if argv[1:3] == ("pip", "compile")
    ]


def relock(capsys: pytest.CaptureFixture[str], folder: Path, wheels: Path, *more: str) -> None:
    code, out, err = run_cli(capsys, "--project", str(folder), "-q", "lock", "--backend", "uv", *offline(wheels), *more)
    assert code == 0, out + err


def test_a_no_change_lock_starts_the_resolver_once_per_tier_and_writes_the_same_bytes(
    tmp_path: Path, wheels: Path, capsys: pytest.CaptureFixture[str], started: list[tuple[str, ...]]
) -> None:
    folder = lock_offline(tmp_path / "proj", wheels)
    before = snapshot(folder)
    started.clear()
    relock(capsys, folder, wheels)
    assert sorted(resolver_runs(started)) == ["base", "brain", "tools"]
    assert snapshot(folder) == before


def test_an_upgrade_that_changes_nothing_also_starts_the_resolver_once(
    tmp_path: Path, wheels: Path, capsys: pytest.CaptureFixture[str], started: list[tuple[str, ...]]
) -> None:
    folder = lock_offline(tmp_path / "proj", wheels)
    before = snapshot(folder)
    started.clear()
    relock(capsys, folder, wheels, "base", "--upgrade")
    assert resolver_runs(started) == ["base"]
    assert snapshot(folder) == before


def test_a_kept_record_is_byte_for_byte_the_record_a_full_listing_writes(
    tmp_path: Path, wheels: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = lock_offline(tmp_path / "proj", wheels)
    relock(capsys, folder, wheels)
    fresh = tmp_path / "fresh"
    shutil.copytree(folder, fresh)
    for record in (fresh / "lockfiles").glob("*.artifacts.toml"):
        record.unlink()
    relock(capsys, fresh, wheels)
    assert snapshot(fresh) == snapshot(folder)


@pytest.mark.parametrize(
    "damage",
    [
        pytest.param(lambda text: text.replace("\n[[packages]]", "\n[[garbage]]", 1), id="a package dropped"),
        pytest.param(
            lambda text: "".join(line for line in text.splitlines(keepends=True) if ".whl" not in line).replace(
                "wheels = [\n]", "wheels = []"
            ),
            id="files dropped",
        ),
        pytest.param(lambda text: text.replace('body-digest = "sha256:', 'body-digest = "sha256:0'), id="stale"),
        pytest.param(lambda text: text.replace("artifacts-version = 1", "artifacts-version = ["), id="unreadable"),
        pytest.param(None, id="missing"),
    ],
)
def test_a_record_that_does_not_cover_every_hash_of_an_unchanged_lock_is_listed_again(
    tmp_path: Path,
    wheels: Path,
    capsys: pytest.CaptureFixture[str],
    started: list[tuple[str, ...]],
    damage: object,
) -> None:
    folder = lock_offline(tmp_path / "proj", wheels)
    before = snapshot(folder)
    record = folder / "lockfiles" / "base.artifacts.toml"
    if callable(damage):
        damaged = damage(record.read_text(encoding="utf-8"))
        assert damaged != record.read_text(encoding="utf-8")
        record.write_text(damaged, encoding="utf-8")
    else:
        record.unlink()
    started.clear()
    relock(capsys, folder, wheels, "base")
    assert resolver_runs(started) == ["base", "base (listing)"]
    assert snapshot(folder) == before


def test_a_folder_named_twice_records_each_file_once_and_a_relock_keeps_the_record(
    tmp_path: Path, wheels: Path, capsys: pytest.CaptureFixture[str], started: list[tuple[str, ...]]
) -> None:
    folder = lock_offline(tmp_path / "proj", wheels)
    before = snapshot(folder)
    started.clear()
    relock(capsys, folder, wheels, "base", "--find-links", str(wheels))
    assert resolver_runs(started) == ["base"]
    assert snapshot(folder) == before
    (folder / "lockfiles" / "base.artifacts.toml").unlink()
    relock(capsys, folder, wheels, "base", "--find-links", str(wheels))
    assert snapshot(folder) == before  # listed from both, each file once


@pytest.fixture(scope="module")
def old_wheels(tmp_path_factory: pytest.TempPathFactory, wheels: Path) -> Path:
    """Only the oldest version of each package."""
    folder = tmp_path_factory.mktemp("old-wheels")
    for wheel in wheels.glob("*-1.0-*.whl"):
        shutil.copy(wheel, folder)
    return folder


def test_a_tier_compiled_against_a_lower_lockfile_that_then_changes_is_compiled_again_as_one_by_one_would(
    tmp_path: Path,
    wheels: Path,
    old_wheels: Path,
    capsys: pytest.CaptureFixture[str],
    started: list[tuple[str, ...]],
) -> None:
    folder = lock_offline(tmp_path / "proj", old_wheels)
    one_by_one = tmp_path / "one-by-one"
    shutil.copytree(folder, one_by_one)
    started.clear()
    relock(capsys, folder, wheels, "--upgrade")
    assert sorted(r for r in resolver_runs(started) if "listing" not in r) == [
        "base",
        "brain",
        "brain",
        "tools",
        "tools",
    ]  # brain and tools first against the old lockfiles below them, then against the new ones
    for tier in ("base", "brain", "tools"):
        relock(capsys, one_by_one, wheels, tier, "--upgrade")
    assert snapshot(folder) == snapshot(one_by_one)
    assert "beta==2.0" in (folder / "lockfiles" / "tools.txt").read_text(encoding="utf-8")
    assert run_cli(capsys, "--project", str(folder), "check")[0] == 0


def test_a_tier_compiled_against_a_lower_lockfile_whose_lock_then_fails_is_not_written(
    tmp_path: Path, wheels: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = lock_offline(tmp_path / "proj", wheels)
    before = snapshot(folder)
    pyproject = folder / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace('"alpha>=1"', '"alpha>=1", "no-such-package>=1"'))
    code, out, err = run_cli(capsys, "--project", str(folder), "lock", "--backend", "uv", *offline(wheels))
    assert code == 3, out + err
    assert "brain: not locked: the base lock it is layered on failed" in err
    assert "tools: not locked: the base lock it is layered on failed" in err
    assert snapshot(folder) == before


def test_a_no_change_lock_leaves_every_file_untouched(
    tmp_path: Path, wheels: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = lock_offline(tmp_path / "proj", wheels)
    files = sorted((folder / "lockfiles").iterdir())
    before = [(p.name, p.stat().st_ino, p.stat().st_mtime_ns) for p in files]
    relock(capsys, folder, wheels)
    assert [(p.name, p.stat().st_ino, p.stat().st_mtime_ns) for p in files] == before
    assert sorted((folder / "lockfiles").iterdir()) == files  # and no temporary file left beside them


def test_a_second_lock_uses_the_compiles_it_started_before_reading_the_project(
    tmp_path: Path, wheels: Path, capsys: pytest.CaptureFixture[str], started: list[tuple[str, ...]]
) -> None:
    folder = lock_offline(tmp_path / "proj", wheels)
    relock(capsys, folder, wheels)  # this command line's first run: its compiles are remembered
    before = snapshot(folder)
    started.clear()
    argv = ["--project", str(folder), "-v", "lock", "--backend", "uv", *offline(wheels)]
    code, out, err = run_cli(capsys, *argv)
    assert code == 0, out + err
    assert sorted(resolver_runs(started)) == ["base", "brain", "tools"]
    assert err.count("(started before the project was read)") == 3
    assert snapshot(folder) == before


def test_a_compile_started_early_for_inputs_that_changed_since_is_not_used(
    tmp_path: Path,
    wheels: Path,
    capsys: pytest.CaptureFixture[str],
    started: list[tuple[str, ...]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    folder = lock_offline(tmp_path / "proj", wheels)
    relock(capsys, folder, wheels)
    pyproject = folder / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace('"alpha>=1"', '"alpha>=1", "delta<2"'))
    fresh = tmp_path / "fresh"
    shutil.copytree(folder, fresh)
    started.clear()
    relock(capsys, folder, wheels)
    assert sorted(r for r in resolver_runs(started) if "listing" not in r).count("base") == 2  # early, then anew
    assert "delta==1.0" in (folder / "lockfiles" / "base.txt").read_text(encoding="utf-8")
    monkeypatch.setenv("TIERLOCK_CACHE_DIR", "")  # nothing remembered: locked from scratch
    relock(capsys, fresh, wheels)
    assert snapshot(folder) == snapshot(fresh)


def test_a_compile_started_early_keeps_the_pins_of_the_lockfile_as_it_is_now_not_as_remembered(
    tmp_path: Path,
    wheels: Path,
    old_wheels: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    folder = lock_offline(tmp_path / "proj", old_wheels)
    relock(capsys, folder, wheels)  # remembered: the compiles over the old pins
    assert "beta==1.0" in (folder / "lockfiles" / "base.txt").read_text(encoding="utf-8")
    relock(capsys, folder, wheels, "base", "-P", "beta")  # another command line: base.txt pins beta 2.0 now
    fresh = tmp_path / "fresh"
    shutil.copytree(folder, fresh)
    relock(capsys, folder, wheels)  # the remembered command line, over today's lockfiles
    assert "beta==2.0" in (folder / "lockfiles" / "base.txt").read_text(encoding="utf-8")
    monkeypatch.setenv("TIERLOCK_CACHE_DIR", "")
    relock(capsys, fresh, wheels)
    assert snapshot(folder) == snapshot(fresh)


def test_a_lock_imports_no_rich_tomlkit_jsonschema_pip_or_census_whether_or_not_it_writes(
    tmp_path: Path, wheels: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = lock_offline(tmp_path / "proj", wheels)
    argv = ["--project", str(folder), "-q", "lock", "--backend", "uv", *offline(wheels)]
    entry = f"import sys; sys.argv[1:] = {argv!r}; from tierlock._entry import tierlock; tierlock()"
    env = clean_env({"TIERLOCK_CACHE_DIR": str(tmp_path / "cache")})
    for run in ("remembers its compiles", "starts them early", "writes", "changes nothing"):
        if run == "writes":
            (folder / "lockfiles" / "brain.txt").unlink()
        proc = subprocess.run(
            [sys.executable, "-X", "importtime", "-c", entry], capture_output=True, text=True, env=env, check=False
        )
        assert proc.returncode == 0, proc.stderr
        modules = loaded(proc.stderr)
        heavy = {m for m in modules if m.split(".")[0] in {"rich", "tomlkit", "jsonschema", "pip", "uv"}}
        assert heavy == set(), run
        assert not {m for m in modules if m.startswith(("tierlock.census", "tierlock.installer"))}, run
