"""A package whose compiled code is a shared library in a ``.libs`` folder (what auditwheel vendors), probed
as every package of a tier's closure is: installed, at the locked version, METADATA and RECORD readable, every
file RECORD lists there with its size, the compiled ones named when they are missing, the import roots found.
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


def light(site: Path, locked_version: str | None = None) -> DistributionProbe:
    return probe_distribution("libpkg", paths=[site], locked_version=locked_version)


def test_every_file_of_record_is_checked_the_library_among_them(site: Path) -> None:
    result = light(site)
    assert result.state == "present"
    recorded = [f.record_path for f in result.files]
    assert LIB in recorded
    assert "libpkg/util.py" in recorded
    assert result.files_checked == len(recorded)


def test_a_missing_or_resized_shared_library_in_a_libs_folder_is_partial(site: Path) -> None:
    (site / LIB).write_bytes(b"\x7fELF")
    assert light(site).reasons == [f"file has another size than RECORD says: {LIB} (4 bytes, RECORD says 68)"]
    (site / LIB).unlink()
    assert light(site).reasons == [f"compiled artifact {LIB} is missing"]


def test_a_lost_package_folder_is_named_by_its_files_and_its_import_root(site: Path) -> None:
    shutil.rmtree(site / "libpkg")
    assert light(site).reasons == [
        "2 files listed in RECORD are missing: libpkg/__init__.py, libpkg/util.py",
        f"import root 'libpkg' (recorded) is missing from {site}",
    ]


def test_the_version_and_a_missing_metadata_still_count(site: Path) -> None:
    assert light(site, locked_version="2.0").reasons == ["installed version 1.0 differs from the locked 2.0"]
    (site / "libpkg-1.0.dist-info" / "METADATA").unlink()
    assert light(site).reasons[0].startswith("METADATA missing in ")


def test_a_quoted_record_is_read_as_csv(site: Path) -> None:
    record = site / "libpkg-1.0.dist-info" / "RECORD"
    lines = record.read_text().splitlines()
    record.write_text("\n".join(f'"{line.split(",")[0]}",' + ",".join(line.split(",")[1:]) for line in lines) + "\n")
    assert light(site).state == "present"
    (site / LIB).unlink()
    assert light(site).reasons == [f"compiled artifact {LIB} is missing"]


def test_a_pip_leftover_beside_a_package_is_still_found(site: Path) -> None:
    shutil.copytree(site / "libpkg", site / "~ibpkg")
    assert any(r.startswith("leftover ~ibpkg beside it") for r in light(site).reasons)
