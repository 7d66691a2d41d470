"""``tierlock export`` prints the exact requirements of tiers and their layers (pip reads them back);
``tierlock matrix`` prints one CI job per tier combination worth testing, each with its install line."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.cli import cli_json, run_cli
from tests.support.env import clean_env
from tests.support.lockproj import write_project
from tests.support.pyproject import pyproject


def test_export_of_a_tier_prints_its_closure_with_the_layers_below(
    capsys: pytest.CaptureFixture[str], locked: Path
) -> None:
    code, out, _ = run_cli(capsys, "--project", str(locked), "export", "brain")
    assert code == 0
    assert out.splitlines() == [
        "# tierlock export: tiers base, brain from lockfiles/base.txt, lockfiles/brain.txt",
        "alpha==1.1",
        "beta==2.0",
        "gamma==1.0",
        'winonly==1.0 ; sys_platform == "win32"',
    ]


def test_export_without_a_tier_covers_every_tier(capsys: pytest.CaptureFixture[str], locked: Path) -> None:
    code, doc = cli_json(capsys, "--project", str(locked), "export")
    assert code == 0
    assert doc["ok"] is True
    assert doc["tiers"] == ["base", "brain", "tools"]
    assert {p["name"]: p["tiers"] for p in doc["packages"]} == {
        "alpha": ["base", "brain", "tools"],
        "beta": ["base", "brain", "tools"],
        "delta": ["tools"],
        "gamma": ["brain", "tools"],
        "winonly": ["base", "brain", "tools"],
    }


def test_export_with_hashes_is_a_file_pip_installs_with_require_hashes(
    capsys: pytest.CaptureFixture[str], locked: Path, wheels: Path, tmp_path: Path
) -> None:
    out_file = tmp_path / "requirements.txt"
    code, _, err = run_cli(capsys, "--project", str(locked), "export", "tools", "--hashes", "-o", str(out_file))
    assert code == 0
    assert "wrote 5 requirement(s) of base, brain, tools" in err
    text = out_file.read_text()
    assert "--hash=sha256:" in text
    report = tmp_path / "report.json"
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--dry-run",
            "--quiet",
            "--report",
            str(report),
            "--no-deps",
            "--require-hashes",
            "--no-index",
            "--find-links",
            str(wheels),
            "-r",
            str(out_file),
        ],
        env=clean_env(),
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    names = {i["metadata"]["name"] for i in json.loads(report.read_text())["install"]}
    assert names == {"alpha", "beta", "gamma", "delta"}


def test_export_of_a_tier_without_a_lockfile_names_the_lock_command(
    capsys: pytest.CaptureFixture[str], project: Path
) -> None:
    (project / "lockfiles" / "brain.txt").unlink()
    code, _, err = run_cli(capsys, "--project", str(project), "export", "brain")
    assert code == 1
    assert "tier brain has no lockfile yet (lockfiles/brain.txt)" in err
    assert f"to fix: tierlock --project {project} lock brain" in err


def test_export_refuses_two_tiers_that_pin_one_package_differently(
    capsys: pytest.CaptureFixture[str], project: Path
) -> None:
    brain = project / "lockfiles" / "brain.txt"
    brain.write_text(brain.read_text().replace("beta==2.0", "beta==1.0"))
    code, _, err = run_cli(capsys, "--project", str(project), "export")
    assert code in (1, 2)
    assert "beta" in err


def test_an_unknown_tier_to_export_is_a_usage_error_with_a_suggestion(
    capsys: pytest.CaptureFixture[str], locked: Path
) -> None:
    code, _, err = run_cli(capsys, "--project", str(locked), "export", "brian")
    assert code == 2
    assert "did you mean 'brain'?" in err


MATRIX_PYPROJECT = pyproject(
    name="m",
    version="0.1",
    requires_python=None,
    dependencies=["alpha"],
    extras={"brain": ["gamma"], "gpu": ["delta"], "docs": ["beta"]},
    tierlock={"ci-require": ["brain", "gpu"]},
    tiers={
        "brain": {"source": "extra:brain"},
        "gpu": {"source": "extra:gpu", "layered-on": "brain"},
        "docs": {"source": "extra:docs"},
    },
)


def test_matrix_has_base_alone_and_each_ci_required_tier_with_its_layers(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    folder = write_project(tmp_path / "m", MATRIX_PYPROJECT)
    code, out, _ = run_cli(capsys, "--project", str(folder), "matrix")
    assert code == 0
    assert len(out.splitlines()) == 1  # one line, for $GITHUB_OUTPUT
    assert json.loads(out) == {
        "include": [
            {
                "name": "base",
                "tier": "base",
                "tiers": "base",
                "install": "install-tier base",
                "admit": "tierlock admit --tier base",
            },
            {
                "name": "brain",
                "tier": "brain",
                "tiers": "base brain",
                "install": "install-tier brain",
                "admit": "tierlock admit --tier brain",
            },
            {
                "name": "gpu",
                "tier": "gpu",
                "tiers": "base brain gpu",
                "install": "install-tier gpu",
                "admit": "tierlock admit --tier gpu",
            },
        ]
    }


def test_matrix_for_gitlab_is_a_parallel_matrix_block(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    folder = write_project(tmp_path / "m", MATRIX_PYPROJECT)
    code, out, _ = run_cli(capsys, "--project", str(folder), "matrix", "--format", "gitlab")
    assert code == 0
    assert out.splitlines()[:6] == [
        "parallel:",
        "  matrix:",
        '    - TIER: "base"',
        '      TIERLOCK_TIERS: "base"',
        '      INSTALL: "install-tier base"',
        '      ADMIT: "tierlock admit --tier base"',
    ]
    assert out.count("- TIER:") == 3
    assert 'INSTALL: "install-tier gpu"' in out


def test_each_matrix_install_line_arms_its_tier_and_its_admit_line_passes(
    capsys: pytest.CaptureFixture[str], project: Path, wheels: Path, tmp_path: Path
) -> None:
    from tests.support.env import make_venv

    pyproject = project / "pyproject.toml"
    pyproject.write_text(
        pyproject.read_text().replace(
            'lock-dir = "lockfiles"', 'lock-dir = "lockfiles"\nci-require = ["brain", "tools"]'
        )
    )
    locked = project
    code, out, _ = run_cli(capsys, "--project", str(locked), "matrix")
    jobs = json.loads(out)["include"]
    assert [j["tier"] for j in jobs] == ["base", "brain", "tools"]
    job = jobs[1]
    python = make_venv(tmp_path / "venv")
    argv = [*job["install"].split()[1:], "--python", str(python), "--no-index", "--find-links", str(wheels)]
    code, out, err = run_cli(capsys, "--project", str(locked), "install", *argv)
    assert code == 0, err
    code, out, err = run_cli(capsys, "--project", str(locked), *job["admit"].split()[1:], "--python", str(python))
    assert code == 0, err + out
