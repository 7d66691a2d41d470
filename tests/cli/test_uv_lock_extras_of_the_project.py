"""An extra or dependency group that names another extra of the project (``proj[fast]``), as litestar's ``full``
and ``standard`` extras and its ``test`` group do: uv.lock records that line, not what ``fast`` holds, so a change
of ``fast`` is a change of every extra and group that names it, at any depth and through included groups.

``tierlock check full`` answered ok and ``install-tier full`` armed from the stale lock (the new requirement of
``fast`` missing, then "already present" from the receipt while ``probe`` said partial); now each of them
reports the drift and ``uv lock``, run as printed, lets ``install-tier`` arm what ``uv sync`` arms.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.support.uvproject import copy_project, installed, tool, uv, uv_env, write_project

pytestmark = pytest.mark.slow

PYPROJECT = """\
[project]
name = "proj"
version = "0.1.0"
requires-python = ">=3.11"
dependencies = ["alpha>=1"]

[project.optional-dependencies]
fast = ["gamma"]
full = ["proj[fast]", "testkit"]
every = ["PROJ[Full]"]
other = ["beta"]

[dependency-groups]
suite = ["proj[fast]", "beta"]
ci = [{ include-group = "suite" }]

[build-system]
requires = []
build-backend = "backend"
backend-path = ["."]

[tool.tierlock]
lock = "uv.lock"

[tool.tierlock.tiers.fast]
[tool.tierlock.tiers.full]
[tool.tierlock.tiers.every]
[tool.tierlock.tiers.other]
[tool.tierlock.tiers.suite]
[tool.tierlock.tiers.ci]
"""
FAST = 'fast = ["gamma"]'


@pytest.fixture(scope="module")
def env(uv_wheelhouse: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    return uv_env(uv_wheelhouse, tmp_path_factory.mktemp("uvcache"))


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory, env: dict[str, str]) -> Path:
    root = write_project(tmp_path_factory.mktemp("inner") / "proj", PYPROJECT)
    uv(["lock"], root, env)
    return root


@pytest.fixture
def project(template: Path, tmp_path: Path) -> Path:
    return copy_project(template, tmp_path / "proj")


def _edit(project: Path, old: str, new: str) -> None:
    path = project / "pyproject.toml"
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new), encoding="utf-8")


def _sh(command: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """A printed remedy, run exactly as printed."""
    return subprocess.run(["bash", "-c", command], cwd=cwd, env=env, capture_output=True, text=True, check=False)


@pytest.mark.parametrize("tier", ["full", "every", "suite", "ci"])
def test_a_change_of_an_extra_is_drift_of_every_tier_that_names_it(
    project: Path, env: dict[str, str], tier: str
) -> None:
    assert tool("tierlock", ["check", tier], project, env).returncode == 0
    _edit(project, FAST, 'fast = ["gamma", "delta"]')
    assert uv(["lock", "--check"], project, env, check=False).returncode != 0
    result = tool("tierlock", ["check", tier], project, env)
    assert result.returncode == 1, result.stdout + result.stderr
    assert f"uv.lock: {tier}: input-drift: uv.lock is out of date for pyproject.toml: delta (extra fast) added" in (
        result.stdout
    )
    assert result.stdout.rstrip().endswith("to fix: uv lock")


def test_a_change_of_the_extra_that_names_another_is_no_drift_of_the_other(project: Path, env: dict[str, str]) -> None:
    _edit(project, 'every = ["PROJ[Full]"]', 'every = ["PROJ[Full]", "delta"]')
    for tier in ("fast", "full", "other", "suite"):
        result = tool("tierlock", ["check", tier], project, env)
        assert result.returncode == 0, result.stdout + result.stderr
    result = tool("tierlock", ["check"], project, env)
    assert result.returncode == 1
    drifted = sorted(line.split(":")[1].strip() for line in result.stdout.splitlines() if "input-drift" in line)
    assert drifted == ["every"]


def test_install_tier_refuses_the_stale_lock_and_uv_lock_as_printed_arms_what_uv_sync_arms(
    project: Path, env: dict[str, str], tmp_path: Path
) -> None:
    assert tool("install-tier", ["every"], project, env).returncode == 0
    _edit(project, FAST, 'fast = ["gamma", "delta"]')
    refused = tool("install-tier", ["every"], project, env)
    assert refused.returncode == 1, refused.stdout + refused.stderr
    assert "nothing was installed" in refused.stderr
    assert "delta" not in installed(project / ".venv")
    remedy = refused.stderr.rstrip().splitlines()[-1].removeprefix("  to fix: ")
    assert remedy == "uv lock"
    assert _sh(remedy, project, env).returncode == 0
    armed = tool("install-tier", ["every"], project, env)
    assert armed.returncode == 0, armed.stdout + armed.stderr
    assert tool("tierlock", ["probe", "every"], project, env).returncode == 0
    synced = tmp_path / "synced"
    uv(["sync", "--no-default-groups", "--extra", "every"], project, {**env, "UV_PROJECT_ENVIRONMENT": str(synced)})
    assert installed(project / ".venv") == installed(synced)
    assert installed(synced)["delta"] == "2.0"
