"""The last-resort guard: an input tierlock itself fails on gives an internal-error report, exit 3."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tierlock.cli import main
from tierlock.validators import rules, validate_runtime_config

SECRET = "gh" + "p_" + "Q1w2E3r4T5y6U7i8O9p0" * 2


def _explode(*args: Any, **kwargs: Any) -> Any:
    raise KeyError(SECRET)  # an exception whose text quotes the document


@pytest.mark.parametrize("fmt", ["text", "json", "github", "sarif"])
def test_an_unexpected_exception_is_an_internal_error_report_with_exit_3(
    fmt: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "tierlock.runtime.json"
    path.write_text(json.dumps({"schemaVersion": 1, "verification": []}), encoding="utf-8")
    monkeypatch.setattr(rules, "check", _explode)
    code = main(["validate", str(path), "--no-checkout", "--format", fmt])
    out = capsys.readouterr().out
    assert code == 3
    assert "RC999" in out
    assert "tierlock.runtime.json" in out
    assert "KeyError" in out
    assert SECRET not in out


def test_the_library_returns_the_internal_error_instead_of_raising(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(rules, "check", _explode)
    result = validate_runtime_config({"schemaVersion": 1, "verification": []}, checkout=False)
    assert (result.exit_code, result.internal_error, result.ok) == (3, True, False)
    [error] = result.errors
    assert error.rule == "RC999"
    assert "rules" not in error.message or "KeyError" in error.message
    assert SECRET not in error.message


def _self_referring() -> dict[str, Any]:
    document: dict[str, Any] = {"schemaVersion": 1, "verification": []}
    document["x-self"] = document
    return document


@pytest.mark.parametrize(
    ("document", "where"),
    [
        ({1: 2}, "(document)"),
        ({"schemaVersion": 1, "verification": [{"command": "x", "env": {1: "x"}}]}, "verification[0].env"),
        ({"schemaVersion": 1, "verification": ({"command": "x"},)}, "verification"),
        ({"schemaVersion": 1, "verification": [], "x-n": float("inf")}, "x-n"),
        ({"schemaVersion": 1, "verification": [{"command": b"x"}]}, "verification[0].command"),
        (_self_referring(), "x-self" + ".x-self" * 63),
    ],
    ids=["integer key", "integer env name", "tuple", "infinity", "bytes", "refers to itself"],
)
def test_a_mapping_that_is_not_json_data_is_refused_not_a_crash(document: Any, where: str) -> None:
    result = validate_runtime_config(document, checkout=False)
    assert (result.exit_code, result.internal_error) == (2, False)
    assert [(e.rule, e.where) for e in result.errors] == [("RC000", where)]
