"""`tierlock init`: one tier per extra and group, every other byte kept."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest

from tierlock.cli import main

SHAPES = {
    "comments_and_inline_tables": """\
# Project metadata -- keep this comment
[project]
name = "shop"   # trailing comment
version = "1.0"
authors = [{ name = "A. Person", email = "a@example.org" }]
dependencies = [
    'httpx >= 0.27',  # single quotes stay single
    "attrs",
]

[project.optional-dependencies]
brain = ["numpy>=2"]
"Web-UI" = ["flask"]

[tool.ruff]
line-length = 100
lint.select = ["E", "F"]

[tool.other]
x = { a = 1, b = [1, 2, 3] }
""",
    "arrays_of_tables_and_groups": """\
[build-system]
requires = ["hatchling"]
build-backend = "hatchling.build"

[project]
name = "svc"
dependencies = []

[[tool.mypy.overrides]]
module = ["a.*"]
ignore_missing_imports = true

[[tool.mypy.overrides]]
module = ["b.*"]

[dependency-groups]
test = ["pytest"]
lint = [{ include-group = "test" }, "ruff"]


""",
    "crlf_line_endings": (
        '[project]\r\nname = "win"\r\ndependencies = ["colorama"]\r\n\r\n'
        '[project.optional-dependencies]\r\ngpu = ["torch"]\r\n'
    ),
    "no_trailing_newline": '[project]\nname = "tight"\n[project.optional-dependencies]\nml = ["numpy"]',
    "utf8_bom": '\ufeff[project]\nname = "bom"\n[project.optional-dependencies]\nml = ["numpy"]\n',
}


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_init_appends_a_table_and_keeps_every_other_byte(project_dir: Path, shape: str) -> None:
    original = SHAPES[shape].encode()
    path = project_dir / "pyproject.toml"
    path.write_bytes(original)
    assert main(["--project", str(project_dir), "init", "-q", "--all-groups", "--no-pytest-marker"]) == 0
    after = path.read_bytes()
    assert after.startswith(original)
    added = after[len(original) :].decode()
    assert "[tool.tierlock]" in added
    if b"\r\n" in original:
        assert "\n" not in added.replace("\r\n", "")
    data = tomllib.loads(after.decode("utf-8-sig"))
    before = tomllib.loads(original.decode("utf-8-sig"))
    tier_table = data["tool"].pop("tierlock")
    if not data["tool"]:
        del data["tool"]
    assert data == before  # nothing else changed in meaning either
    extras = list(before.get("project", {}).get("optional-dependencies", {}))
    groups = list(before.get("dependency-groups", {}))
    assert len(tier_table["tiers"]) == len(extras) + len(groups)
    assert main(["--project", str(project_dir), "tiers", "-q"]) == 0


def test_init_proposes_one_tier_per_extra_and_group_with_sources(
    project_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (project_dir / "pyproject.toml").write_text(SHAPES["comments_and_inline_tables"])
    (project_dir / "tests" / "brain").mkdir(parents=True)
    assert main(["--project", str(project_dir), "--json", "init", "--dry-run"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["written"] is False
    assert [(t["name"], t["source"]) for t in doc["tiers"]] == [("brain", "extra:brain"), ("web-ui", "extra:web-ui")]
    assert 'tests = ["tests/brain/**"]' in doc["added"]


def test_init_dry_run_writes_nothing(project_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = project_dir / "pyproject.toml"
    path.write_text(SHAPES["arrays_of_tables_and_groups"])
    before = path.read_bytes()
    assert main(["--project", str(project_dir), "init", "--dry-run", "--all-groups"]) == 0
    assert path.read_bytes() == before
    out = capsys.readouterr().out
    assert "would add [tool.tierlock]" in out
    assert 'source = "group:lint"' in out


def test_init_refuses_when_the_table_exists_and_changes_nothing(
    project_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = project_dir / "pyproject.toml"
    path.write_text('[project]\nname = "x"\n\n[tool.tierlock]\nlock-dir = "l"\n')
    before = path.read_bytes()
    assert main(["--project", str(project_dir), "init"]) == 2
    assert path.read_bytes() == before
    assert "already has a [tool.tierlock] table" in capsys.readouterr().err


def test_init_refuses_an_inline_tool_table_without_writing(
    project_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = project_dir / "pyproject.toml"
    path.write_text('tool = { ruff = { line-length = 99 } }\n[project]\nname = "x"\n')
    before = path.read_bytes()
    assert main(["--project", str(project_dir), "init"]) == 2
    assert path.read_bytes() == before
    assert "inline" in capsys.readouterr().err


def test_init_keeps_the_mode_of_the_pyproject_it_rewrites(project_dir: Path) -> None:
    path = project_dir / "pyproject.toml"
    path.write_text(SHAPES["crlf_line_endings"], encoding="utf-8")
    path.chmod(0o640)
    assert main(["--project", str(project_dir), "init", "-q"]) == 0
    assert path.stat().st_mode & 0o777 == 0o640
