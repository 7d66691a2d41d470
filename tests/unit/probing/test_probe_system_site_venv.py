"""A venv made with ``include-system-site-packages = true``: its own install shadows the base interpreter's.

Re-running "one truth about the target" on such a venv (``python -m venv --system-site-packages``): a tier
holding a distribution the base interpreter also has (pip, say) was armed into the venv, as pip and uv do, and
the probe then said "partial — 2 .dist-info folders for pip on the path; which one Python uses depends on the
path order": install-tier refused its own work ("still not present") and printed itself as the remedy, forever.
The path order is the target's: the venv's site folder comes first, and the base's copy is shadowed by design.
Two copies anywhere else (two folders of one venv, a venv without the system site) stay partial.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.env import clean_env, site_packages
from tests.support.probe_env import uv_install
from tests.support.wheels import build_wheel
from tierlock.probing import probe_distribution


@pytest.fixture
def house(tmp_path: Path) -> Path:
    folder = tmp_path / "wheels"
    build_wheel(folder, "alpha", "1.0")
    build_wheel(folder, "alpha", "2.0")
    return folder


def _venv(folder: Path, *, system_site: bool) -> Path:
    argv = [sys.executable, "-m", "venv", "--without-pip", *(["--system-site-packages"] if system_site else [])]
    subprocess.run([*argv, str(folder)], check=True, env=clean_env())
    uv_install(folder / "bin" / "python", folder.parent / "wheels", "alpha==2.0")
    return site_packages(folder)


def _base_site(tmp_path: Path, house: Path) -> Path:
    """A site folder outside the venv holding alpha 1.0: the base interpreter's, as the venv sees it."""
    base = tmp_path / "base" / "lib" / "site-packages"
    uv_install(None, house, "alpha==1.0", target=base)
    return base


def test_a_venv_that_includes_the_system_site_shadows_the_bases_copy(house: Path, tmp_path: Path) -> None:
    site = _venv(tmp_path / "venv", system_site=True)
    result = probe_distribution("alpha", paths=[site, _base_site(tmp_path, house)])
    assert result.state == "present", result.reasons
    assert result.version_text == "2.0"
    assert any(n.startswith("shadows ") and "alpha-1.0.dist-info" in n for n in result.notes), result.notes


def test_a_venv_without_the_system_site_and_two_copies_on_its_path_is_still_partial(
    house: Path, tmp_path: Path
) -> None:
    site = _venv(tmp_path / "venv", system_site=False)
    result = probe_distribution("alpha", paths=[site, _base_site(tmp_path, house)])
    assert result.state == "partial"
    assert any(r.startswith("2 .dist-info folders for alpha on the path") for r in result.reasons)


def test_two_copies_inside_the_venv_itself_are_still_partial(house: Path, tmp_path: Path) -> None:
    site = _venv(tmp_path / "venv", system_site=True)
    inner = tmp_path / "venv" / "extra-site"
    uv_install(None, house, "alpha==1.0", target=inner)
    result = probe_distribution("alpha", paths=[site, inner])
    assert result.state == "partial"


def test_the_base_copy_first_on_the_path_is_still_partial(house: Path, tmp_path: Path) -> None:
    """Only the venv's own copy, first, shadows by design; the base's first is not the install the venv made."""
    site = _venv(tmp_path / "venv", system_site=True)
    result = probe_distribution("alpha", paths=[_base_site(tmp_path, house), site])
    assert result.state == "partial"
