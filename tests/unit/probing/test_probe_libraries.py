"""The probe looks up the shared libraries each extension needs as the dynamic loader does, and agrees with it.

Real ELF files built with the C compiler at test time (skipped, with the reason, where there is none),
packed into real wheels and installed by the real uv into real virtual environments. In every case the
real ``import`` in the target is the witness: where it fails with "cannot open shared object file",
the probe says partial and names the library; where it works, the probe says present.
"""

from __future__ import annotations

import json
import marshal
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.env import clean_env, make_venv, site_packages
from tests.support.native import build_extension, build_library, needs_compiler, readelf_dynamic
from tests.support.probe_env import platform_tag, uv_install
from tests.support.wheels import EXT_SUFFIX, build_wheel
from tierlock.probing import DistributionProbe, probe_distribution
from tierlock.probing.elf import read_file

pytestmark = needs_compiler


def native_wheel(house: Path, name: str, extension: Path, libs: dict[str, Path] | None = None) -> Path:
    """A platform wheel: ``name/__init__.py`` importing the extension ``name/_native``, and *libs* (path -> file)."""
    files: dict[str, bytes | str] = {
        f"{name}/__init__.py": "from ._native import value\n",
        f"{name}/_native{EXT_SUFFIX}": extension.read_bytes(),
    }
    files.update({rel: path.read_bytes() for rel, path in (libs or {}).items()})
    return build_wheel(house, name, "1.0", files=files, tag=platform_tag(), extension=True)


def imports(venv: Path, name: str, env: dict[str, str] | None = None) -> str:
    """What ``import name; name.value()`` prints in the target ("7"...), or the error it fails with."""
    proc = subprocess.run(
        [str(venv / "bin" / "python"), "-c", f"import {name}; print({name}.value())"],
        capture_output=True,
        text=True,
        env=clean_env(env),
        check=False,
    )
    return proc.stdout.strip() if proc.returncode == 0 else proc.stderr.strip().splitlines()[-1]


