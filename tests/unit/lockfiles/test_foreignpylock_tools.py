"""PEP 751 locks that real tools wrote (``pip lock``, ``uv export --format pylock.toml``) serve a project's tiers.

A lock made for one selection serves the base tier whole and names the tiers it
cannot serve; ``install-tier base`` from a pylock uv exported gives the
environment ``uv pip sync`` gives from it, and nothing rewrites the file.
"""

from __future__ import annotations

import hashlib
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.env import clean_env
from tests.support.uvproject import installed, locked_project, tool, uv, uv_env
from tierlock.lockfiles.foreignpylock import read

pytestmark = pytest.mark.slow


def _names(result: object) -> list[str]:
    return sorted(str(e.name) for e in result.lock.entries)  # type: ignore[attr-defined]


def _pip_lock(uv_wheelhouse: Path, dest: Path) -> Path:
    """``pip lock`` (real pip, offline) of alpha and gamma[fast]: a lock for one selection."""
    argv = [sys.executable, "-m", "pip", "lock", "--help"]
    probe = subprocess.run(argv, env=clean_env(), capture_output=True, check=False)
    if probe.returncode != 0:  # the lowest-versions venv: its pip came with the interpreter
        pytest.skip(f"this interpreter's pip has no `pip lock` (pip 25.1 and later): {sys.executable}")
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "lock",
            "--no-index",
            "-f",
            str(uv_wheelhouse),
            "alpha",
            "gamma[fast]",
            "-o",
            str(dest),
        ],
        check=True,
        env=clean_env(),
        capture_output=True,
    )
    return dest


def test_a_lock_pip_wrote_serves_the_base_tier_whole_and_names_the_tiers_it_cannot(
    uv_wheelhouse: Path, tmp_path: Path
) -> None:
    path = _pip_lock(uv_wheelhouse, tmp_path / "pylock.toml")
    text = path.read_text()
    base = read(path, text, "0" * 64, root="proj", extras=(), groups=())
    assert _names(base) == ["alpha", "beta", "delta", "gamma"]
    assert base.problems == ()
    assert {e.index for e in base.lock.entries} == {str(uv_wheelhouse.resolve())}
    (problem,) = read(path, text, "0" * 64, root="proj", extras=("brain",), groups=()).problems
    assert "it declares no extras or dependency groups: it was locked for one selection" in problem.detail


def test_install_tier_from_a_pylock_uv_exported_gives_what_uv_pip_sync_gives(
    uv_wheelhouse: Path, tmp_path: Path
) -> None:
    env = uv_env(uv_wheelhouse, tmp_path / "cache")
    root = locked_project(tmp_path / "proj", env)
    uv(
        ["export", "--frozen", "--format", "pylock.toml", "--no-default-groups", "-o", "pylock.toml", "--quiet"],
        root,
        env,
    )
    pyproject = root / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace('lock = "uv.lock"', 'lock = "pylock.toml"'))
    for extra in ("[tool.tierlock.tiers.old]\n", "[tool.tierlock.tiers.test]\n", "[tool.tierlock.tiers.tools]\n"):
        pyproject.write_text(pyproject.read_text().replace(extra, ""))
    pyproject.write_text(pyproject.read_text().replace('[tool.tierlock.tiers.brain]\ntests = ["tests/brain/**"]\n', ""))
    before = hashlib.sha256((root / "pylock.toml").read_bytes()).hexdigest()
    synced = tmp_path / "synced"
    uv(["venv", str(synced)], root, env)
    uv(["pip", "sync", "--python", str(synced), "pylock.toml"], root, env)
    result = tool("install-tier", ["base"], root, env)
    assert result.returncode == 0, result.stderr
    assert installed(root / ".venv") == installed(synced)
    check = tool("tierlock", ["check"], root, env)
    assert check.returncode == 0, check.stdout
    assert hashlib.sha256((root / "pylock.toml").read_bytes()).hexdigest() == before
