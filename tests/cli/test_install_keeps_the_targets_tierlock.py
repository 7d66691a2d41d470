"""install-tier never breaks the tierlock installed in the target: the pytest plugin in a project's test environment.

The target is a real venv into which the wheel ``make dist`` builds was installed with pip (the plugin, as a
user installs it: tierlock and packaging). A tier whose lock would replace packaging with 23.2 (tierlock needs
``packaging.dependency_groups``, which came with 26.1) is refused before anything changes, naming both versions
and who requires what; the printed remedy, run exactly as printed, reaches a target that holds the tier and
either a working tierlock (the lock could move: relock with packaging upgraded) or none (the tier itself
declares ``packaging==23.2``: the two cannot share one environment). Offline: uv and pip read a local folder.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli.test_install_cli import index_env
from tests.support.dist import make_dist
from tests.support.env import bin_dir, clean_env, site_packages
from tests.support.repack import repack, repack_closure
from tests.support.tierproject import write_lock
from tests.support.wheels import build_wheel
from tierlock._version import __version__

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def plugin_house(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """tierlock's built wheel, and pytest with what it needs (packaging among them) repacked from here."""
    folder = tmp_path_factory.mktemp("plugin-house")
    make_dist(folder)
    repack_closure(["pytest"], folder)
    return folder


