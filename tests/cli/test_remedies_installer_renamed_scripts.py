"""The printed remedy of a tier whose closure holds pip converges (a real ``install-tier`` with uv, offline).

A pip wheel lists the console scripts of the interpreter that built it (pip 24.0: ``pip3.10``); uv and pip write
``pip3.X`` of the target instead. The probe read the missing ``pip3.10`` as an unfinished install, so
``install-tier`` refused its own work ("still not present") and printed itself as the remedy, forever
(the probe's side: tests/unit/probing/test_probe_installer_renamed_scripts.py).
"""

from __future__ import annotations

import sys
from pathlib import Path

from tests.support.env import make_venv
from tests.support.lockproj import lock_offline
from tests.support.pyproject import pyproject
from tests.support.remedywalk import STEPS, Scene, walk
from tests.support.remedywalk import present as healthy
from tests.unit.probing.test_probe_installer_renamed_scripts import pip_wheel

TOOLS = pyproject(
    dependencies=[],
    extras={"tools": ["pip==99.0"]},
    tiers={"tools": {"source": "extra:tools"}},
)


def test_the_printed_remedy_of_a_tier_holding_pip_converges(tmp_path: Path) -> None:
    house = tmp_path / "wheels"
    pip_wheel(house)
    root = lock_offline(tmp_path / "project", house, TOOLS)
    venv = tmp_path / "venv"
    make_venv(venv)
    scene = Scene("pip-tier", root, venv, house, tmp_path / "uv-cache")
    steps = walk(scene, ["tierlock", "probe", "tools", "--python", str(scene.python)], healthy("tools"))
    assert steps == 1 <= STEPS
    assert sorted(p.name for p in (venv / "bin").glob("pip*")) == [
        "pip",
        "pip3",
        f"pip{sys.version_info.major}.{sys.version_info.minor}",
    ]
