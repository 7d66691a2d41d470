"""``install-tier`` arms the project itself from its tree, editable and without dependencies, as ``uv sync`` does.

A project that is a package (it has a ``[build-system]``) gets installed
editable after its tier's pinned packages, with uv or pip, into a real
virtual environment; ``--no-install-project`` leaves it out, and a project that
is not a package is never built. The receipt covers the project's own
install, so the no-op fast path notices when it is gone.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.support.tierproject import make_project, offline_env, package_project
from tests.support.uvproject import editable_source, installed, tool

pytestmark = pytest.mark.slow


@pytest.fixture
def env(wheelhouse: dict[str, Path], tmp_path: Path) -> dict[str, str]:
    return offline_env(wheelhouse, tmp_path / "cache")


def _package(root: Path, wheelhouse: dict[str, Path]) -> Path:
    return package_project(root, wheelhouse)


@pytest.mark.parametrize("backend", ["uv", "pip"])
def test_the_project_itself_is_armed_editable_from_its_tree(
    wheelhouse: dict[str, Path], env: dict[str, str], tmp_path: Path, backend: str
) -> None:
    root = _package(tmp_path / "app", wheelhouse)
    result = tool("install-tier", ["brain", "--backend", backend, "--json"], root, env)
    assert result.returncode == 0, result.stderr
    document = json.loads(result.stdout)
    assert [(p["name"], p["action"], p["editable"]) for p in document["local_packages"]] == [("app", "install", True)]
    assert editable_source(root / ".venv", "app") == root.as_uri()
    assert installed(root / ".venv")["corelib"] == "1.0"
    again = tool("install-tier", ["brain", "--backend", backend], root, env)
    assert "nothing to do" in again.stdout


def test_the_fast_path_notices_the_project_is_gone_and_install_tier_arms_it_again(
    wheelhouse: dict[str, Path], env: dict[str, str], tmp_path: Path
) -> None:
    root = _package(tmp_path / "app", wheelhouse)
    assert tool("install-tier", ["brain"], root, env).returncode == 0
    site = next((root / ".venv" / "lib").glob("python3*/site-packages"))
    shutil.rmtree(next(site.glob("app-*.dist-info")))
    again = tool("install-tier", ["brain", "--json"], root, env)
    assert json.loads(again.stdout)["result"] == "installed", again.stdout
    assert editable_source(root / ".venv", "app") == root.as_uri()


def test_no_install_project_leaves_the_project_out_and_its_remedies_keep_the_flag(
    wheelhouse: dict[str, Path], env: dict[str, str], tmp_path: Path
) -> None:
    root = _package(tmp_path / "app", wheelhouse)
    result = tool("install-tier", ["brain", "--no-install-project", "--json"], root, env)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["local_packages"] == []
    assert "app" not in installed(root / ".venv")
    from tierlock.installer.run import Request

    assert Request(("brain",), install_project=False).command(["brain"]) == "install-tier brain --no-install-project"


def test_a_project_that_is_not_a_package_is_never_built(
    wheelhouse: dict[str, Path], env: dict[str, str], tmp_path: Path
) -> None:
    root = make_project(tmp_path / "app", wheelhouse)  # no [build-system]: nothing of its own to install
    result = tool("install-tier", ["brain", "--json"], root, env)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["local_packages"] == []
    assert "app" not in installed(root / ".venv")


def test_a_project_whose_build_fails_gets_the_backends_reason_and_a_way_past_it(
    wheelhouse: dict[str, Path], env: dict[str, str], tmp_path: Path
) -> None:
    root = _package(tmp_path / "app", wheelhouse)
    (root / "backend.py").write_text("raise RuntimeError('the build backend is broken')\n", encoding="utf-8")
    result = tool("install-tier", ["brain"], root, env)
    assert result.returncode == 3
    assert "from the project tree" in result.stderr
    assert "--no-install-project" in result.stderr
    assert tool("install-tier", ["brain", "--no-install-project"], root, env).returncode == 0
