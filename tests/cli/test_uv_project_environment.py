"""A machine that sets ``UV_PROJECT_ENVIRONMENT`` (a CI image: ``ENV UV_PROJECT_ENVIRONMENT=/opt/venv``, then
``uv sync``): uv syncs and runs the tests there. Before, ``install-tier brain`` with no ``--python`` and no active venv
armed ``.venv`` beside pyproject.toml (making it), ``status`` and ``admit`` judged that one, and the tests that uv
ran in the other environment found the tier absent. Now the project environment is ``$TIERLOCK_PROJECT_ENVIRONMENT``,
else ``$UV_PROJECT_ENVIRONMENT`` (relative to the project, as uv reads it), else ``[tool.tierlock].venv``, else
``.venv``: every command, the fast path and the printed fixes act where uv does."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.support.env import bin_dir
from tests.support.interpreters import interpreter
from tests.support.tierproject import tool_project
from tests.support.wheels import build_wheel

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def links(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("uv-env-wheels")
    build_wheel(folder, "basepkg", "1.0")
    build_wheel(folder, "tool", "1.0")
    return folder


def _run(argv: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, check=False)


@pytest.mark.parametrize("spelled", ["absolute", "relative"])
def test_the_project_environment_is_where_uv_project_environment_puts_it(
    tmp_path: Path, links: Path, spelled: str
) -> None:
    synced = tmp_path / "opt" / "venv"  # where `uv sync` made it
    value = str(synced) if spelled == "absolute" else "../opt/venv"
    root, env = tool_project(tmp_path, links, UV_PROJECT_ENVIRONMENT=value)
    made = interpreter("3.12.1")
    subprocess.run([str(made.python), "-m", "venv", "--without-pip", str(synced)], check=True, env=env)

    status = _run([str(bin_dir() / "tierlock"), "status", "brain"], root, env)
    said = status.stdout + status.stderr
    assert f"tiers in {synced} " in said, said
    assert "install-tier brain" in said, said
    armed = _run([str(bin_dir() / "install-tier"), "brain"], root, env)
    assert armed.returncode == 0, armed.stdout + armed.stderr
    assert not (root / ".venv").exists()
    ran = _run([str(synced / "bin" / "python"), "-c", "import tool"], root, env)
    assert ran.returncode == 0, ran.stderr
    probed = _run([str(bin_dir() / "tierlock"), "probe", "brain"], root, env)
    assert probed.returncode == 0, probed.stdout + probed.stderr
    assert f"in {synced}" in probed.stdout, probed.stdout
    again = _run([str(bin_dir() / "install-tier"), "brain"], root, env)
    assert "checked against the receipt); nothing to do" in again.stdout, again.stdout + again.stderr

    # tierlock's own variable still decides first
    own = tmp_path / "own"
    env["TIERLOCK_PROJECT_ENVIRONMENT"] = str(own)
    status = _run([str(bin_dir() / "tierlock"), "status", "brain"], root, env)
    assert "the project environment" in status.stdout + status.stderr
    assert str(synced) not in status.stdout + status.stderr


def test_a_missing_uv_project_environment_is_made_there_by_install_tier(tmp_path: Path, links: Path) -> None:
    root, env = tool_project(tmp_path, links, UV_PROJECT_ENVIRONMENT="envs/app")
    armed = _run([str(bin_dir() / "install-tier"), "brain"], root, env)
    assert armed.returncode == 0, armed.stdout + armed.stderr
    assert (root / "envs" / "app" / "pyvenv.cfg").is_file()
    assert not (root / ".venv").exists()
    probed = _run([str(bin_dir() / "tierlock"), "probe", "brain"], root, env)
    assert probed.returncode == 0, probed.stdout + probed.stderr
