"""The CLI frame: main(argv), global options, errors to exit codes, JSON output."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.env import bin_dir, clean_env
from tierlock import __version__
from tierlock.cli import build_parser, main

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "examples" / "demo"


def test_version_flag_prints_the_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["--version"])
    assert exc.value.code == 0
    assert capsys.readouterr().out.strip() == f"tierlock {__version__}"


def test_version_with_json_is_one_json_document(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["--json", "--version"])
    assert exc.value.code == 0
    assert json.loads(capsys.readouterr().out) == {"ok": True, "version": __version__}


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


@pytest.mark.parametrize(
    "argv",
    [["--json"], ["--json", "tiers", "--frobnicate"], ["--json", "nosuch"], ["tiers", "--json", "--project", "/"]],
    ids=["no command", "unknown flag", "unknown command", "no project"],
)
def test_json_mode_usage_errors_are_one_json_document_on_stdout(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 2
    doc = json.loads(capsys.readouterr().out)
    assert (doc["ok"], doc["error"]["exit_code"]) == (False, 2)


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


def _demo_commands() -> list[str]:
    """The command lines examples/demo/run_demo.py runs, as it shows them."""
    import ast

    names = {"PROJECT": ["--project", "examples/demo"], "PYTHON": [".demo/venv/bin/python"]}
    shown = []
    for node in ast.walk(ast.parse((DEMO / "run_demo.py").read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "run":
            words: list[str] = []
            for arg in node.args:
                if isinstance(arg, ast.Constant):
                    words.append(str(arg.value))
                else:
                    inner = arg.value if isinstance(arg, ast.Starred) else arg
                    assert isinstance(inner, ast.Name)
                    words += names[inner.id]
            env = next((k.value for k in node.keywords if k.arg == "env"), None)
            ci = isinstance(env, ast.Name) and env.id == "CI"
            shown.append(("CI=true " if ci else "") + " ".join(words))
    return shown


def test_the_demo_page_walks_through_every_command_the_demo_runs() -> None:
    tutorial = (REPO / "docs" / "demo.md").read_text(encoding="utf-8")
    shown = {line[2:].split("  #")[0].strip() for line in tutorial.splitlines() if line.startswith("$ ")}
    commands = _demo_commands()
    assert len(commands) >= 10
    assert [c for c in commands if c not in shown] == []
    parser = build_parser()
    for line in sorted(shown):
        words = line.split()
        if words[0] in ("tierlock", "install-tier"):
            argv = words[1:] if words[0] == "tierlock" else ["install", *words[1:]]
            parser.parse_args(argv)  # every command the tutorial shows is a valid command line


def test_an_interrupted_json_run_still_prints_one_json_document(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from tierlock.commands import tiers

    def interrupted(*_: object) -> int:
        raise KeyboardInterrupt

    monkeypatch.setattr(tiers, "run", interrupted)
    assert main(["--project", str(DEMO), "tiers", "--json"]) == 130
    doc = json.loads(capsys.readouterr().out)
    assert doc["ok"] is False
    assert "interrupted" in doc["error"]["message"]
