"""``tierlock lock --dry-run`` shows the diff and writes nothing; ``-P`` names no lockfile holds are refused
with the closest name and the corrected command, which then works as printed."""

from __future__ import annotations

import hashlib
import shlex
from pathlib import Path

import pytest

from tests.support.cli import cli_json, run_cli
from tests.support.lockproj import offline


def _snapshot(folder: Path) -> dict[str, tuple[str, int]]:
    return {
        str(p.relative_to(folder)): (hashlib.sha256(p.read_bytes()).hexdigest(), p.stat().st_mtime_ns)
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def test_dry_run_shows_the_diff_a_changed_requirement_would_make_and_writes_nothing(
    capsys: pytest.CaptureFixture[str], project: Path, wheels: Path
) -> None:
    pyproject = project / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace('"alpha>=1"', '"alpha>=1,<1.1"'))
    before = _snapshot(project)
    code, out, err = run_cli(capsys, "--project", str(project), "lock", "base", "--dry-run", *offline(wheels))
    assert code == 0, err
    assert _snapshot(project) == before
    assert "base: lockfiles/base.txt: 3 package(s), would change" in out
    assert "--- a/lockfiles/base.txt" in out
    assert "+++ b/lockfiles/base.txt" in out
    assert "-alpha==1.1 \\" in out
    assert "+alpha==1.0 \\" in out
    assert "-# input: alpha>=1" in out
    assert out.rstrip().endswith("nothing was written")
    assert "tierlock-dry-run-" not in out + err  # the scratch copies never show


def test_dry_run_json_carries_each_diff_and_an_unchanged_lock_has_an_empty_one(
    capsys: pytest.CaptureFixture[str], project: Path, wheels: Path
) -> None:
    before = _snapshot(project)
    code, doc = cli_json(capsys, "--project", str(project), "lock", "--dry-run", *offline(wheels))
    assert code == 0
    assert doc["ok"] is True
    assert doc["dry_run"] is True
    assert {d["tier"]: d["diff"] for d in doc["locked"]} == {"base": "", "brain": "", "tools": ""}
    assert _snapshot(project) == before


def test_dry_run_of_a_tier_never_locked_shows_the_whole_file_it_would_create(
    capsys: pytest.CaptureFixture[str], project: Path, wheels: Path
) -> None:
    (project / "lockfiles" / "tools.txt").unlink()
    code, out, _ = run_cli(capsys, "--project", str(project), "lock", "tools", "--dry-run", *offline(wheels))
    assert code == 0
    assert "tools: lockfiles/tools.txt: " in out
    assert "would be created" in out
    assert "+delta==1.0 \\" in out
    assert not (project / "lockfiles" / "tools.txt").exists()


def test_an_upgrade_package_in_no_lockfile_is_a_usage_error_naming_the_closest_package(
    capsys: pytest.CaptureFixture[str], project: Path, wheels: Path
) -> None:
    before = _snapshot(project)
    argv = ["--project", str(project), "lock", "-P", "gamme", *offline(wheels)]
    code, _, err = run_cli(capsys, *argv)
    assert code == 2
    assert "--upgrade-package 'gamme': in no lockfile and no tier of this project (did you mean 'gamma'?)" in err
    assert _snapshot(project) == before
    remedy = err.split("to fix: ", 1)[1].strip()
    assert shlex.split(remedy) == ["tierlock", *[("gamma" if a == "gamme" else a) for a in argv]]
    code, out, err = run_cli(capsys, *shlex.split(remedy)[1:])  # the remedy, as printed
    assert code == 0, err
    assert "locked 3 tier(s)" in out


def test_an_upgrade_package_like_nothing_known_says_where_to_see_the_packages(
    capsys: pytest.CaptureFixture[str], project: Path, wheels: Path
) -> None:
    code, _, err = run_cli(capsys, "--project", str(project), "lock", "--upgrade-package", "zzzzzz")
    assert code == 2
    assert "'zzzzzz': in no lockfile and no tier of this project" in err
    assert "did you mean" not in err
    assert f"to fix: see the locked packages: tierlock --project {project} export" in err


def test_an_upgrade_package_in_a_lockfile_or_a_root_is_accepted(
    capsys: pytest.CaptureFixture[str], project: Path, wheels: Path
) -> None:
    code, _, err = run_cli(
        capsys, "--project", str(project), "-q", "lock", "-P", "Beta", "-P", "delta", *offline(wheels)
    )
    assert code == 0, err
