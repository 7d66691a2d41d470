"""``tierlock init`` on a project that commits uv.lock: the tiers read uv.lock, and the plugin joins the lock.

The table says ``lock = "uv.lock"`` (no lockfile folder, no format), the extras
that reach a workspace member are tiers too, and tierlock's pytest plugin goes
into the project's test dependency group (the one uv.lock then carries), so a
plain ``uv sync`` keeps the gate. A real ``uv lock`` afterwards locks it.
"""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest

from tests.support.uvproject import build_uv_wheelhouse, tool, uv, uv_env, write_project
from tests.support.wheels import build_wheel
from tierlock.cli import main
from tierlock.tiers import load_project
from tierlock.tiers.uvinit import PLUGIN_DISTRIBUTION

PYPROJECT = """\
[project]
name = "svc"
version = "1.0"
requires-python = "{requires}"
dependencies = ["httpx", "member"]

[project.optional-dependencies]
brain = ["numpy"]
local = ["member"]

[dependency-groups]
{groups}

[tool.uv.sources]
member = {{ workspace = true }}

[tool.uv.workspace]
members = ["packages/member"]
"""


def _init(
    root: Path, groups: str, capsys: pytest.CaptureFixture[str], requires: str = ">=3.11"
) -> tuple[dict[str, object], str]:
    (root / "pyproject.toml").write_text(PYPROJECT.format(groups=groups, requires=requires), encoding="utf-8")
    (root / "uv.lock").write_text("version = 1\n", encoding="utf-8")
    assert main(["--project", str(root), "init", "--no-groups", "--no-pytest-marker"]) == 0
    out = capsys.readouterr().out
    return tomllib.loads((root / "pyproject.toml").read_text()), out


@pytest.mark.parametrize(
    ("groups", "chosen", "result"),
    [
        ('tests = ["pytest"]\ndocs = ["sphinx"]', "tests", ["pytest", PLUGIN_DISTRIBUTION]),
        ('dev = ["ruff"]', "dev", ["ruff", PLUGIN_DISTRIBUTION]),
        ('docs = ["sphinx"]', "test", [PLUGIN_DISTRIBUTION]),
    ],
    ids=["an existing tests group", "uv's dev group", "a new test group"],
)
def test_init_reads_uv_lock_and_puts_the_plugin_in_the_test_group(
    project_dir: Path, capsys: pytest.CaptureFixture[str], groups: str, chosen: str, result: list[str]
) -> None:
    data, out = _init(project_dir, groups, capsys)
    table = data["tool"]["tierlock"]  # type: ignore[index]
    assert table["lock"] == "uv.lock"
    assert "lock-dir" not in table
    assert "format" not in table
    assert table["tiers"]["local"] == {"source": "extra:local"}  # reaches a workspace member: uv.lock holds it
    assert data["dependency-groups"][chosen] == result  # type: ignore[index]
    assert f"added {PLUGIN_DISTRIBUTION} (the pytest plugin) to the {chosen} dependency group" in out
    # the next step as a command after ': ', naming the project given (uv takes its folder)
    assert f"; run: uv --project {project_dir} lock && tierlock --project {project_dir} check\n" in out
    project = load_project(project_dir)
    assert project.lock == project_dir / "uv.lock"
    assert set(project.tiers) == {"base", "brain", "local"}


def test_a_project_that_supports_older_pythons_gets_the_plugin_where_it_runs(
    project_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data, _ = _init(project_dir, 'test = ["pytest"]', capsys, requires=">=3.9")
    assert data["dependency-groups"]["test"] == ["pytest", f'{PLUGIN_DISTRIBUTION}; python_version >= "3.11"']  # type: ignore[index]


def test_a_test_group_that_has_the_plugin_is_left_as_it_is(
    project_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data, out = _init(project_dir, 'test = ["pytest", "Tierlock>=0.1"]', capsys)
    assert data["dependency-groups"]["test"] == ["pytest", "Tierlock>=0.1"]  # type: ignore[index]
    assert "(the pytest plugin)" not in out


def test_a_project_without_uv_lock_gets_tierlocks_own_lockfiles(
    project_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (project_dir / "pyproject.toml").write_text(
        PYPROJECT.format(groups='test = ["pytest"]', requires=">=3.11"), encoding="utf-8"
    )
    assert main(["--project", str(project_dir), "init", "--no-groups", "--no-pytest-marker"]) == 0
    data = tomllib.loads((project_dir / "pyproject.toml").read_text())
    assert data["tool"]["tierlock"]["lock-dir"] == "lockfiles"
    assert data["dependency-groups"]["test"] == ["pytest"]


@pytest.mark.slow
def test_after_init_uv_lock_carries_the_plugin_and_a_plain_uv_sync_keeps_it(tmp_path: Path) -> None:
    wheels = build_uv_wheelhouse(tmp_path / "wheels")
    build_wheel(wheels, PLUGIN_DISTRIBUTION, "0.1.0")  # stands in for the plugin's distribution on the index
    env = uv_env(wheels, tmp_path / "cache")
    root = write_project(tmp_path / "proj")
    pyproject = root / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().split("[tool.tierlock]")[0], encoding="utf-8")
    uv(["lock"], root, env)
    result = tool("tierlock", ["init", "--no-groups", "--json"], root, env)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["written"] is True
    assert tool("tierlock", ["check"], root, env).returncode == 1  # uv.lock does not carry the plugin yet
    uv(["lock"], root, env)
    assert tool("tierlock", ["check"], root, env).returncode == 0
    uv(["sync", "--group", "test"], root, env)
    from tests.support.uvproject import installed

    assert PLUGIN_DISTRIBUTION in installed(root / ".venv")
