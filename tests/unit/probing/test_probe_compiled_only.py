"""How a tier's closure beyond its roots is probed: ``probe_distribution(..., compiled_only=True)``.

Installed, at the locked version, METADATA and RECORD readable, every compiled
artifact RECORD lists there with its size; the other files and the import
roots are left to ``--closure`` and the installer.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.support.env import make_venv, site_packages
from tests.support.probe_env import uv_install
from tests.support.wheels import build_wheel
from tierlock.probing import DistributionProbe, probe_distribution

LIB = "libpkg.libs/libz-1a2b.so.1.2.13"


@pytest.fixture(scope="module")
def wheelhouse(tmp_path_factory: pytest.TempPathFactory) -> Path:
    house = tmp_path_factory.mktemp("compiled-only-wheels")
    files: dict[str, bytes | str] = {
        "libpkg/__init__.py": "X = 1\n",
        "libpkg/util.py": "Y = 2\n",
        LIB: b"\x7fELF" + b"\0" * 64,
    }
    build_wheel(house, "libpkg", "1.0", files=files)
    return house


@pytest.fixture
def site(tmp_path: Path, wheelhouse: Path) -> Path:
    python = make_venv(tmp_path / "venv")
    uv_install(python, wheelhouse, "libpkg")
    return site_packages(tmp_path / "venv")


def light(site: Path, **kwargs: object) -> DistributionProbe:
    return probe_distribution("libpkg", paths=[site], compiled_only=True, **kwargs)  # type: ignore[arg-type]


def test_only_the_compiled_artifacts_are_stat_ed(site: Path) -> None:
    result = light(site)
    assert result.state == "present"
    assert result.files_checked == 1
    assert [f.record_path for f in result.files] == [LIB]


def test_a_missing_or_resized_shared_library_in_a_libs_folder_is_partial(site: Path) -> None:
    (site / LIB).write_bytes(b"\x7fELF")
    assert light(site).reasons == [f"file has another size than RECORD says: {LIB} (4 bytes, RECORD says 68)"]
    (site / LIB).unlink()
    assert light(site).reasons == [f"compiled artifact {LIB} is missing"]


def test_plain_files_and_import_roots_are_not_looked_at(site: Path) -> None:
    shutil.rmtree(site / "libpkg")
    assert light(site).state == "present"
    assert probe_distribution("libpkg", paths=[site]).state == "partial"  # the full probe sees it


def test_the_version_and_a_missing_metadata_still_count(site: Path) -> None:
    assert light(site, locked_version="2.0").reasons == ["installed version 1.0 differs from the locked 2.0"]
    (site / "libpkg-1.0.dist-info" / "METADATA").unlink()
    assert light(site).reasons[0].startswith("METADATA missing in ")


def test_a_quoted_record_is_read_as_csv(site: Path) -> None:
    record = site / "libpkg-1.0.dist-info" / "RECORD"
    lines = record.read_text().splitlines()
    record.write_text("\n".join(f'"{line.split(",")[0]}",' + ",".join(line.split(",")[1:]) for line in lines) + "\n")
    assert light(site).files_checked == 1
    (site / LIB).unlink()
    assert light(site).reasons == [f"compiled artifact {LIB} is missing"]


def test_a_pip_leftover_beside_a_package_is_still_found(site: Path) -> None:
    shutil.copytree(site / "libpkg", site / "~ibpkg")
    assert any(r.startswith("leftover ~ibpkg beside it") for r in light(site).reasons)
