"""Positions in JSON and TOML input, duplicate keys, strict numbers and text, limits, unreadable files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tierlock.validators import jsonpos, tomlpos, validate_runtime_config
from tierlock.validators.results import ValidationError


def located(errors: list[ValidationError]) -> set[tuple[str, str, int | None, int | None]]:
    return {(e.rule, e.where, e.line, e.column) for e in errors}


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


JSON_DOC = """{
  "schemaVersion": 1,
  "verification": [
    {"key": "unit", "command": "pytest"},
    {
      "key": "unit",
      "command": "pytest",
      "timeoutMs": 0,
      "env": {"API_TOKEN": "x"}
    }
  ],
  "extra": true
}
"""


def test_json_errors_carry_the_line_and_column_of_the_value_or_key(tmp_path: Path) -> None:
    result = validate_runtime_config(write(tmp_path, "c.json", JSON_DOC), checkout=False)
    assert located(result.errors) == {
        ("RC011", "verification[1].key", 6, 14),
        ("RC008", "verification[1].timeoutMs", 8, 20),
        ("RC009", "verification[1].env.API_TOKEN", 9, 15),
        ("RC001", "extra", 12, 3),
    }
    assert [e.line for e in result.errors] == sorted(e.line or 0 for e in result.errors)
    assert result.errors[0].related is not None
    assert (result.errors[0].related.line, result.errors[0].related.column) == (4, 13)


def test_a_duplicate_json_key_is_reported_with_both_positions(tmp_path: Path) -> None:
    text = '{"schemaVersion": 1,\n "verification": [],\n "schemaVersion": 1}\n'
    result = validate_runtime_config(write(tmp_path, "c.json", text), checkout=False)
    [error] = result.errors
    assert (error.rule, error.where, error.line, error.column) == ("RC012", "schemaVersion", 3, 2)
    assert error.related is not None
    assert (error.related.line, error.related.column) == (1, 2)
    assert "first at line 1, column 2" in error.message


def test_a_duplicate_key_inside_an_env_value_is_reported_without_the_key(tmp_path: Path) -> None:
    text = '{"schemaVersion": 1, "verification": [{"command": "x", "env": {"A": {"hidden": 1, "hidden": 2}}}]}'
    result = validate_runtime_config(write(tmp_path, "c.json", text), checkout=False)
    dup = next(e for e in result.errors if e.rule == "RC012")
    assert dup.where == "verification[0].env.A"
    assert "hidden" not in dup.message


@pytest.mark.parametrize(
    ("text", "rule", "line", "column"),
    [
        ('{"schemaVersion": NaN}', "RC013", 1, 19),
        ('{"a": [1,\n  -Infinity]}', "RC013", 2, 3),
        ('{"a": 1e400}', "RC013", 1, 7),
        ('{"a": "\\ud800 alone"}', "RC013", 1, 7),
        ('{"a": "\\udc00\\ud800"}', "RC013", 1, 7),
        ('{"a": 1,}', "RC000", 1, 9),
        ('{"a" 1}', "RC000", 1, 6),
        ('{"a": tru}', "RC000", 1, 7),
        ('{"a": "x"} {}', "RC000", 1, 12),
        ('{"a": "line\nbreak"}', "RC000", 1, 7),
        ("", "RC000", 1, 1),
        ("[" * 65 + "]" * 65, "RC013", 1, 65),
    ],
)
def test_text_that_is_not_a_strict_json_document_exits_2_with_a_position(
    tmp_path: Path, text: str, rule: str, line: int, column: int
) -> None:
    result = validate_runtime_config(write(tmp_path, "c.json", text), checkout=False)
    assert not result.parsed
    assert result.exit_code == 2
    assert [(e.rule, e.line, e.column) for e in result.errors] == [(rule, line, column)]


def test_a_valid_surrogate_pair_is_accepted() -> None:
    assert jsonpos.parse('"\\ud83d\\ude00"').value == "\U0001f600"
    assert jsonpos.load('{"a": "\\ud83d\\ude00"}').value == {"a": "\U0001f600"}


def test_deep_nesting_far_beyond_the_recursion_limit_is_an_error_not_a_crash() -> None:
    with pytest.raises(jsonpos.JsonParseError) as info:
        jsonpos.load("[" * 100_000 + "]" * 100_000)
    assert info.value.rule == "RC013"


def test_a_document_over_the_size_limit_is_refused() -> None:
    with pytest.raises(jsonpos.JsonParseError) as info:
        jsonpos.load("[" + "1," * 50 + "1]", max_bytes=64)
    assert "larger than 64" in info.value.message


def test_the_fast_and_the_strict_parser_agree() -> None:
    text = json.dumps({"a": [1, 2.5, {"b": None, "c": [True, False]}], "d": 'é\\"\n', "e": -0.0})
    assert jsonpos.load(text).value == jsonpos.parse(text).value == json.loads(text)


def test_a_utf8_bom_is_accepted_and_positions_stay_right(tmp_path: Path) -> None:
    path = tmp_path / "c.json"
    path.write_text('\ufeff{"schemaVersion": 1, "verification": [], "x": 1}', encoding="utf-8")
    [error] = validate_runtime_config(path, checkout=False).errors
    assert (error.rule, error.line, error.column) == ("RC001", 1, 42)


def test_a_file_that_is_not_utf8_exits_2_with_its_position(tmp_path: Path) -> None:
    path = tmp_path / "c.json"
    path.write_bytes(b'{\n  "a": "\xff"}')
    result = validate_runtime_config(path, checkout=False)
    assert result.exit_code == 2
    assert (result.errors[0].line, result.errors[0].column) == (2, 9)


TOML_DOC = """schemaVersion = 1

