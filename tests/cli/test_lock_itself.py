"""A tier whose closure reaches the project itself: the lockfile never pins the project from the index,
and install-tier never replaces the project's own install (real uv, real pip-tools, local wheels)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tests.support.cli import run_cli
from tests.support.env import bin_dir, clean_env, make_venv, site_packages
from tests.support.lockproj import offline, write_project
from tests.support.tierproject import write_lock
from tests.support.wheels import build_wheel
from tierlock.lockfiles import load

PYPROJECT = """\
[project]
name = "self-ref"
version = "1.0"
requires-python = ">=3.11"
dependencies = []

[project.optional-dependencies]
gs = ["plugin>=1"]

[tool.tierlock]
lock-dir = "lockfiles"
{extra}
[tool.tierlock.tiers.gs]
source = "extra:gs"
"""


@pytest.fixture(scope="session")
def index(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The "index": plugin (which depends back on the project) and a released copy of the project."""
    folder = tmp_path_factory.mktemp("self-index")
    build_wheel(folder, "plugin", "1.0", requires=["self-ref>=0.5"])
    build_wheel(folder, "self-ref", "0.9")
    return folder


@pytest.mark.parametrize(("backend", "fmt"), [("uv", "requirements"), ("pip", "requirements"), ("uv", "pylock")])
def test_a_closure_reaching_the_project_leaves_it_unpinned_and_says_so(
    tmp_path: Path, index: Path, capsys: pytest.CaptureFixture[str], backend: str, fmt: str
) -> None:
    extra = 'format = "pylock"\n' if fmt == "pylock" else ""
    folder = write_project(tmp_path / "proj", PYPROJECT.format(extra=extra))
    if fmt == "pylock":  # a pylock names the wheels it found: they must lie inside the project
        index = Path(shutil.copytree(index, folder / "wheels"))
    code, _, err = run_cli(capsys, "--project", str(folder), "lock", "gs", "--backend", backend, *offline(index))
    assert code == 0, err
    path = folder / ("lockfiles/gs.txt" if fmt == "requirements" else "lockfiles/pylock.gs.toml")
    text = path.read_text(encoding="utf-8")
    assert "# self-ref: the project itself - not pinned" in text
    assert "self-ref==" not in text
    assert 'name = "self-ref"' not in text
    names = {str(e.name) for e in load(path).entries}
    assert "plugin" in names
    assert "self-ref" not in names
    assert run_cli(capsys, "--project", str(folder), "check", "gs")[0] == 0


def test_install_tier_never_replaces_the_projects_own_install(
    tmp_path: Path, index: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = write_project(tmp_path / "proj", PYPROJECT.format(extra=""))
    # A lockfile that still pins the project from the index (an older tierlock wrote it so): even then
    # install-tier leaves the project's own install alone.
    pins = [("plugin", "1.0", index / "plugin-1.0-py3-none-any.whl")]
    write_lock(folder, "base", [])
    lockfile = write_lock(folder, "gs", [*pins, ("self-ref", "0.9", index / "self_ref-0.9-py3-none-any.whl")])
    assert "self-ref==0.9" in lockfile.read_text(encoding="utf-8")
    assert run_cli(capsys, "--project", str(folder), "check", "gs")[0] == 0
    venv = tmp_path / "venv"
    make_venv(venv)
    own = build_wheel(tmp_path / "own", "self-ref", "1.0")  # the project's own install (from its tree)
    env = clean_env({"UV_NO_INDEX": "1", "UV_FIND_LINKS": str(index), "UV_CACHE_DIR": str(tmp_path / "cache")})
    subprocess.run(
        [str(bin_dir() / "uv"), "pip", "install", "--python", str(venv / "bin" / "python"), "--no-deps", str(own)],
        env=env,
        check=True,
        capture_output=True,
    )
    before = lockfile.read_text(encoding="utf-8")
    run = subprocess.run(
        [str(bin_dir() / "install-tier"), "gs", "--project", str(folder), "--python", str(venv)],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert run.returncode == 0, run.stderr
    site = site_packages(venv)
    assert (site / "plugin-1.0.dist-info").is_dir()
    assert (site / "self_ref-1.0.dist-info").is_dir()  # still the project's own version
    assert not (site / "self_ref-0.9.dist-info").exists()
    assert lockfile.read_text(encoding="utf-8") == before
    shutil.rmtree(venv)
