"""The readers of single settings, where the whole-project tests leave a value unread: the backend and format
as written, and the line a nesting too deep for Python's TOML parser is reported on."""

from __future__ import annotations

from pathlib import Path

import pytest

from tierlock import load_project
from tierlock.errors import ConfigError

HEAD = '[project]\nname = "me"\nversion = "0.1"\n'


@pytest.mark.parametrize(
    ("table", "backend", "fmt"),
    [
        ("", "auto", "requirements"),
        ('backend = "uv"\nformat = "pylock"\n', "uv", "pylock"),
        ('backend = "pip"\n', "pip", "requirements"),
    ],
)
def test_the_backend_and_format_are_read_as_written_and_default_to_auto_and_requirements(
    project_dir: Path, table: str, backend: str, fmt: str
) -> None:
    (project_dir / "pyproject.toml").write_text(HEAD + "[tool.tierlock]\n" + table, encoding="utf-8")
    project = load_project(project_dir)
    assert (project.backend, project.format) == (backend, fmt)


@pytest.mark.parametrize("before", ["", "closed = [[1], [2]]\n", 'text = "]"\n'])
def test_a_nesting_too_deep_is_placed_on_the_line_of_its_hundred_and_first_opening_bracket(
    project_dir: Path, before: str
) -> None:
    nested = "v = " + "[\n" * 1200 + "1" + "]" * 1200 + "\n"
    (project_dir / "pyproject.toml").write_text(HEAD + "[tool.other]\n" + before + nested, encoding="utf-8")
    with pytest.raises(ConfigError) as exc:
        load_project(project_dir)
    first = 5 + before.count("\n")  # the line of "v = ["
    assert "nesting deeper than 100 levels" in exc.value.message
    assert exc.value.line == first + 100
    assert (exc.value.problems[0].line, exc.value.problems[0].column) == (first + 100, 1)


@pytest.mark.parametrize(("table", "venv"), [("", None), ('venv = "envs/dev"\n', "envs/dev")])
def test_the_project_environment_folder_is_read_as_written(project_dir: Path, table: str, venv: str | None) -> None:
    (project_dir / "pyproject.toml").write_text(HEAD + "[tool.tierlock]\n" + table, encoding="utf-8")
    assert load_project(project_dir).venv == venv
