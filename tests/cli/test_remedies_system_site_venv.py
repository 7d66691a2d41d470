"""The printed remedy converges in a venv that includes the system site-packages (a real ``install-tier``, offline).

The tier holds pip, which the base interpreter has too: ``install-tier`` puts the locked pip into the venv, as pip
and uv install there, and the venv's copy shadows the base's. The probe called that "2 .dist-info folders ...
partial", so install-tier refused its own work and printed itself as the remedy, forever
(the probe's side: tests/unit/probing/test_probe_system_site_venv.py).
"""

from __future__ import annotations

import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from tests.support.env import clean_env
from tests.support.lockproj import lock_offline
from tests.support.pyproject import pyproject
from tests.support.remedywalk import Scene, walk
from tests.support.remedywalk import present as healthy
from tests.unit.probing.test_probe_installer_renamed_scripts import pip_wheel

TOOLS = pyproject(dependencies=[], extras={"tools": ["pip==99.0"]}, tiers={"tools": {"source": "extra:tools"}})


def test_the_remedy_of_a_tier_whose_package_the_base_has_too_converges_in_a_system_site_venv(tmp_path: Path) -> None:
    base_site = Path(sysconfig.get_paths(vars={"base": sys.base_prefix, "platbase": sys.base_prefix})["purelib"])
    if not any(base_site.glob("pip-*.dist-info")):
        pytest.skip(f"the base interpreter has no pip in {base_site}")
    house = tmp_path / "wheels"
    pip_wheel(house)
    root = lock_offline(tmp_path / "project", house, TOOLS)
    venv = tmp_path / "venv"
    argv = [sys.executable, "-m", "venv", "--without-pip", "--system-site-packages", str(venv)]
    subprocess.run(argv, check=True, env=clean_env())
    scene = Scene("system-site", root, venv, house, tmp_path / "uv-cache")
    assert walk(scene, ["tierlock", "probe", "tools", "--python", str(scene.python)], healthy("tools")) == 1
    done = scene.tierlock("probe", "tools", "-v")
    assert "shadows " in done.stdout, done.stdout