[[setup]]
key = "arm"
command = "install-tier"
args = ["brain"]

[[verification]]
key = "unit"
command = "pytest"
timeoutMs = 0

[[verification]]
key = "lint"
command = "ruff"
cwd = '/abs'
env = { PYTHONHASHSEED = "0", DB_PASSWORD = "x" }
policy.reuse = "always"
"""


def test_toml_errors_carry_the_line_and_column(tmp_path: Path) -> None:
    result = validate_runtime_config(write(tmp_path, "runtime.toml", TOML_DOC), checkout=False)
    assert located(result.errors) == {
        ("RC008", "verification[0].timeoutMs", 11, 13),
        ("RC015", "verification[1].cwd", 16, 7),
        ("RC009", "verification[1].env.DB_PASSWORD", 17, 31),
        ("RC010", "verification[1].policy.reuse", 18, 16),
    }


def test_the_runtime_table_of_pyproject_is_validated_with_pyproject_positions(tmp_path: Path) -> None:
    text = (
        '[project]\nname = "p"\nversion = "1"\n\n'
        "[tool.tierlock.runtime]\nschemaVersion = 1\n\n"
        '[[tool.tierlock.runtime.verification]]\nkey = "unit"\ncommand = ""\n'
    )
    result = validate_runtime_config(write(tmp_path, "pyproject.toml", text), checkout=False)
    assert located(result.errors) == {("RC005", "verification[0].command", 10, 11)}


def test_toml_syntax_errors_exit_2_with_a_position(tmp_path: Path) -> None:
    result = validate_runtime_config(write(tmp_path, "r.toml", "schemaVersion = 1\nverification = [\n"), checkout=False)
    assert result.exit_code == 2
    assert result.errors[0].rule == "RC000"
    assert result.errors[0].line is not None


def test_toml_nan_and_inf_are_refused_like_json(tmp_path: Path) -> None:
    text = "schemaVersion = 1\nverification = []\n[x-meta]\nratio = nan\n"
    result = validate_runtime_config(write(tmp_path, "r.toml", text), checkout=False)
    assert result.exit_code == 2
    assert (result.errors[0].rule, result.errors[0].line) == ("RC013", 4)


def test_toml_positions_follow_headers_dotted_keys_inline_tables_and_strings() -> None:
    text = (
        'a = """multi\n"line" \\""" string"""\n'
        "b = [1, # comment\n  {c = 'x', d.e = 2}]\n"
        '[t."quoted.key"]\nf = 1979-05-27T07:32:00Z\n'
        "[[arr]]\ng = 1\n[[arr]]\ng = 2\n[arr.sub]\nh = true\n"
    )
    positions = tomlpos.locate(text)
    assert positions.locate(("b", 1, "d", "e")) == (4, 19)
    assert positions.locate(("t", "quoted.key", "f")) == (6, 5)
    assert positions.locate(("arr", 1, "g")) == (10, 5)
    assert positions.locate(("arr", 1, "sub", "h")) == (12, 5)
    assert positions.locate(("b", 1, "c"), key=True) == (4, 4)


# Every rejection has a position: missing keys, missing tables, nesting, size, huge integers, CR-only lines.


