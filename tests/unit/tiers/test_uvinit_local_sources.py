"""``tierlock init`` in a uv project: a tier that reaches a local package is proposed whole (its tests, ci-require).

Re-running "adopting it next to uv.lock" with a ``[tool.uv.sources]`` path dependency: an extra reaching
``plainlib = { path = "libs/plain" }`` was first skipped (no index serves it), then added back because uv.lock
holds it, but without the census: no ``tests`` globs, not in ``ci-require``, although ``tests/brain`` imports it.
Followed as printed (``uv lock``, ``uv sync``), ``CI=true pytest`` went green with the tier's test skipped
(the backstop turns a not-required tier's ImportError into a skip). A workspace member did the same.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from tierlock.cli import main

PYPROJECT = """\
[project]
name = "proj"
version = "0.1.0"
requires-python = ">=3.11"
dependencies = ["idna"]

[project.optional-dependencies]
brain = ["{local}", "six"]
docs = ["sphinx"]

[tool.uv.sources]
{sources}
"""

SOURCES = {
    "path": ("plainlib", 'plainlib = { path = "libs/plain" }\n'),
    "editable path": ("plainlib", 'plainlib = { path = "libs/plain", editable = true }\n'),
    "workspace member": (
        "plainlib",
        'plainlib = { workspace = true }\n\n[tool.uv.workspace]\nmembers = ["libs/plain"]\n',
    ),
}


def _project(root: Path, kind: str, *, uv_lock: bool) -> None:
    local, sources = SOURCES[kind]
    (root / "pyproject.toml").write_text(PYPROJECT.format(local=local, sources=sources), encoding="utf-8")
    member = root / "libs" / "plain"
    (member / "src" / "plainlib").mkdir(parents=True)
    (member / "pyproject.toml").write_text('[project]\nname = "plainlib"\nversion = "0.3.0"\n', encoding="utf-8")
    (member / "src" / "plainlib" / "__init__.py").write_text("X = 1\n", encoding="utf-8")
    (root / "tests" / "brain").mkdir(parents=True)
    (root / "tests" / "brain" / "test_plain.py").write_text("import plainlib\n\n\ndef test_x():\n    pass\n")
    (root / "tests" / "test_base.py").write_text("def test_base():\n    pass\n", encoding="utf-8")
    if uv_lock:
        (root / "uv.lock").write_text("version = 1\n", encoding="utf-8")


@pytest.mark.parametrize("kind", list(SOURCES))
def test_a_tier_reaching_a_local_package_uv_lock_holds_gets_its_tests_and_ci_require(
    project_dir: Path, capsys: pytest.CaptureFixture[str], kind: str
) -> None:
    _project(project_dir, kind, uv_lock=True)
    assert main(["--project", str(project_dir), "init", "--no-groups", "--no-pytest-marker"]) == 0
    capsys.readouterr()
    table = tomllib.loads((project_dir / "pyproject.toml").read_text())["tool"]["tierlock"]
    assert table["lock"] == "uv.lock"
    assert table["tiers"]["brain"] == {"source": "extra:brain", "tests": ["tests/brain/**"]}
    assert table["ci-require"] == ["brain"]


def test_without_uv_lock_such_a_tier_is_still_left_out_with_why(
    project_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """tierlock's own lockfiles come from an index, which serves no local path: nothing changes there."""
    _project(project_dir, "path", uv_lock=False)
    assert main(["--project", str(project_dir), "init", "--no-groups", "--no-pytest-marker"]) == 0
    out = capsys.readouterr().out
    assert "plainlib, a local path" in out
    table = tomllib.loads((project_dir / "pyproject.toml").read_text())["tool"]["tierlock"]
    assert "brain" not in table.get("tiers", {})
