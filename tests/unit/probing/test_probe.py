"""The probe, against real wheels installed by the real uv into real virtual environments.

Every verdict is shown to flip: the scenario is first probed present, then
broken the way it breaks in the field, then probed again.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from packaging.version import Version

from tests.support.env import clean_env, make_venv, site_packages
from tests.support.probe_env import build_c_extension_wheel, editable_project, uv_install
from tests.support.wheels import EXT_SUFFIX, build_wheel
from tierlock.probing import DistributionProbe, SiteIndex, is_compiled, probe_distribution
from tierlock.probing.site import pip_leftover_of


@pytest.fixture(scope="session")
def wheelhouse(tmp_path_factory: pytest.TempPathFactory) -> Path:
    house = tmp_path_factory.mktemp("wheelhouse")
    build_wheel(house, "alpha", "1.0")
    build_wheel(house, "beta", "2.0", extension=True)
    build_wheel(house, "gamma", "1.0+cu121")
    build_c_extension_wheel(house, "cext", "1.0")
    build_wheel(house, "dpkg", "1.0", files={"dpkg/__init__.py": "X = 1\n", "licenses/LICENSE.txt": "MIT\n"})
    vendored: dict[str, bytes | str] = {
        "libpkg/__init__.py": "X = 1\n",
        "libpkg.libs/libz-1a2b.so.1.2.13": b"\x7fELF" + b"\0" * 64,
    }
    build_wheel(house, "libpkg", "1.0", files=vendored)
    return house


@pytest.fixture
def venv(tmp_path: Path) -> Path:
    """A fresh virtual environment (returns its folder)."""
    make_venv(tmp_path / "venv")
    return tmp_path / "venv"


def install(venv: Path, wheelhouse: Path, *names: str) -> Path:
    uv_install(venv / "bin" / "python", wheelhouse, *names)
    return site_packages(venv)


def probe_in(site: Path, name: str, **kwargs: object) -> DistributionProbe:
    return probe_distribution(name, paths=[site], **kwargs)  # type: ignore[arg-type]


def test_probe_is_absent_without_a_dist_info(venv: Path) -> None:
    result = probe_in(site_packages(venv), "alpha")
    assert result.state == "absent"
    assert not result.present
    assert "no .dist-info for alpha" in result.reasons[0]
    assert result.files_checked == 0


def test_probe_is_present_for_a_whole_install_and_lists_files_with_recorded_sizes(venv: Path, wheelhouse: Path) -> None:
    site = install(venv, wheelhouse, "alpha")
    result = probe_in(site, "Alpha")
    assert result.state == "present", result.reasons
    assert result.version == Version("1.0")
    assert result.dist_info == site / "alpha-1.0.dist-info"
    assert result.import_roots == ("alpha",)
    assert result.files_checked == len(result.files) > 0
    sized = [f for f in result.files if f.size is not None]
    assert sized
    assert all(os.stat(f.path).st_size == f.size for f in sized)


def test_deleted_extension_named_file_turns_present_into_partial(venv: Path, wheelhouse: Path) -> None:
    site = install(venv, wheelhouse, "beta")
    assert probe_in(site, "beta").state == "present"
    (site / "beta" / f"_core{EXT_SUFFIX}").unlink()
    result = probe_in(site, "beta")
    assert result.state == "partial"
    assert f"compiled artifact beta/_core{EXT_SUFFIX} is missing" in result.reasons


def test_deleted_real_c_extension_turns_present_into_partial(venv: Path, wheelhouse: Path) -> None:
    site = install(venv, wheelhouse, "cext")
    python = venv / "bin" / "python"
    imported = subprocess.run(
        [str(python), "-c", "import cext; print(cext.answer())"],
        check=False,
        capture_output=True,
        text=True,
        env=clean_env(),
    )
    assert imported.stdout.strip() == "42", imported.stderr  # a real, loadable extension
    assert probe_in(site, "cext").state == "present"
    (site / "cext" / f"_speedups{EXT_SUFFIX}").unlink()
    result = probe_in(site, "cext")
    assert result.state == "partial"
    assert result.reasons == [f"compiled artifact cext/_speedups{EXT_SUFFIX} is missing"]
    broken = subprocess.run(
        [str(python), "-c", "import cext"], check=False, capture_output=True, text=True, env=clean_env()
    )
    assert broken.returncode != 0  # what the probe predicted without importing


def test_deleted_vendored_shared_library_turns_present_into_partial(venv: Path, wheelhouse: Path) -> None:
    site = install(venv, wheelhouse, "libpkg")
    assert probe_in(site, "libpkg").state == "present"
    (site / "libpkg.libs" / "libz-1a2b.so.1.2.13").unlink()
    result = probe_in(site, "libpkg")
    assert result.state == "partial"
    assert result.reasons == ["compiled artifact libpkg.libs/libz-1a2b.so.1.2.13 is missing"]


@pytest.mark.parametrize(
    ("path", "compiled"),
    [
        (f"pkg/_core{EXT_SUFFIX}", True),
        ("pkg/_core.abi3.so", True),
        ("pkg.libs/libgomp-a34b3233.so.1.0.0", True),
        ("pkg/_core.pyd", True),
        ("pkg/bin/zlib.dll", True),
        ("pkg/.dylibs/libomp.dylib", True),
        ("pkg/__init__.py", False),
        ("pkg/solver.source", False),
        ("pkg/data.so.txt", False),
    ],
)
def test_compiled_artifacts_are_recognised_by_their_suffix(path: str, compiled: bool) -> None:
    assert is_compiled(path) is compiled


def test_deleted_package_folder_with_dist_info_kept_is_partial(venv: Path, wheelhouse: Path) -> None:
    site = install(venv, wheelhouse, "alpha")
    assert probe_in(site, "alpha").state == "present"
    shutil.rmtree(site / "alpha")
    result = probe_in(site, "alpha")
    assert result.state == "partial"
    assert "file listed in RECORD is missing: alpha/__init__.py" in result.reasons
    assert any("import root 'alpha' (recorded) is missing" in r for r in result.reasons)


def test_requested_only_dist_info_is_a_partial_husk(venv: Path, wheelhouse: Path) -> None:
    site = install(venv, wheelhouse, "alpha")
    assert probe_in(site, "alpha").state == "present"
    dist_info = site / "alpha-1.0.dist-info"
    for entry in dist_info.iterdir():
        entry.unlink()
    (dist_info / "REQUESTED").write_text("")
    result = probe_in(site, "alpha")
    assert result.state == "partial"
    assert result.version is None
    assert any("METADATA missing" in r and "holds only REQUESTED" in r for r in result.reasons)
    assert any("RECORD missing" in r for r in result.reasons)


def test_metadata_without_a_version_is_partial(venv: Path, wheelhouse: Path) -> None:
    site = install(venv, wheelhouse, "alpha")
    assert probe_in(site, "alpha").state == "present"
    (site / "alpha-1.0.dist-info" / "METADATA").write_text("Metadata-Version: 2.1\nName: alpha\n")
    result = probe_in(site, "alpha")
    assert result.state == "partial"
    assert any("has no Version" in r for r in result.reasons)


def test_pip_tilde_leftover_beside_the_package_is_partial(venv: Path, wheelhouse: Path) -> None:
    site = install(venv, wheelhouse, "alpha")
    assert probe_in(site, "alpha").state == "present"
    shutil.copytree(site / "alpha", site / "~lpha")  # what an interrupted `pip uninstall` leaves
    result = probe_in(site, "alpha")
    assert result.state == "partial"
    assert any(r.startswith("leftover ~lpha beside it") for r in result.reasons)


def test_pip_leftover_names_follow_pips_renaming() -> None:
    assert pip_leftover_of("~umpy", "numpy")
    assert pip_leftover_of("~~mpy", "numpy")
    assert pip_leftover_of("~umpy-1.0.dist-info", "numpy-1.0.dist-info")
    assert not pip_leftover_of("~umpy", "scipy")
    assert not pip_leftover_of("~lpha2", "alpha")
    assert not pip_leftover_of("numpy", "numpy")


def test_duplicate_dist_info_on_two_path_entries_is_partial(venv: Path, wheelhouse: Path, tmp_path: Path) -> None:
    site = install(venv, wheelhouse, "alpha")
    other = tmp_path / "other-site"
    uv_install(None, wheelhouse, "alpha", target=other)
    assert probe_distribution("alpha", paths=[site]).state == "present"
    assert probe_distribution("alpha", paths=[other]).state == "present"
    result = probe_distribution("alpha", paths=[site, other])
    assert result.state == "partial"
    assert result.dist_info == site / "alpha-1.0.dist-info"  # the first on the path
    assert any(r.startswith("2 .dist-info folders for alpha on the path") for r in result.reasons)


def test_editable_install_is_present_editable_without_checking_its_sources(venv: Path, tmp_path: Path) -> None:
    source = editable_project(tmp_path / "edpkg")
    uv_install(venv / "bin" / "python", tmp_path, editable=source)
    site = site_packages(venv)
    result = probe_in(site, "edpkg", import_roots=["edpkg"])
    assert result.state == "present-editable", result.reasons
    assert result.present
    assert result.editable_source == source
    assert any("sources are not RECORD-checked" in n for n in result.notes)
    shutil.rmtree(source / "src" / "edpkg")
    broken = probe_in(site, "edpkg", import_roots=["edpkg"])
    assert broken.state == "partial"
    assert any("import root 'edpkg' (declared) is missing" in r for r in broken.reasons)


def test_wrong_version_against_the_lock_is_partial(venv: Path, wheelhouse: Path) -> None:
    site = install(venv, wheelhouse, "alpha")
    assert probe_in(site, "alpha", locked_version=Version("1.0")).state == "present"
    result = probe_in(site, "alpha", locked_version=Version("1.1"))
    assert result.state == "partial"
    assert result.reasons == ["installed version 1.0 differs from the locked 1.1"]


def test_local_version_label_counts_in_the_version_comparison(venv: Path, wheelhouse: Path) -> None:
    site = install(venv, wheelhouse, "gamma")
    assert probe_in(site, "gamma", locked_version=Version("1.0+cu121")).state == "present"
    result = probe_in(site, "gamma", locked_version=Version("1.0+cu118"))
    assert result.state == "partial"
    assert result.reasons == [
        "installed version 1.0+cu121 differs from the locked 1.0+cu118 (the local version labels differ)"
    ]


def test_file_of_another_size_is_partial(venv: Path, wheelhouse: Path) -> None:
    site = install(venv, wheelhouse, "alpha")
    assert probe_in(site, "alpha").state == "present"
    with (site / "alpha" / "__init__.py").open("a") as fh:
        fh.write("# grown\n")
    result = probe_in(site, "alpha")
    assert result.state == "partial"
    assert any(r.startswith("file has another size than RECORD says: alpha/__init__.py") for r in result.reasons)


def test_deep_probe_names_files_whose_hash_differs(venv: Path, wheelhouse: Path) -> None:
    site = install(venv, wheelhouse, "alpha")
    target = site / "alpha" / "__init__.py"
    target.write_text(target.read_text().replace("1.0", "9.9"))  # same size, other bytes
    assert probe_in(site, "alpha").state == "present"
    result = probe_in(site, "alpha", deep=True)
    assert result.state == "partial"
    assert "file does not match its RECORD hash: alpha/__init__.py" in result.reasons


def test_empty_import_root_folder_is_partial(venv: Path, wheelhouse: Path) -> None:
    site = install(venv, wheelhouse, "alpha")
    assert probe_in(site, "alpha", import_roots=["alpha"]).state == "present"
    (site / "alpha" / "__init__.py").unlink()
    (site / "alpha" / "sub").mkdir()
    result = probe_in(site, "alpha", import_roots=["alpha"])
    assert result.state == "partial"
    assert any("import root 'alpha' is an empty or namespace-only directory" in r for r in result.reasons)


def test_a_data_only_folder_at_the_top_of_site_packages_is_not_an_import_root(venv: Path, wheelhouse: Path) -> None:
    site = install(venv, wheelhouse, "dpkg")
    result = probe_in(site, "dpkg")
    assert result.state == "present", result.reasons
    assert result.import_roots == ("dpkg",)
    (site / "dpkg" / "__init__.py").unlink()
    broken = probe_in(site, "dpkg")
    assert broken.state == "partial"
    assert any("import root 'dpkg' is an empty or namespace-only directory" in r for r in broken.reasons)
    assert not any("licenses" in r for r in broken.reasons)


def test_missing_record_is_partial(venv: Path, wheelhouse: Path) -> None:
    site = install(venv, wheelhouse, "alpha")
    assert probe_in(site, "alpha").state == "present"
    (site / "alpha-1.0.dist-info" / "RECORD").unlink()
    result = probe_in(site, "alpha")
    assert result.state == "partial"
    assert any(r.startswith("RECORD missing") for r in result.reasons)


def test_one_index_serves_many_distributions(venv: Path, wheelhouse: Path) -> None:
    site = install(venv, wheelhouse, "alpha", "beta")
    index = SiteIndex.scan([site, site])  # the same folder twice is scanned once
    assert index.sites == (str(site),)
    states = {n: probe_distribution(n, index=index).state for n in ("alpha", "beta", "gamma")}
    assert states == {"alpha": "present", "beta": "present", "gamma": "absent"}