def test_a_toml_document_missing_a_required_key_points_at_its_start(tmp_path: Path) -> None:
    result = validate_runtime_config(write(tmp_path, "r.toml", "\n\n[[verification]]\ncommand = 'x'\n"), checkout=False)
    assert located(result.errors) == {("RC001", "(document)", 1, 1)}


def test_a_pyproject_runtime_table_missing_a_key_points_at_its_header(tmp_path: Path) -> None:
    text = '[project]\nname = "p"\n\n[tool.tierlock.runtime]\nschemaVersion = 1\n'
    result = validate_runtime_config(write(tmp_path, "pyproject.toml", text), checkout=False)
    assert located(result.errors) == {("RC002", "(document)", 4, 1)}


def test_a_pyproject_runtime_table_without_its_own_header_points_at_its_first_part(tmp_path: Path) -> None:
    text = '[project]\nname = "p"\n\n[[tool.tierlock.runtime.verification]]\ncommand = "x"\n'
    result = validate_runtime_config(write(tmp_path, "pyproject.toml", text), checkout=False)
    assert located(result.errors) == {("RC001", "(document)", 4, 1)}


def test_a_pyproject_without_the_runtime_table_is_refused_at_1_1(tmp_path: Path) -> None:
    result = validate_runtime_config(write(tmp_path, "pyproject.toml", '[project]\nname = "p"\n'), checkout=False)
    assert result.exit_code == 2
    assert (result.errors[0].line, result.errors[0].column) == (1, 1)


def test_toml_nesting_past_the_limit_has_a_position(tmp_path: Path) -> None:
    text = "schemaVersion = 1\nverification = []\n\nx-deep = " + "[" * 70 + "]" * 70 + "\n"
    result = validate_runtime_config(write(tmp_path, "r.toml", text), checkout=False)
    assert (result.exit_code, result.errors[0].rule, result.errors[0].line) == (2, "RC013", 4)


def test_toml_nesting_beyond_the_recursion_limit_has_a_position(tmp_path: Path) -> None:
    text = "schemaVersion = 1\nverification = []\nx-deep = " + "[" * 5000 + "]" * 5000 + "\n"
    result = validate_runtime_config(write(tmp_path, "r.toml", text), checkout=False)
    assert (result.exit_code, result.errors[0].rule) == (2, "RC013")
    assert (result.errors[0].line, result.errors[0].column) == (3, 10 + 64)


def test_a_toml_integer_of_more_than_4300_digits_is_rc013_with_its_position(tmp_path: Path) -> None:
    text = "schemaVersion = 1\nverification = []\nx-n = " + "7" * 5000 + "\n"
    result = validate_runtime_config(write(tmp_path, "r.toml", text), checkout=False)
    assert result.exit_code == 2
    assert (result.errors[0].rule, result.errors[0].line, result.errors[0].column) == ("RC013", 3, 7)


def test_an_oversized_file_is_refused_at_1_1(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(jsonpos, "MAX_BYTES", 16)
    path = write(tmp_path, "c.json", '{"schemaVersion": 1, "verification": []}')
    result = validate_runtime_config(path, checkout=False)
    assert result.exit_code == 2
    assert (result.errors[0].rule, result.errors[0].line, result.errors[0].column) == ("RC013", 1, 1)


def test_json_with_cr_only_line_endings_reports_real_lines(tmp_path: Path) -> None:
    text = '{\r  "schemaVersion": 1,\r  "verification": [\r    {"command": "x", "timeoutMs": 0}\r  ]\r}'
    path = tmp_path / "c.json"
    path.write_bytes(text.encode())
    result = validate_runtime_config(path, checkout=False)
    assert located(result.errors) == {("RC008", "verification[0].timeoutMs", 4, 35)}
    broken = tmp_path / "d.json"
    broken.write_bytes(b'{\r  "schemaVersion": 1,\r  "verification": [\r    x\r  ]\r}')
    result = validate_runtime_config(broken, checkout=False)
    assert (result.errors[0].line, result.errors[0].column) == (4, 5)


def test_a_pyproject_with_a_runtime_table_and_a_huge_integer_is_found_and_reported(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from tierlock.cli import main
    from tierlock.validators import discover

    text = "[project]\nname = 'p'\nx = " + "9" * 5000 + "\n[tool.tierlock.runtime]\nschemaVersion = 1\n"
    write(tmp_path, "pyproject.toml", text)
    assert discover(tmp_path) == tmp_path / "pyproject.toml"
    assert main(["validate", "--project", str(tmp_path)]) == 2
    assert "pyproject.toml:3:5 RC013: a number has too many digits" in capsys.readouterr().out
