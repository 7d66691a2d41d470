"""The no-op fast path steps aside for a second metadata folder of a recorded package beside its own (files only):
``importlib.metadata`` may read the stray one, and the probe finds the package partial."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.venvshape import armed, project
from tierlock.installer import fastpath, receiptfiles
from tierlock.installer.location import environment_key

SITE = Path("lib/python3.11/site-packages")


@pytest.fixture
def venv(tmp_path: Path) -> Path:
    armed(tmp_path / "venv", project(tmp_path / "proj"))
    return tmp_path / "venv"


def check(venv: Path) -> tuple[fastpath.NoOp | None, str]:
    return fastpath.check(["brain"], venv, environment_key(venv), venv.parent / "proj" / "pyproject.toml")


@pytest.mark.parametrize(
    "stray", ["pkg-2.0.dist-info", "Pkg-0.9.dist-info", "pkg-1.0-py3.11.egg-info", "pkg.egg-info", "PKG-1.0.dist-info"]
)
def test_another_metadata_folder_of_a_recorded_package_is_no_noop(venv: Path, stray: str) -> None:
    (venv / SITE / stray).mkdir()
    assert check(venv) == (None, f"pkg: {stray} beside pkg-1.0.dist-info")


@pytest.mark.parametrize("other", ["pkgx-1.0.dist-info", "other_pkg-1.0.dist-info", "pkg-2.0.dist-info.tmp", "pkg"])
def test_another_packages_folder_or_no_metadata_folder_keeps_the_noop(venv: Path, other: str) -> None:
    (venv / SITE / other).mkdir(exist_ok=True)
    noop, why = check(venv)
    assert noop is not None, why


def test_a_site_folder_that_cannot_be_listed_finds_nothing_beside() -> None:
    assert (
        receiptfiles.beside([{"name": "pkg", "site": "nowhere", "dist_info": "pkg-1.0.dist-info"}], "/no/such", {})
        == ""
    )


def test_each_site_folder_is_listed_once_for_every_package_of_every_tier(venv: Path) -> None:
    listed: dict[str, dict[str, list[str]]] = {}
    row = {"name": "pkg", "site": str(SITE), "dist_info": "pkg-1.0.dist-info"}
    assert receiptfiles.beside([row, row], str(venv), listed) == ""
    assert list(listed) == [str(venv / SITE)]
    (venv / SITE / "pkg-2.0.dist-info").mkdir()
    assert receiptfiles.beside([row], str(venv), listed) == ""  # (what was listed is what this check saw)
