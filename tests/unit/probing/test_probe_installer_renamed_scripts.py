"""A pip installed by pip or uv: the installer names pip's versioned script after the target, not the wheel.

A pip wheel lists the console scripts of the interpreter that built it (pip 24.0: ``pip3.10``). pip and uv
both write ``pip``, ``pip3`` and ``pip3.X`` of the interpreter they install for instead (ensurepip's
``altinstall`` writes ``pip3.X`` alone). The probe read the missing ``pip3.10`` as an unfinished install: a tier
holding pip (pip-tools brings it) was partial after every ``install-tier``, whose own check then refused its
work ("still not present"), and its remedy was itself: it never converged. Seen on a real venv made by
``python -m venv`` on 3.12 (its bundled pip 23.2.1 lists ``pip3.11``) and on ``install-tier`` of ``pip==24.0``.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.env import clean_env, make_venv, site_packages
from tests.support.probe_env import uv_install
from tests.support.wheels import build_wheel
from tierlock.probing import probe_distribution

#: A minor version of Python 3 that is not this one: the wheel's builder.
BUILDER = f"3.{sys.version_info.minor - 1}"

PIP_FILES = {"pip/__init__.py": "def main():\n    return 0\n"}


def pip_wheel(house: Path, *, entry_points: str | None = None) -> Path:
    scripts = entry_points or f"[console_scripts]\npip = pip:main\npip3 = pip:main\npip{BUILDER} = pip:main\n"
    files = {**PIP_FILES, "pip-99.0.dist-info/entry_points.txt": scripts}
    return build_wheel(house, "pip", "99.0", files=files)


@pytest.fixture
def house(tmp_path: Path) -> Path:
    folder = tmp_path / "wheels"
    pip_wheel(folder)
    return folder


def test_pip_installed_by_uv_is_present_though_its_wheel_names_another_pythons_script(
    house: Path, tmp_path: Path
) -> None:
    python = make_venv(tmp_path / "venv")
    uv_install(python, house, "pip==99.0")
    result = probe_distribution("pip", paths=[site_packages(tmp_path / "venv")])
    assert result.state == "present", result.reasons


@pytest.mark.parametrize("ensurepip", [None, "altinstall", "install"])
def test_pip_installed_by_pip_is_present_whatever_scripts_it_chose_to_write(
    house: Path, tmp_path: Path, ensurepip: str | None
) -> None:
    python = make_venv(tmp_path / "venv")
    env = clean_env({"ENSUREPIP_OPTIONS": ensurepip} if ensurepip else None)
    argv = [sys.executable, "-m", "pip", "--python", str(python), "install", "--no-index", "--find-links", str(house)]
    subprocess.run([*argv, "pip==99.0"], check=True, env=env, capture_output=True)
    written = sorted(p.name for p in (tmp_path / "venv" / "bin").glob("pip*"))
    assert f"pip{BUILDER}" not in written  # the installer's own names, not the wheel's
    result = probe_distribution("pip", paths=[site_packages(tmp_path / "venv")])
    assert result.state == "present", (written, result.reasons)


def test_pip_whose_installer_wrote_none_of_its_scripts_is_still_unfinished(house: Path, tmp_path: Path) -> None:
    python = make_venv(tmp_path / "venv")
    uv_install(python, house, "pip==99.0")
    site = site_packages(tmp_path / "venv")
    record = next(site.glob("pip-99.0.dist-info")) / "RECORD"
    record.write_text("".join(line + "\n" for line in record.read_text().splitlines() if "/bin/" not in line))
    result = probe_distribution("pip", paths=[site])
    assert result.state == "partial"
    assert any("console scripts of its entry points are not installed: pip, pip3" in r for r in result.reasons)


def test_another_distributions_versioned_script_is_still_required(tmp_path: Path) -> None:
    house = tmp_path / "wheels"
    files = {
        "tool/__init__.py": "def main():\n    return 0\n",
        "tool-1.0.dist-info/entry_points.txt": f"[console_scripts]\ntool = tool:main\ntool{BUILDER} = tool:main\n",
    }
    build_wheel(house, "tool", "1.0", files=files)
    python = make_venv(tmp_path / "venv")
    uv_install(python, house, "tool==1.0")
    site = site_packages(tmp_path / "venv")
    record = next(site.glob("tool-1.0.dist-info")) / "RECORD"
    kept = [line for line in record.read_text().splitlines() if not line.startswith(f"../../../bin/tool{BUILDER},")]
    record.write_text("".join(line + "\n" for line in kept))
    result = probe_distribution("tool", paths=[site])
    assert result.state == "partial"
    assert any(f"not installed: tool{BUILDER}" in r for r in result.reasons), result.reasons
