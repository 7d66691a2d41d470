"""The CLI frame: main(argv), global options, errors to exit codes, JSON output."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.env import bin_dir, clean_env
from tierlock import __version__
from tierlock.cli import main

REPO = Path(__file__).resolve().parents[1]
DEMO = REPO / "examples" / "demo"


def test_version_flag_prints_the_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["--version"])
    assert exc.value.code == 0
    assert capsys.readouterr().out.strip() == f"tierlock {__version__}"


def test_no_command_prints_help_and_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([]) == 2
    assert "COMMAND" in capsys.readouterr().err


def test_unknown_flag_is_a_usage_error_with_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["tiers", "--frobnicate"]) == 2
    err = capsys.readouterr().err
    assert "ERROR" in err
    assert "--frobnicate" in err


def test_tiers_json_lists_the_demo_tiers_with_their_roots(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--project", str(DEMO), "tiers", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    tiers = {t["name"]: t for t in doc["tiers"]}
    assert list(tiers) == ["base", "brain"]
    assert tiers["base"]["roots"] == ["tabulate>=0.9"]
    assert tiers["brain"]["roots"] == ["numpy>=2.0"]
    assert tiers["brain"]["layered_on"] == "base"
    assert tiers["brain"]["tests"] == ["tests/brain/**"]
    assert tiers["brain"]["ci_required"] is True
    assert tiers["brain"]["lockfile"] == "lockfiles/brain.txt"


def test_global_options_work_before_and_after_the_command(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--json", "--project", str(DEMO), "tiers"]) == 0
    first = json.loads(capsys.readouterr().out)
    assert main(["tiers", "--project", str(DEMO), "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == first


def test_tiers_plain_output_is_a_table(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--project", str(DEMO), "tiers"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0] == "demo-app: 2 tier(s) in pyproject.toml"
    assert any(line.split()[:3] == ["brain", "extra:brain", "1"] for line in out.splitlines())


def test_config_error_exits_2_and_lists_every_problem(project_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (project_dir / "pyproject.toml").write_text(
        '[project]\nname = "x"\n[tool.tierlock]\nformat = 1\nbakend = "uv"\n', encoding="utf-8"
    )
    assert main(["--project", str(project_dir), "tiers"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("ERROR ")
    assert "[tool.tierlock].format: must be one of requirements, pylock, not 1" in err
    assert "[tool.tierlock].bakend: unknown key 'bakend' (did you mean 'backend'?)" in err
    assert "to fix: edit pyproject.toml" in err


def test_json_mode_error_is_still_one_json_document(project_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (project_dir / "pyproject.toml").write_text("[project\n", encoding="utf-8")
    assert main(["--project", str(project_dir), "--json", "tiers"]) == 2
    doc = json.loads(capsys.readouterr().out)
    assert doc["ok"] is False
    assert doc["error"]["kind"] == "config"
    assert doc["error"]["problems"][0]["line"] == 1


def test_python_dash_m_tierlock_runs_the_cli() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "tierlock", "--project", str(DEMO), "tiers", "--json"],
        capture_output=True,
        text=True,
        env=clean_env(),
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert [t["name"] for t in json.loads(proc.stdout)["tiers"]] == ["base", "brain"]


def test_console_scripts_are_installed() -> None:
    for script in ("tierlock", "install-tier"):
        proc = subprocess.run(
            [str(bin_dir() / script), "--help"], capture_output=True, text=True, env=clean_env(), check=False
        )
        assert proc.returncode == 0, proc.stderr
        assert "usage:" in proc.stdout


def test_install_tier_usage_names_install_tier(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["install", "--help"], prog="install-tier")
    assert capsys.readouterr().out.startswith("usage: install-tier [-h]")