@pytest.fixture(scope="module")
def plugin_venv(plugin_house: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A test environment: a venv with pip, pytest and the plugin (``pip install pytest tierlock``); tests copy it."""
    venv = tmp_path_factory.mktemp("plugin-venv") / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, env=clean_env())
    env = clean_env({"PIP_NO_INDEX": "1", "PIP_FIND_LINKS": str(plugin_house)})
    subprocess.run(
        [str(venv / "bin" / "python"), "-m", "pip", "install", "-q", "pytest", "tierlock"], check=True, env=env
    )
    return venv


def _copy(venv: Path, dest: Path) -> Path:
    """A copy of *venv* at *dest* whose console scripts name its own interpreter (pip writes absolute shebangs)."""
    shutil.copytree(venv, dest, symlinks=True)
    for script in (dest / "bin").iterdir():
        if script.is_file() and not script.is_symlink():
            data = script.read_bytes()
            if data.startswith(b"#!"):
                script.write_bytes(data.replace(str(venv).encode(), str(dest).encode()))
    (dest / "pyvenv.cfg").write_text(
        (venv / "pyvenv.cfg").read_text(encoding="utf-8").replace(str(venv), str(dest)), encoding="utf-8"
    )
    return dest


def _env(links: Path, cache: Path) -> dict[str, str]:
    """The user's pip/uv configuration reads *links* only; PATH has this checkout's tierlock, install-tier and uv.

    uv has no variable for ``--no-index``: ``UV_OFFLINE`` with a cache of this test's own keeps it off the
    registry, which serves a real packaging newer than the stand-ins here.
    """
    env = clean_env({**index_env(links, cache), "UV_OFFLINE": "1"})
    env["PATH"] = os.pathsep.join([str(bin_dir()), "/usr/bin", "/bin"])
    return env


def _run(argv: list[str], *, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, check=False)


def _remedy(stderr: str) -> str:
    return stderr.split("to fix: ", 1)[1].strip()


def _plugin_works(venv: Path, env: dict[str, str]) -> bool:
    """pytest starts in *venv* with the tierlock plugin loaded."""
    run = _run([str(venv / "bin" / "python"), "-m", "pytest", "--version", "--version"], cwd=venv, env=env)
    return run.returncode == 0 and f"tierlock-{__version__}" in run.stdout + run.stderr


def _dist_infos(venv: Path) -> list[str]:
    return sorted(p.name for p in site_packages(venv).glob("*.dist-info"))


PROJECT = """\
[project]
name = "app"
version = "1"
requires-python = ">=3.11"
dependencies = []

[project.optional-dependencies]
{tier} = ["{root}"]

[tool.tierlock.tiers.{tier}]
"""


def test_a_tier_declaring_an_old_packaging_is_refused_with_both_versions_and_the_remedy_removes_the_plugin(
    plugin_venv: Path, tmp_path: Path
) -> None:
    installed = __import__("packaging").__version__
    links = tmp_path / "links"
    old = build_wheel(links, "packaging", "23.2")
    root = tmp_path / "app"
    root.mkdir()
    (root / "pyproject.toml").write_text(PROJECT.format(tier="old", root="packaging==23.2"), encoding="utf-8")
    write_lock(root, "base", [])
    write_lock(root, "old", [("packaging", "23.2", old)])
    venv = _copy(plugin_venv, tmp_path / "venv")
    env = _env(links, tmp_path / "uv-cache")
    before = _dist_infos(venv)
    assert f"tierlock-{__version__}.dist-info" in before

    refused = _run(["install-tier", "old", "--python", str(venv)], cwd=root, env=env)
    assert refused.returncode == 2, refused.stderr
    assert (
        f"refusing to replace packaging {installed} with 23.2 in {venv}: tierlock {__version__} is installed there "
        "and needs packaging>=26.1, or its pytest plugin would crash pytest there (1 package(s)); nothing was changed"
    ) in refused.stderr
    assert f"  - packaging: {installed} -> 23.2, but tierlock {__version__} requires packaging>=26.1" in refused.stderr
    assert (
        "  - old declares packaging==23.2: it and tierlock cannot share one environment (the fix below removes "
        "tierlock from it; to keep tierlock instead, relax that requirement and run tierlock lock base old)"
    ) in refused.stderr
    assert _dist_infos(venv) == before
    assert _plugin_works(venv, env)
    remedy = _remedy(refused.stderr)
    assert remedy == f"{venv / 'bin' / 'python'} -m pip uninstall --yes tierlock && install-tier old --python {venv}"

    fixed = _run(["sh", "-c", remedy], cwd=root, env=env)  # exactly as printed
    assert fixed.returncode == 0, fixed.stderr
    assert "old: installed" in fixed.stdout
    assert "packaging-23.2.dist-info" in _dist_infos(venv)
    assert not any(name.startswith("tierlock-") for name in _dist_infos(venv))  # no tierlock left to break
    again = _run(["install-tier", "old", "--python", str(venv)], cwd=root, env=env)
    assert again.returncode == 0, again.stderr
    assert "already present" in again.stdout


def test_a_lock_that_could_move_is_refused_and_the_remedy_relocks_it_keeping_the_plugin_working(
    plugin_venv: Path, tmp_path: Path
) -> None:
    links = tmp_path / "links"
    build_wheel(links, "packaging", "23.2")
    build_wheel(links, "oldlib", "1.0", requires=["packaging"])
    root = tmp_path / "app"
    root.mkdir()
    (root / "pyproject.toml").write_text(PROJECT.format(tier="brain", root="oldlib"), encoding="utf-8")
    env = _env(links, tmp_path / "uv-cache")
    locked = _run(["tierlock", "lock"], cwd=root, env=env)  # only packaging 23.2 to be had: it is pinned
    assert locked.returncode == 0, locked.stderr
    assert "packaging==23.2" in (root / "lockfiles" / "brain.txt").read_text(encoding="utf-8")
    repack("packaging", links)  # a newer packaging reaches the index later
    venv = _copy(plugin_venv, tmp_path / "venv")

    refused = _run(["install-tier", "brain", "--python", str(venv), "--json"], cwd=root, env=env)
    assert refused.returncode == 2, refused.stderr
    assert f"tierlock {__version__} requires packaging>=26.1" in refused.stderr
    assert "cannot share one environment" not in refused.stderr
    remedy = _remedy(refused.stderr)
    assert remedy == f"tierlock lock base brain --upgrade-package packaging && install-tier brain --python {venv}"
    assert f'"remedy": "{remedy}"' in refused.stdout
    assert '"package": "packaging"' in refused.stdout

    fixed = _run(["sh", "-c", remedy], cwd=root, env=env)  # exactly as printed
    assert fixed.returncode == 0, fixed.stderr
    assert "brain: installed" in fixed.stdout
    assert "oldlib-1.0.dist-info" in _dist_infos(venv)
    assert f"tierlock-{__version__}.dist-info" in _dist_infos(venv)
    assert _plugin_works(venv, env)  # the tier and a working plugin, side by side
