"""A package's version edited by hand in uv.lock (a downgrade "pinned" in the lock, its files left as they were).

uv refuses the lock ("inconsistent version": the wheel's file name gives another version). ``tierlock check`` said
ok, and ``install-tier`` sent the pin to the backend, whose hash check failed, with "fix the cause shown above,
then run the same install-tier command again": the rerun failed the same. Now both name the package's line and
the commands that make the lock again, and those commands, run as printed, let the tier arm.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.support.uvproject import installed, locked_project, tool, uv, uv_env

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def env(uv_wheelhouse: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    return uv_env(uv_wheelhouse, tmp_path_factory.mktemp("uvcache"))


def _sh(command: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """A printed remedy, run exactly as printed."""
    return subprocess.run(["bash", "-c", command], cwd=cwd, env=env, capture_output=True, text=True, check=False)


@pytest.mark.parametrize(("tool_name", "args"), [("tierlock", ["check"]), ("install-tier", ["base"])])
def test_a_version_edited_by_hand_is_named_on_its_line_and_the_lock_made_again_as_printed(
    env: dict[str, str], tmp_path: Path, tool_name: str, args: list[str]
) -> None:
    project = locked_project(tmp_path / "proj", env)
    lock = project / "uv.lock"
    text = lock.read_text()
    assert 'name = "alpha"\nversion = "1.1"\n' in text
    lock.write_text(text.replace('name = "alpha"\nversion = "1.1"\n', 'name = "alpha"\nversion = "1.0"\n'))
    line = lock.read_text().splitlines().index('name = "alpha"')  # the [[package]] line above it, 1-based
    synced = {**env, "UV_PROJECT_ENVIRONMENT": str(tmp_path / "synced")}
    assert uv(["sync", "--locked", "--no-default-groups"], project, synced, check=False).returncode != 0
    result = tool(tool_name, args, project, env)
    assert result.returncode == 1, result.stdout + result.stderr
    shown = result.stdout + result.stderr
    assert f"uv.lock:{line}: base: integrity: alpha 1.0: its wheel alpha-1.1-py3-none-any.whl is of version 1.1" in (
        shown
    )
    assert "alpha" not in (installed(project / ".venv") if (project / ".venv").is_dir() else {})
    remedy = shown.rstrip().splitlines()[-1].removeprefix("  to fix: ")
    assert remedy.startswith("uv cannot read this uv.lock either: restore the committed one (git checkout -- uv.lock)")
    command = remedy.rsplit(": ", 1)[1]
    assert command == "rm uv.lock && uv lock"
    assert _sh(command, project, env).returncode == 0
    assert tool("tierlock", ["check"], project, env).returncode == 0
    armed = tool("install-tier", ["base"], project, env)
    assert armed.returncode == 0, armed.stdout + armed.stderr
    assert installed(project / ".venv")["alpha"] == "1.1"