def probe(venv: Path, name: str) -> DistributionProbe:
    return probe_distribution(name, paths=[site_packages(venv)])


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The libraries, extensions and wheels of this module, compiled once."""
    root = tmp_path_factory.mktemp("native")
    house = root / "wheels"
    out: dict[str, Path] = {"root": root, "house": house}
    # An extension that needs a library installed outside the environment (found through an absolute runpath).
    system = build_library(root / "opt" / "lib", "libtierdep.so.1")
    out["system"] = system.path
    native_wheel(
        house,
        "syspkg",
        build_extension(root / "sys", "_native", EXT_SUFFIX, needs=[system], runpath=str(system.path.parent)),
    )
    # An extension whose library travels in the wheel's own .libs folder, found through $ORIGIN.
    bundled = build_library(root / "bundled", "libbundled-0a1b2c3d.so.1")
    ext = build_extension(root / "orig", "_native", EXT_SUFFIX, needs=[bundled], runpath="$ORIGIN/../origpkg.libs")
    native_wheel(house, "origpkg", ext, {"origpkg.libs/libbundled-0a1b2c3d.so.1": bundled.path})
    # A library that needs another one, from the extension's RPATH (inherited) or RUNPATH (not inherited).
    inner = build_library(root / "chain", "libinner.so.1")
    outer = build_library(root / "chain", "libouter.so.1", needs=[inner])
    libs = {"PKG.libs/libinner.so.1": inner.path, "PKG.libs/libouter.so.1": outer.path}
    for name, how in (("rpathpkg", "rpath"), ("runpathpkg", "runpath")):
        ext = build_extension(root / name, "_native", EXT_SUFFIX, needs=[outer], **{how: f"$ORIGIN/../{name}.libs"})
        native_wheel(house, name, ext, {k.replace("PKG", name): v for k, v in libs.items()})
    # An extension that finds its library only through LD_LIBRARY_PATH.
    loose = build_library(root / "ldpath", "libloose.so.2")
    out["ldpath"] = loose.path.parent
    native_wheel(house, "ldpkg", build_extension(root / "ld", "_native", EXT_SUFFIX, needs=[loose]))
    return out


@pytest.fixture
def venv(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.delenv("LD_LIBRARY_PATH", raising=False)
    monkeypatch.setenv("TIERLOCK_CACHE_DIR", str(tmp_path / "cache"))
    make_venv(tmp_path / "venv")
    return tmp_path / "venv"


def test_an_extension_whose_system_library_was_removed_is_partial_naming_the_library_until_it_is_back(
    built: dict[str, Path], venv: Path, tmp_path: Path
) -> None:
    uv_install(venv / "bin" / "python", built["house"], "syspkg")
    assert imports(venv, "syspkg") == "7"
    assert probe(venv, "syspkg").state == "present"

    library, aside = built["system"], tmp_path / "aside.so"
    shutil.move(library, aside)
    try:
        assert "libtierdep.so.1: cannot open shared object file" in imports(venv, "syspkg")
        broken = probe(venv, "syspkg")
        assert broken.state == "partial"
        artifact = f"syspkg/_native{EXT_SUFFIX}"
        assert broken.reasons == [
            f"compiled artifact {artifact} needs libtierdep.so.1, which the dynamic loader cannot find"
        ]
        assert broken.missing_libraries == ((artifact, "libtierdep.so.1", None),)
        assert broken.to_dict()["missing_libraries"] == [
            {"artifact": artifact, "library": "libtierdep.so.1", "needed_by": None}
        ]
    finally:
        shutil.move(aside, library)  # what the remedy asks: provide the library
    assert imports(venv, "syspkg") == "7"
    assert probe(venv, "syspkg").state == "present"


def test_a_library_in_the_wheels_own_libs_folder_is_found_through_an_origin_runpath(
    built: dict[str, Path], venv: Path
) -> None:
    uv_install(venv / "bin" / "python", built["house"], "origpkg")
    assert imports(venv, "origpkg") == "7"
    assert probe(venv, "origpkg").state == "present"

    (site_packages(venv) / "origpkg.libs" / "libbundled-0a1b2c3d.so.1").unlink()
    assert "libbundled-0a1b2c3d.so.1: cannot open shared object file" in imports(venv, "origpkg")
    assert probe(venv, "origpkg").reasons == [
        "compiled artifact origpkg.libs/libbundled-0a1b2c3d.so.1 is missing",
        f"compiled artifact origpkg/_native{EXT_SUFFIX} needs libbundled-0a1b2c3d.so.1, "
        "which the dynamic loader cannot find (a library the package's wheel vendors, by its hashed name: only its "
        "own install provides it)",
    ]


@pytest.mark.parametrize(("name", "found"), [("rpathpkg", True), ("runpathpkg", False)])
def test_a_library_needed_by_a_library_is_found_through_the_extensions_rpath_but_not_its_runpath(
    built: dict[str, Path], venv: Path, name: str, found: bool
) -> None:
    uv_install(venv / "bin" / "python", built["house"], name)
    result = probe(venv, name)
    if found:
        assert imports(venv, name) == "14"
        assert result.state == "present", result.reasons
    else:
        assert "libinner.so.1: cannot open shared object file" in imports(venv, name)
        assert result.reasons == [
            f"compiled artifact {name}/_native{EXT_SUFFIX} needs libinner.so.1 (through libouter.so.1), "
            "which the dynamic loader cannot find"
        ]


def test_a_library_found_only_through_ld_library_path_counts_only_where_it_is_set(
    built: dict[str, Path], venv: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    uv_install(venv / "bin" / "python", built["house"], "ldpkg")
    assert "libloose.so.2: cannot open shared object file" in imports(venv, "ldpkg")
    assert probe(venv, "ldpkg").missing_libraries == ((f"ldpkg/_native{EXT_SUFFIX}", "libloose.so.2", None),)

    monkeypatch.setenv("LD_LIBRARY_PATH", f"/nonexistent:{built['ldpath']}")
    assert imports(venv, "ldpkg", {"LD_LIBRARY_PATH": os.environ["LD_LIBRARY_PATH"]}) == "7"
    assert probe(venv, "ldpkg").state == "present"


def test_the_elf_reader_reads_what_readelf_reads(built: dict[str, Path]) -> None:
    extension = built["root"] / "runpathpkg" / f"_native{EXT_SUFFIX}"
    outer = built["root"] / "chain" / "libouter.so.1"
    ext_info, outer_info = read_file(str(extension)), read_file(str(outer))
    assert ext_info is not None
    assert outer_info is not None
    assert ext_info.runpath == ("$ORIGIN/../runpathpkg.libs",)
    assert ext_info.rpath == ()
    assert (outer_info.soname, outer_info.needed) == ("libouter.so.1", ("libinner.so.1",))
    for path, info in ((extension, ext_info), (outer, outer_info)):
        witness = readelf_dynamic(path)
        if not witness:
            continue  # no readelf here: the values above stand alone
        listed = [line.split("[", 1)[1].rstrip("]") for line in witness.splitlines() if "(NEEDED)" in line]
        assert list(info.needed) == listed
        assert ("(RUNPATH)" in witness) == bool(info.runpath)


def test_a_new_process_reuses_the_kept_verdict_until_a_library_it_relies_on_is_gone(
    built: dict[str, Path], venv: Path, tmp_path: Path
) -> None:
    uv_install(venv / "bin" / "python", built["house"], "syspkg")
    cache = tmp_path / "kept"
    script = (
        "import json, sys; from tierlock.probing import probe_distribution as p; "
        f"r = p('syspkg', paths=[{str(site_packages(venv))!r}], deep='deep' in sys.argv); "
        "print(json.dumps([r.state, r.missing_libraries]))"
    )

    def run(*args: str) -> list[object]:
        env = clean_env({"TIERLOCK_CACHE_DIR": str(cache)})
        proc = subprocess.run(
            [sys.executable, "-c", script, *args], env=env, capture_output=True, text=True, check=True
        )
        return list(json.loads(proc.stdout))

    assert run() == ["present", []]
    (kept,) = cache.glob("libraries-*.marshal")
    document = marshal.loads(kept.read_bytes())
    assert str(built["system"]) in document["libraries"]
    library, aside = built["system"], tmp_path / "aside.so"
    shutil.move(library, aside)
    try:
        assert run() == ["partial", [[f"syspkg/_native{EXT_SUFFIX}", "libtierdep.so.1", None]]]
    finally:
        shutil.move(aside, library)
    # A kept verdict that no longer tells the truth is trusted only without --deep.
    document["verdicts"] = {k: [v[0], []] for k, v in document["verdicts"].items()}
    kept.write_bytes(marshal.dumps(document))
    shutil.move(library, aside)
    try:
        assert run() == ["present", []]
        assert run("deep") == ["partial", [[f"syspkg/_native{EXT_SUFFIX}", "libtierdep.so.1", None]]]
    finally:
        shutil.move(aside, library)


def test_a_library_of_another_machine_is_passed_over_as_the_loader_passes_it_over(
    built: dict[str, Path], venv: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    uv_install(venv / "bin" / "python", built["house"], "ldpkg")
    impostor = tmp_path / "impostor"
    impostor.mkdir()
    data = bytearray(built["ldpath"].joinpath("libloose.so.2").read_bytes())
    data[18:20] = (183).to_bytes(2, "little")  # e_machine: AArch64
    (impostor / "libloose.so.2").write_bytes(bytes(data))
    monkeypatch.setenv("LD_LIBRARY_PATH", str(impostor))
    assert "libloose.so.2: cannot open shared object file" in imports(venv, "ldpkg", {"LD_LIBRARY_PATH": str(impostor)})
    assert probe(venv, "ldpkg").missing_libraries == ((f"ldpkg/_native{EXT_SUFFIX}", "libloose.so.2", None),)
    monkeypatch.setenv("LD_LIBRARY_PATH", f"{impostor}:{built['ldpath']}")
    assert probe(venv, "ldpkg").state == "present"


def test_libraries_are_not_looked_up_for_files_that_only_look_compiled(tmp_path: Path) -> None:
    house = tmp_path / "house"
    build_wheel(house, "fakepkg", "1.0", extension=True)  # an ELF header and zeros: no dynamic section
    make_venv(tmp_path / "venv")
    uv_install(tmp_path / "venv" / "bin" / "python", house, "fakepkg")
    result = probe_distribution("fakepkg", paths=[site_packages(tmp_path / "venv")])
    assert result.state == "present"
    assert result.missing_libraries == ()
