"""Packages of the project's tree under a marker: armed where ``uv sync`` arms them, and nowhere else.

A path dependency or workspace member that a tier needs only on some Pythons or platforms (``tierlock ;
python_version >= '3.11'`` in a test group that also runs on 3.10, ``winhelper ; sys_platform == 'win32'``) was
installed whatever the target: ``uv sync`` leaves it out, ``install-tier`` built it, and when its
``requires-python`` excluded the target the arming failed with "fix the cause shown above ... then run the same
install-tier command again", which failed the same way. The marker is the target's (another Python than
tierlock's own), read from uv.lock and from a PEP 751 lock alike.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.interpreters import interpreter
from tests.support.probe_env import BACKEND
from tests.support.uvproject import MEMBER, PYPROJECT, installed, tool, uv, uv_env, write_project

pytestmark = pytest.mark.slow

#: The test group needs ``oldtool`` (a path dependency for Pythons before 3.12 only, which it alone supports)
#: and ``winhelper`` (a workspace member, on Windows only).
MARKED = (
    PYPROJECT.replace(
        'test = ["testkit",',
        'test = ["testkit", "oldtool; python_version < \'3.12\'", "winhelper; sys_platform == \'win32\'",',
    )
    .replace(
        "member = { workspace = true }",
        "member = { workspace = true }\nwinhelper = { workspace = true }\n"
        'oldtool = { path = "tools/oldtool", editable = true }',
    )
    .replace('members = ["packages/member"]', 'members = ["packages/member", "packages/winhelper"]')
)


def _package(folder: Path, name: str, requires_python: str) -> None:
    (folder / "src" / name).mkdir(parents=True)
    pyproject = MEMBER.replace('name = "member"', f'name = "{name}"').replace('dependencies = ["beta<2"]', "")
    (folder / "pyproject.toml").write_text(
        pyproject.replace('requires-python = ">=3.11"', f'requires-python = "{requires_python}"'), encoding="utf-8"
    )
    (folder / "backend.py").write_text(BACKEND.format(name=name, version="0.2.0"), encoding="utf-8")
    (folder / "src" / name / "__init__.py").write_text("X = 1\n", encoding="utf-8")


@pytest.fixture(scope="module")
def env(uv_wheelhouse: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    return uv_env(uv_wheelhouse, tmp_path_factory.mktemp("uvcache"))


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory, env: dict[str, str]) -> Path:
    root = write_project(tmp_path_factory.mktemp("marked") / "proj", MARKED)
    _package(root / "tools" / "oldtool", "oldtool", ">=3.11,<3.12")
    _package(root / "packages" / "winhelper", "winhelper", ">=3.11")
    uv(["lock"], root, env)
    return root


@pytest.mark.parametrize("version", ["3.12.1", "3.13.0"])
def test_a_member_marked_away_from_the_targets_python_is_left_out_as_uv_sync_leaves_it(
    project: Path, env: dict[str, str], tmp_path: Path, version: str
) -> None:
    other = {**env, "UV_PYTHON": str(interpreter(version).python)}
    synced, armed = tmp_path / "synced", tmp_path / "armed"
    uv(["sync", "--no-default-groups", "--group", "test"], project, {**other, "UV_PROJECT_ENVIRONMENT": str(synced)})
    uv(["venv", str(armed)], project, other)
    result = tool("install-tier", ["test", "--python", str(armed), "--json"], project, env)
    assert result.returncode == 0, result.stdout + result.stderr
    assert installed(armed) == installed(synced)
    assert not {"oldtool", "winhelper"} & set(installed(armed))
    local = {row["name"] for row in json.loads(result.stdout)["local_packages"]}
    assert local == {"proj", "member"}
    again = tool("install-tier", ["test", "--python", str(armed), "--json"], project, env)
    assert json.loads(again.stdout)["result"] == "unchanged", again.stdout
    status = json.loads(tool("tierlock", ["status", "test", "--python", str(armed), "--json"], project, env).stdout)
    assert status["tiers"][0]["state"] == "present", status


def test_a_member_the_targets_python_admits_is_armed_and_the_platform_marked_one_is_not(
    project: Path, env: dict[str, str], tmp_path: Path
) -> None:
    synced, armed = tmp_path / "synced", tmp_path / "armed"
    uv(["sync", "--no-default-groups", "--group", "test"], project, {**env, "UV_PROJECT_ENVIRONMENT": str(synced)})
    uv(["venv", str(armed)], project, env)
    result = tool("install-tier", ["test", "--python", str(armed)], project, env)
    assert result.returncode == 0, result.stdout + result.stderr
    assert installed(armed) == installed(synced)
    assert installed(armed)["oldtool"] == "0.2.0"
    assert "winhelper" not in installed(armed)
