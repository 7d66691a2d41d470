"""`tierlock validate`, `tierlock schema` and `tierlock setup-command` through the real CLI."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tierlock.cli import main
from tierlock.validators import discover
from tierlock.validators.renderers import github_lines
from tierlock.validators.schema import schema, schema_text
from tierlock.validators.setup_command import LOCKFILE_COMMANDS

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "examples" / "demo"
BROKEN = {
    "schemaVersion": 1,
    "verification": [
        {"key": "unit", "command": "pytest", "timeoutMs": 0},
        {"key": "unit", "command": "pytest", "cwd": "../x"},
    ],
}


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.fixture
def broken(tmp_path: Path) -> Path:
    path = tmp_path / "tierlock.runtime.json"
    path.write_text(json.dumps(BROKEN, indent=2), encoding="utf-8")
    return path


def test_the_demo_config_is_valid_and_its_broken_copy_is_not(capsys: pytest.CaptureFixture[str], not_ci: None) -> None:
    code, out, _ = run(capsys, "validate", str(DEMO / "tierlock.runtime.json"))
    assert code == 0
    assert "valid (3 command(s) checked)" in out
    code, out, _ = run(capsys, "validate", str(DEMO / "broken.runtime.json"))
    assert code == 1
    for rule in ("RC008", "RC009", "RC010", "RC011", "RC012", "RC014", "RC015", "RC016", "RC017"):
        assert rule in out
    assert "hunter2" not in out
    assert "do-not-save-me" not in out


def test_text_output_has_file_line_column_rule_and_path(
    capsys: pytest.CaptureFixture[str], broken: Path, not_ci: None
) -> None:
    code, out, _ = run(capsys, "validate", str(broken), "--no-checkout")
    assert code == 1
    lines = out.splitlines()
    assert lines[0].endswith(
        "verification[0].timeoutMs: must be a positive integer no larger than 2^53-1 (9007199254740991)"
    )
    assert ":7:20 RC008 " in lines[0]
    assert lines[-1].endswith("3 error(s) in 2 command(s) checked")


def test_json_output_is_one_document_with_pointers(capsys: pytest.CaptureFixture[str], broken: Path) -> None:
    code, out, _ = run(capsys, "--json", "validate", str(broken), "--no-checkout")
    assert code == 1
    document = json.loads(out)
    assert document["error_count"] == 3
    assert document["commands_checked"] == 2
    assert [e["pointer"] for e in document["errors"]] == [
        "/verification/0/timeoutMs",
        "/verification/1/key",
        "/verification/1/cwd",
    ]
    assert "config" not in document


def test_github_output_is_workflow_commands_with_escaping(capsys: pytest.CaptureFixture[str], broken: Path) -> None:
    code, out, _ = run(capsys, "validate", str(broken), "--no-checkout", "--format", "github")
    assert code == 1
    first = out.splitlines()[0]
    assert first.startswith("::error file=")
    assert ",line=7,col=20,title=tierlock RC008 verification[0].timeoutMs::" in first


def test_github_escaping_of_data_and_properties() -> None:
    from tierlock.validators.results import ValidationError, ValidationResult

    error = ValidationError("RC001", ("a:b,c",), "50% wrong\r\nnext", file="dir,x/c:f.json", line=1, column=2)
    [line, _] = github_lines(ValidationResult("dir,x/c:f.json", [error], None))
    assert line.startswith('::error file=dir%2Cx/c%3Af.json,line=1,col=2,title=tierlock RC001 ["a%3Ab%2Cc"]::')
    assert line.endswith('::["a:b,c"]: 50%25 wrong%0D%0Anext')


def test_sarif_output_has_stable_rule_ids_and_regions(capsys: pytest.CaptureFixture[str], broken: Path) -> None:
    code, out, _ = run(capsys, "validate", str(broken), "--no-checkout", "--format", "sarif")
    assert code == 1
    sarif = json.loads(out)
    assert sarif["version"] == "2.1.0"
    run_ = sarif["runs"][0]
    rules = run_["tool"]["driver"]["rules"]
    assert [r["id"] for r in rules][:3] == ["RC000", "RC001", "RC002"]
    first = run_["results"][0]
    assert first["ruleId"] == "RC008"
    assert rules[first["ruleIndex"]]["id"] == "RC008"
    assert first["locations"][0]["physicalLocation"]["region"] == {"startLine": 7, "startColumn": 20}
    duplicate = run_["results"][1]
    assert duplicate["relatedLocations"][0]["physicalLocation"]["region"] == {"startLine": 5, "startColumn": 14}


def test_an_unparseable_file_exits_2_in_every_format(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "c.json"
    path.write_text('{"schemaVersion": 1,\n  "verification": [,]}')
    for fmt in ("text", "json", "github", "sarif"):
        code, out, _ = run(capsys, "validate", str(path), "--format", fmt)
        assert code == 2
        assert "RC000" in out
    code, out, _ = run(capsys, "validate", str(path), "--format", "json")
    assert json.loads(out)["errors"][0]["line"] == 2


def test_a_missing_file_or_config_is_a_usage_error(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    code, _, err = run(capsys, "validate", str(tmp_path / "nope.json"))
    assert code == 2
    assert "does not exist" in err
    monkeypatch.chdir(tmp_path)
    code, _, err = run(capsys, "validate")
    assert code == 2
    assert "no runtime config found" in err


def test_validate_discovers_the_config_of_the_project(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "p"\nversion = "1"\n[tool.tierlock.runtime]\nschemaVersion = 1\nverification = []\n'
    )
    (tmp_path / "sub").mkdir()
    monkeypatch.chdir(tmp_path / "sub")
    assert discover(tmp_path) == tmp_path / "pyproject.toml"
    code, out, _ = run(capsys, "validate")
    assert code == 0
    assert "pyproject.toml: valid" in out
    (tmp_path / "tierlock.runtime.toml").write_text("schemaVersion = 1\nverification = []\n")
    assert discover(tmp_path) == tmp_path / "tierlock.runtime.toml"
    (tmp_path / "tierlock.runtime.json").write_text('{"schemaVersion": 1, "verification": []}')
    assert discover(tmp_path) == tmp_path / "tierlock.runtime.json"


@pytest.mark.parametrize("fmt", ["text", "github"])
def test_json_with_a_line_format_is_a_usage_error_reported_as_one_json_document(
    capsys: pytest.CaptureFixture[str], broken: Path, fmt: str
) -> None:
    code, out, _ = run(capsys, "--json", "validate", str(broken), "--format", fmt)
    document = json.loads(out)
    assert (code, document["ok"], document["error"]["kind"]) == (2, False, "usage")


def test_fail_fast_reports_one_error(capsys: pytest.CaptureFixture[str], broken: Path) -> None:
    code, out, _ = run(capsys, "--json", "validate", str(broken), "--no-checkout", "--fail-fast")
    assert code == 1
    assert json.loads(out)["error_count"] == 1


@pytest.mark.tier("cli")
def test_schema_prints_the_shipped_draft_2020_12_schema(capsys: pytest.CaptureFixture[str]) -> None:
    from jsonschema import Draft202012Validator

    code, out, _ = run(capsys, "schema")
    assert code == 0
    printed = json.loads(out)
    assert printed == schema() == json.loads(schema_text())
    Draft202012Validator.check_schema(printed)
    assert "uniqueItems" not in out


def test_the_published_schema_in_the_docs_is_the_shipped_one() -> None:
    published = json.loads((REPO / "docs" / "reference" / "runtime-config.schema.json").read_text())
    assert published == schema()


# -- setup-command ---------------------------------------------------------


def setup(capsys: pytest.CaptureFixture[str], folder: Path) -> tuple[int, dict[str, Any]]:
    code, out, _ = run(capsys, "--json", "setup-command", str(folder))
    document: dict[str, Any] = json.loads(out)
    return code, document


@pytest.mark.parametrize(("lockfile", "line"), [(k, " ".join(v)) for k, v in LOCKFILE_COMMANDS.items()])
def test_setup_command_follows_the_one_lockfile_at_the_root(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, lockfile: str, line: str
) -> None:
    (tmp_path / lockfile).write_text("")
    code, document = setup(capsys, tmp_path)
    assert code == 0
    assert document["source"] == "lockfile"
    assert [c["line"] for c in document["commands"]] == [line]


def test_setup_command_proposes_install_tier_base_for_tierlock_lockfiles(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "p"\nversion = "1"\n[tool.tierlock]\n')
    (tmp_path / "lockfiles").mkdir()
    (tmp_path / "lockfiles" / "base.txt").write_text("")
    code, document = setup(capsys, tmp_path)
    assert (code, [c["line"] for c in document["commands"]]) == (0, ["install-tier base"])


def test_setup_command_proposes_nothing_for_several_lockfiles_or_none_or_yarn(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, document = setup(capsys, tmp_path)
    assert (code, document["commands"], document["source"]) == (1, [], "none")
    assert "no recognised lockfile" in document["reason"]
    (tmp_path / "yarn.lock").write_text("")
    code, document = setup(capsys, tmp_path)
    assert code == 1
    assert "Yarn needs an explicit setup" in document["reason"]
    (tmp_path / "uv.lock").write_text("")
    code, document = setup(capsys, tmp_path)
    assert code == 1
    assert "several lockfiles" in document["reason"]


def test_an_explicit_setup_in_the_runtime_config_wins(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    (tmp_path / "uv.lock").write_text("")
    config = {
        "schemaVersion": 1,
        "setup": [{"key": "arm", "command": "uv", "args": ["sync", "--extra", "brain"]}],
        "verification": [],
    }
    (tmp_path / "tierlock.runtime.json").write_text(json.dumps(config))
    code, document = setup(capsys, tmp_path)
    assert (code, document["source"]) == (0, "runtime-config")
    assert [c["line"] for c in document["commands"]] == ["uv sync --extra brain"]
    code, out, _ = run(capsys, "setup-command", str(tmp_path))
    assert out == "uv sync --extra brain\n"


def test_setup_command_refuses_an_invalid_runtime_config(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    (tmp_path / "tierlock.runtime.json").write_text('{"schemaVersion": 1, "verification": [], "setup": [{}]}')
    code, _, err = run(capsys, "setup-command", str(tmp_path))
    assert code == 1
    assert "tierlock validate" in err
