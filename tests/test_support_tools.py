"""The shared test tools do what the tests that lean on them assume."""

from __future__ import annotations

import doctest
import tomllib

import pytest

from tests.support import pyproject as builder
from tests.support.cli import cli_json, run_cli
from tests.support.lockproj import PYPROJECT


def test_the_pyproject_builder_writes_the_example_in_its_docstring() -> None:
    assert doctest.testmod(builder).failed == 0


def test_the_pyproject_builder_writes_toml_that_reads_back_as_declared() -> None:
    text = builder.pyproject(
        dependencies=["alpha>=1"],
        groups={"tools": [{"include-group": "lint"}], "lint": ["ruff"]},
        tierlock={"ci-require": ["tools"], "strict": True, "retries": 2},
        tiers={"tools": {"source": "group:tools"}},
        tail="[tool.uv]\npackage = false",
    )
    data = tomllib.loads(text)
    assert data["project"]["dependencies"] == ["alpha>=1"]
    assert data["dependency-groups"]["tools"] == [{"include-group": "lint"}]
    assert data["tool"]["tierlock"]["ci-require"] == ["tools"]
    assert (data["tool"]["tierlock"]["strict"], data["tool"]["tierlock"]["retries"]) == (True, 2)
    assert data["tool"]["tierlock"]["tiers"] == {"tools": {"source": "group:tools"}}
    assert data["tool"]["uv"] == {"package": False}


def test_the_sample_project_of_the_lock_tests_declares_two_tiers_over_the_base() -> None:
    assert set(tomllib.loads(PYPROJECT)["tool"]["tierlock"]["tiers"]) == {"brain", "tools"}


def test_the_json_runner_adds_json_once_and_hands_back_the_document(capsys: pytest.CaptureFixture[str]) -> None:
    code, document = cli_json(capsys, "schema")
    assert code == 0
    assert document["$schema"].startswith("https://json-schema.org/")
    assert cli_json(capsys, "--json", "schema")[1] == document
    code, out, _err = run_cli(capsys, "schema")
    assert (code, out.startswith("{")) == (0, True)
