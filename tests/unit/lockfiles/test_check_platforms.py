"""``tierlock check`` with declared platforms: no-build tiers proven from the record, or a finding with its gap."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.support.lockproj import build_wheel_dir, lock_offline
from tierlock.lockfiles.check import check
from tierlock.tiers import load_project


@pytest.fixture(scope="session")
def locked(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sample project locked once with uv; every test works on a copy."""
    wheels = build_wheel_dir(tmp_path_factory.mktemp("platforms-wheels"))
    return lock_offline(tmp_path_factory.mktemp("platforms-locked") / "proj", wheels)


@pytest.fixture
def project(tmp_path: Path, locked: Path) -> Path:
    return Path(shutil.copytree(locked, tmp_path / "proj"))


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text, f"{old!r} not in {path}"
    path.write_text(text.replace(old, new, 1))


def declare_platforms(project: Path, platforms: str = '["linux-x86_64", "windows-x86_64"]') -> None:
    edit(project / "pyproject.toml", 'lock-dir = "lockfiles"', f'lock-dir = "lockfiles"\nplatforms = {platforms}')


def test_with_platforms_every_no_build_tier_is_proven_and_the_report_says_where(project: Path) -> None:
    declare_platforms(project)
    report = check(load_project(project))
    assert report.ok
    assert report.platforms == ("linux-x86_64", "windows-x86_64")
    document = report.to_dict()
    assert document["platforms"] == ["linux-x86_64", "windows-x86_64"]
    assert [(c["tier"], c["no_build"], c["proven"]) for c in document["coverage"]] == [
        ("base", True, True),
        ("brain", False, True),
        ("tools", False, True),
    ]
    # platforms and no-build change no lock: declaring them is no drift
    assert all(f.kind not in ("input-drift", "hand-edit") for f in report.findings)


def test_a_package_without_a_wheel_on_a_declared_platform_is_a_no_wheel_finding_with_its_gap(project: Path) -> None:
    declare_platforms(project)
    edit(project / "lockfiles/base.artifacts.toml", "beta-2.0-py3-none-any.whl", "beta-2.0-cp311-abi3-win_amd64.whl")
    report = check(load_project(project))
    (finding,) = report.findings
    assert (finding.tier, finding.kind, finding.file) == ("base", "no-wheel", "lockfiles/base.txt")
    assert finding.line is not None
    assert "beta 2.0 has no wheel for linux-x86_64 (manylinux_2_28_x86_64) on Python 3.11-3.14" in finding.detail
    assert finding.remedy.endswith("; then run: tierlock lock base brain tools")
    shown = finding.to_dict()
    assert shown["gap"]["package"] == "beta"
    assert shown["gap"]["nearest_tags"] == ["cp311-abi3-win_amd64"]  # Windows has it, for every Python
    assert shown["gap"]["command"] == ["tierlock", "lock", "base", "brain", "tools"]
    assert report.to_dict()["by_kind"] == {"no-wheel": 1}
    # brain and tools may build: the same gap there is a note, not a finding
    assert [c.tier for c in report.coverage if c.gaps] == ["base"]


def test_without_platforms_nothing_is_proven_and_no_finding_carries_a_gap(project: Path) -> None:
    (project / "lockfiles/base.txt").unlink()
    report = check(load_project(project))
    document = report.to_dict()
    assert (document["platforms"], document["coverage"]) == ([], [])
    assert "gap" not in document["findings"][0]


def test_a_no_build_tier_without_its_record_is_one_no_artifacts_finding(project: Path) -> None:
    declare_platforms(project, '["linux-x86_64"]')
    (project / "lockfiles/base.artifacts.toml").unlink()
    report = check(load_project(project))
    assert [(f.tier, f.kind, f.remedy) for f in report.findings] == [("base", "no-artifacts", "tierlock lock base")]
    assert "gap" not in report.findings[0].to_dict()
