"""Shapes of uv projects seen on real ones (FastAPI, attrs), each on a lock real uv writes offline.

* A requirement declared twice, typically through two included groups (FastAPI's ``dev`` includes ``tests``
  and ``docs``, which both list ``pyyaml``; attrs' ``benchmark`` includes ``tests`` and lists
  ``pytest-xdist[psutil]`` again): uv records it once, so it is no drift, and a real change beside it still is,
  with ``uv lock`` as the remedy that clears it.
* A lock of a newer schema than this tierlock and its uv read: ``uv lock`` is no remedy (that uv refuses the
  file too), so the remedy says what is: a newer uv.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.support.uvproject import PYPROJECT, copy_project, tool, uv, uv_env, write_project

pytestmark = pytest.mark.slow

REPEATS = PYPROJECT.replace(
    'tools = ["beta", { include-group = "test" }]',
    'tools = ["beta", { include-group = "test" }]\n'
    'lint = ["testkit", "beta"]\n'
    'every = [{ include-group = "tools" }, { include-group = "lint" }, "beta"]',
).replace('dependencies = ["alpha>=1",', 'dependencies = ["alpha>=1", "alpha >= 1",')


@pytest.fixture(scope="module")
def env(uv_wheelhouse: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    return uv_env(uv_wheelhouse, tmp_path_factory.mktemp("uvcache"))


@pytest.fixture(scope="module")
def repeats(tmp_path_factory: pytest.TempPathFactory, env: dict[str, str]) -> Path:
    root = write_project(tmp_path_factory.mktemp("repeats") / "proj", REPEATS)
    uv(["lock"], root, env)
    return root


def _sh(command: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """A printed remedy, run exactly as printed."""
    return subprocess.run(["bash", "-c", command], cwd=cwd, env=env, capture_output=True, text=True, check=False)


def test_a_requirement_repeated_through_included_groups_is_no_drift(repeats: Path, env: dict[str, str]) -> None:
    assert uv(["lock", "--check"], repeats, env).returncode == 0
    result = tool("tierlock", ["check"], repeats, env)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.startswith("ok: ")


def test_a_real_change_beside_a_repeat_is_drift_and_uv_lock_as_printed_clears_it(
    repeats: Path, env: dict[str, str], tmp_path: Path
) -> None:
    project = copy_project(repeats, tmp_path / "proj")
    pyproject = project / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace('lint = ["testkit", "beta"]', 'lint = ["testkit", "beta<2"]'))
    code, report = _check_json(project, env)
    assert code == 1
    details = [f["detail"] for f in report["findings"]]
    assert details == [
        "uv.lock is out of date for pyproject.toml: group every: beta<2 added",
        "uv.lock is out of date for pyproject.toml: group lint: beta became beta<2",
    ]
    (remedy,) = {f["remedy"] for f in report["findings"]}
    assert _sh(remedy, project, env).returncode == 0
    code, report = _check_json(project, env)
    assert (code, report["ok"], report["problems"]) == (0, True, 0)


def _check_json(project: Path, env: dict[str, str]) -> tuple[int, dict[str, Any]]:
    result = tool("tierlock", ["check", "--json"], project, env)
    return result.returncode, json.loads(result.stdout)


def test_a_lock_of_a_newer_schema_names_a_newer_uv_and_never_uv_lock_which_refuses_it(
    repeats: Path, env: dict[str, str], tmp_path: Path
) -> None:
    project = copy_project(repeats, tmp_path / "proj")
    lock = project / "uv.lock"
    lock.write_text(lock.read_text().replace("version = 1\n", "version = 2\n", 1))
    refused = uv(["lock"], project, env, check=False)
    assert refused.returncode != 0  # the old remedy, as printed
    assert "unsupported schema version" in refused.stderr
    code, report = _check_json(project, env)
    assert code == 1
    (finding,) = report["findings"]
    assert "schema version 2" in finding["detail"]
    assert finding["remedy"].startswith("upgrade the uv tierlock runs (")
    assert "reads uv.lock schema version 2" in finding["remedy"]
    armed = tool("install-tier", ["base"], project, env)
    assert armed.returncode == 1  # the check before arming: nothing installed
    assert "to fix: upgrade the uv tierlock runs" in armed.stderr
