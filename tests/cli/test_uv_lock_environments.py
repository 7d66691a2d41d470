"""A uv.lock resolved only for some environments (``[tool.uv] environments``, recorded as ``supported-markers``).

uv resolves nothing for a target outside them: a dependency only that target needs is in no entry, and ``uv sync``
refuses such a target. ``install-tier`` armed it anyway (exit 0, "verified by the probe", the target's own
dependency missing); now it refuses before installing anything, and its fix (the target's ``sys_platform`` added
to ``environments``, then ``uv lock`` and the same install), applied as printed, arms what ``uv sync`` arms.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.uvproject import installed, tool, uv, uv_env, write_project

pytestmark = pytest.mark.slow

OTHER = "darwin" if sys.platform != "darwin" else "linux"
PYPROJECT = f"""\
[project]
name = "proj"
version = "0.1.0"
requires-python = ">=3.11"
dependencies = ["alpha>=1"]

[project.optional-dependencies]
brain = ["gamma", "winonly; sys_platform == '{sys.platform}'"]

[build-system]
requires = []
build-backend = "backend"
backend-path = ["."]

[tool.uv]
environments = ENVIRONMENTS

[tool.tierlock]
lock = "uv.lock"

[tool.tierlock.tiers.brain]
"""
PYTHON312 = Path("/root/.pyenv/versions/3.12.1/bin/python3.12")


@pytest.fixture(scope="module")
def env(uv_wheelhouse: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    return uv_env(uv_wheelhouse, tmp_path_factory.mktemp("uvcache"))


def _sh(command: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """A printed remedy, run exactly as printed."""
    return subprocess.run(["bash", "-c", command], cwd=cwd, env=env, capture_output=True, text=True, check=False)


@pytest.mark.parametrize(
    ("environments", "python"),
    [
        (f"[\"sys_platform == '{OTHER}'\"]", None),
        (f"[\"sys_platform == '{sys.platform}' and platform_machine == 's390x'\"]", None),
        ("[\"python_full_version >= '3.14'\"]", None),
        (f"[\"sys_platform == '{OTHER}' and python_full_version >= '3.12'\"]", PYTHON312),
    ],
    ids=["another platform", "another machine", "another python", "another platform, a 3.12 venv"],
)
def test_a_target_outside_the_locks_environments_is_refused_and_the_printed_fix_arms_what_uv_sync_arms(
    env: dict[str, str], tmp_path: Path, environments: str, python: Path | None
) -> None:
    if python is not None and not python.is_file():
        pytest.skip(f"needs {python}")
    project = write_project(tmp_path / "proj", PYPROJECT.replace("ENVIRONMENTS", environments))
    uv(["lock"], project, env)
    where = project / ".venv"
    args = ["brain"]
    if python is not None:
        where = tmp_path / "venv"
        uv(["venv", str(where), "--python", str(python)], project, env)
        args += ["--python", str(where)]
    twin = {**env, "UV_PROJECT_ENVIRONMENT": str(tmp_path / "synced"), "UV_PYTHON": str(python or sys.executable)}
    assert uv(["sync", "--extra", "brain", "--no-default-groups"], project, twin, check=False).returncode != 0
    refused = tool("install-tier", args, project, env)
    assert refused.returncode == 2, refused.stdout + refused.stderr
    assert "uv.lock was resolved only for the environments [tool.uv] environments names" in refused.stderr
    assert "nothing was installed" in refused.stderr
    assert "gamma" not in (installed(where) if where.is_dir() else {})
    remedy = refused.stderr.rstrip().splitlines()[-1].removeprefix("  to fix: ")
    edit, _, command = remedy.partition(", then run: ")
    added = re.fullmatch(r'add "(.+)" to \[tool\.uv\] environments in pyproject\.toml', edit)
    assert added is not None, remedy
    assert command == "uv lock && " + " ".join(["install-tier", *args])
    pyproject = project / "pyproject.toml"
    pyproject.write_text(
        pyproject.read_text().replace(environments, environments[:-1] + f', "{added.group(1)}"]'), encoding="utf-8"
    )
    armed = _sh(command, project, env)
    assert armed.returncode == 0, armed.stdout + armed.stderr
    assert tool("tierlock", ["probe", *args], project, env).returncode == 0
    uv(["sync", "--extra", "brain", "--no-default-groups"], project, twin)
    assert installed(where) == installed(tmp_path / "synced")
    assert installed(where)["winonly"] == "1.0"


def test_a_target_inside_the_locks_environments_arms_as_before(env: dict[str, str], tmp_path: Path) -> None:
    both = f"[\"sys_platform == '{OTHER}'\", \"sys_platform == '{sys.platform}' and python_full_version >= '3.8'\"]"
    project = write_project(tmp_path / "proj", PYPROJECT.replace("ENVIRONMENTS", both))
    uv(["lock"], project, env)
    armed = tool("install-tier", ["brain"], project, env)
    assert armed.returncode == 0, armed.stdout + armed.stderr
    assert installed(project / ".venv")["winonly"] == "1.0"


DECLARED = f"[\"sys_platform == '{OTHER}' and python_version >= '3.8'\"]"


@pytest.mark.parametrize(
    ("declared", "drift"),
    [
        (f"[\"sys_platform == '{OTHER}'\", \"sys_platform == '{sys.platform}'\"]", "environments"),
        ("[]", "environments"),
        (f"[\"sys_platform=='{OTHER}'\"]", None),
        (f"\"sys_platform == '{OTHER}' and python_full_version >= '3.9'\"", None),
        (f"{DECLARED}\nrequired-environments = [\"sys_platform == '{OTHER}'\"]", "required-environments"),
    ],
    ids=["one added", "all removed", "respelled", "bound requires-python decides", "required ones added"],
)
def test_check_tells_a_change_of_the_environments_as_uv_lock_check_does_and_uv_lock_as_printed_clears_it(
    env: dict[str, str], tmp_path: Path, declared: str, drift: str | None
) -> None:
    project = write_project(tmp_path / "proj", PYPROJECT.replace("ENVIRONMENTS", DECLARED))
    uv(["lock"], project, env)
    pyproject = project / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace(f"environments = {DECLARED}", f"environments = {declared}"))
    stale = uv(["lock", "--check"], project, env, check=False).returncode != 0
    checked = tool("tierlock", ["check"], project, env)
    assert (checked.returncode, stale) == ((1, True) if drift else (0, False)), checked.stdout + checked.stderr
    if drift is None:
        return
    assert f"uv.lock: base: input-drift: uv.lock is out of date for pyproject.toml: [tool.uv].{drift}: " in (
        checked.stdout
    )
    remedy = checked.stdout.rstrip().splitlines()[-1].removeprefix("  to fix: ")
    assert remedy == "uv lock"
    assert _sh(remedy, project, env).returncode == 0
    assert tool("tierlock", ["check"], project, env).returncode == 0


def test_a_workspace_members_fix_names_the_workspaces_pyproject_where_uv_reads_the_environments(
    env: dict[str, str], tmp_path: Path
) -> None:
    from tests.support.uvproject import MEMBER
    from tests.support.uvproject import PYPROJECT as WORKSPACE

    environments = f"[\"sys_platform == '{OTHER}'\"]"
    member_text = MEMBER + (
        '\n[project.optional-dependencies]\nfast = ["testkit"]\n\n'
        '[tool.tierlock]\nlock = "../../uv.lock"\nvenv = "../../.venv"\n\n[tool.tierlock.tiers.fast]\n'
    )
    root = write_project(
        tmp_path / "ws", WORKSPACE.replace("[tool.uv]\n", f"[tool.uv]\nenvironments = {environments}\n"), member_text
    )
    uv(["lock"], root, env)
    member = root / "packages" / "member"
    refused = tool("install-tier", ["fast"], member, env)
    assert refused.returncode == 2, refused.stdout + refused.stderr
    remedy = refused.stderr.rstrip().splitlines()[-1].removeprefix("  to fix: ")
    edit, _, command = remedy.partition(", then run: ")
    added = re.fullmatch(r'add "(.+)" to \[tool\.uv\] environments in \.\./\.\./pyproject\.toml', edit)
    assert added is not None, remedy
    pyproject = root / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace(environments, environments[:-1] + f', "{added.group(1)}"]'))
    armed = _sh(command, member, env)
    assert armed.returncode == 0, armed.stdout + armed.stderr
    assert {"testkit", "member", "beta"} <= set(installed(root / ".venv"))
