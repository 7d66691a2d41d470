"""An extension module whose file is whole but which the target's dynamic loader refuses: built for another machine,
class or byte order than the target interpreter, no ELF file at all, an ELF header cut short, an executable, a musl
build in a glibc environment. Each is partial with the file and the reason, and no system library is blamed.

Wheels written at test time (crafted ELF headers), installed by the real uv into real venvs; the real ``import`` in
the target is the witness that each fails. The target's class and machine are read from the target interpreter's
own file: a crafted "interpreter" of another machine turns the same files the other way round, and a verdict kept
under one interpreter is never given under another.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support import binaries
from tests.support.env import clean_env, make_venv, site_packages
from tests.support.probe_env import platform_tag, uv_install
from tests.support.wheels import EXT_SUFFIX, build_wheel
from tierlock.probing import SiteIndex, elf, elfmatch, probe_distribution
from tierlock.probing.libproblems import Missing, Unloadable
from tierlock.probing.site import own_suffixes


def _own() -> elf.ElfInfo:
    """The ELF header of the interpreter running the tests (the venvs are made from it)."""
    info = elf.read_file(os.path.realpath(sys.executable))
    assert info is not None
    return info


OWN = _own()
OTHER_MACHINE = 183 if OWN.machine != 183 else 62
"""A machine the interpreter running the tests is not (aarch64, or x86_64 on an aarch64 host)."""
NARROW = 3 if OWN.machine == 62 else OWN.machine
"""What a 32-bit build for this host is (i386 beside x86_64)."""


def _of_type(e_type: int) -> bytes:
    data = bytearray(binaries.elf(machine=OWN.machine))
    data[16:18] = e_type.to_bytes(2, "little")
    return bytes(data)


def _name(machine: int, elf_class: int = 2, little: bool = True) -> str:
    return elfmatch.name(elf.ElfInfo(elf_class, little, machine))


HERE = _name(OWN.machine, OWN.elf_class, OWN.little_endian)
CASES: dict[str, tuple[str, bytes, str]] = {
    "abi3-other-machine": (
        "_rust.abi3.so",
        binaries.elf(machine=OTHER_MACHINE, needed=["libc.so.6"]),
        f"is built for {_name(OTHER_MACHINE)}, and this environment runs {HERE}",
    ),
    "plain-other-machine": (
        "x.so",
        binaries.elf(machine=OTHER_MACHINE),
        f"is built for {_name(OTHER_MACHINE)}, and this environment runs {HERE}",
    ),
    "tagged-32-bit": (
        f"_narrow{EXT_SUFFIX}",
        binaries.elf(elf_class=1, machine=NARROW),
        f"is built for {_name(NARROW, 1)}, and this environment runs {HERE}"
        if OWN.machine != NARROW
        else f"is built for {HERE} (32-bit, little-endian), and this environment runs {HERE} (64-bit, little-endian)",
    ),
    "big-endian": (
        f"_big{EXT_SUFFIX}",
        binaries.elf(machine=OWN.machine, little=False),
        f"is built for {HERE} (64-bit, big-endian), and this environment runs {HERE} (64-bit, little-endian)",
    ),
    "header-cut-short": (
        f"_cut{EXT_SUFFIX}",
        binaries.elf(machine=OWN.machine)[:40],
        "is cut short (40 bytes, shorter than an ELF header)",
    ),
    "no-elf-class": (
        f"_zero{EXT_SUFFIX}",
        b"\x7fELF" + b"\0" * 60,
        "has an invalid ELF header (no ELF class or byte order)",
    ),
    "not-elf": (f"_text{EXT_SUFFIX}", b"this is not compiled code\n" * 4, "is not an ELF file (no compiled code)"),
    "mach-o": (
        "_mac.abi3.so",
        binaries.macho([("/usr/lib/libSystem.B.dylib", 0xC)]),
        "is not an ELF file (a Mach-O file: built for macOS)",
    ),
    "pe": (f"_win{EXT_SUFFIX}", binaries.pe(["KERNEL32.dll"]), "is not an ELF file (a PE file: built for Windows)"),
    "executable": (f"_exe{EXT_SUFFIX}", _of_type(2), "is an ELF executable, not a shared object"),
    "object-file": (f"_obj{EXT_SUFFIX}", _of_type(1), "is an ELF object file (.o), not a shared object"),
}
if "libc.so.6" in OWN.needed:
    musl = f"libc.musl-{_name(OWN.machine)}.so.1"
    CASES["musl-in-glibc"] = (
        f"_musl{EXT_SUFFIX}",
        binaries.elf(machine=OWN.machine, needed=[musl]),
        f"is built for musl libc (it needs {musl}), and this environment runs glibc",
    )


@pytest.fixture(scope="module")
def venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One venv holding a package per case (``pkg_<case>/<file>``, imported by its ``__init__``)."""
    root = tmp_path_factory.mktemp("platform")
    house = root / "house"
    names = []
    for case, (filename, data, _why) in CASES.items():
        name = "pkg_" + case.replace("-", "_")
        files: dict[str, bytes | str] = {f"{name}/__init__.py": f"from . import {filename.split('.')[0]}\n"}
        files[f"{name}/{filename}"] = data
        build_wheel(house, name, "1.0", files=files, tag=platform_tag(), extension=True)
        names.append(name)
    make_venv(root / "venv")
    uv_install(root / "venv" / "bin" / "python", house, *names)
    return root / "venv"


@pytest.mark.parametrize("case", list(CASES))
def test_an_extension_the_targets_loader_refuses_is_partial_with_the_file_and_why(venv: Path, case: str) -> None:
    filename, _data, why = CASES[case]
    name = "pkg_" + case.replace("-", "_")
    ran = subprocess.run(
        [str(venv / "bin" / "python"), "-c", f"import {name}"], capture_output=True, env=clean_env(), check=False
    )
    assert ran.returncode != 0  # the witness: the real loader refuses it
    result = probe_distribution(name, paths=[site_packages(venv)])
    assert result.state == "partial"
    assert result.reasons == [f"compiled extension {name}/{filename} {why}: the dynamic loader cannot load it"]
    assert result.missing_libraries == ()  # no system library to provide: the remedy is a reinstall
    assert probe_distribution(name, paths=[site_packages(venv)], deep=True).reasons == [*result.reasons]


def test_a_build_for_another_python_and_machine_beside_the_targets_own_is_only_another_pythons(tmp_path: Path) -> None:
    house = tmp_path / "house"
    other = "_a.cpython-312-aarch64-linux-gnu.so" if "312" not in EXT_SUFFIX else "_a.cpython-311-aarch64-linux-gnu.so"
    files: dict[str, bytes | str] = {
        "twopkg/__init__.py": "",
        f"twopkg/_a{EXT_SUFFIX}": binaries.loadable_stub(),
        f"twopkg/{other}": binaries.elf(machine=OTHER_MACHINE if OWN.machine != 183 else 62),
    }
    build_wheel(house, "twopkg", "1.0", files=files, tag=platform_tag(), extension=True)
    make_venv(tmp_path / "venv")
    uv_install(tmp_path / "venv" / "bin" / "python", house, "twopkg")
    assert probe_distribution("twopkg", paths=[site_packages(tmp_path / "venv")]).state == "present"


def _interpreter(path: Path, data: bytes) -> str:
    path.write_bytes(data)
    return str(path)


def test_the_target_is_the_interpreter_named_and_a_verdict_kept_under_one_is_not_given_under_another(
    tmp_path: Path,
) -> None:
    house = tmp_path / "house"
    files: dict[str, bytes | str] = {"nativepkg/__init__.py": "", f"nativepkg/_n{EXT_SUFFIX}": binaries.loadable_stub()}
    build_wheel(house, "nativepkg", "1.0", files=files, tag=platform_tag(), extension=True)
    make_venv(tmp_path / "venv")
    uv_install(tmp_path / "venv" / "bin" / "python", house, "nativepkg")
    site = site_packages(tmp_path / "venv")
    here = SiteIndex.scan([site], own_suffixes(), tmp_path / "venv" / "bin" / "python")
    assert probe_distribution("nativepkg", index=here).state == "present"
    assert probe_distribution("nativepkg", index=here).state == "present"  # now from the kept verdicts

    # The same venv seen by an interpreter of another machine (a venv shared with another host): refused.
    elsewhere = _interpreter(tmp_path / "python-other", binaries.elf(machine=OTHER_MACHINE, needed=["libc.so.6"]))
    there = SiteIndex.scan([site], own_suffixes(), elsewhere)
    result = probe_distribution("nativepkg", index=there)
    assert result.reasons == [
        f"compiled extension nativepkg/_n{EXT_SUFFIX} is built for {HERE}, and this environment runs "
        f"{_name(OTHER_MACHINE)}: the dynamic loader cannot load it"
    ]
    # Back on this host, the verdict is present again; an interpreter that is no ELF file checks nothing.
    assert probe_distribution(
        "nativepkg", index=SiteIndex.scan([site], own_suffixes(), tmp_path / "venv" / "bin" / "python")
    ).present
    script = _interpreter(tmp_path / "python-script", b'#!/bin/sh\nexec python3 "$@"\n')
    assert probe_distribution("nativepkg", index=SiteIndex.scan([site], own_suffixes(), script)).present


def test_the_interpreter_read_is_the_file_its_link_names_and_is_read_again_when_it_changes(tmp_path: Path) -> None:
    real = tmp_path / "python3.99"
    real.write_bytes(binaries.elf(machine=OTHER_MACHINE))
    (tmp_path / "python").symlink_to(real)
    info = elfmatch.platform_of(str(tmp_path / "python"))
    assert info is not None
    assert info.machine == OTHER_MACHINE
    real.write_bytes(binaries.elf(machine=OWN.machine, elf_class=1) + b"\0" * 8)
    info = elfmatch.platform_of(str(tmp_path / "python"))
    assert info is not None
    assert (info.machine, info.elf_class) == (OWN.machine, 1)
    assert elfmatch.platform_of(str(tmp_path / "gone")) is None


@pytest.mark.parametrize(
    ("machine", "elf_class", "little", "said"),
    [
        (62, 2, True, "x86_64"),
        (3, 1, True, "i386"),
        (183, 2, True, "aarch64"),
        (40, 1, True, "arm"),
        (8, 1, False, "mips"),
        (20, 1, False, "ppc"),
        (21, 2, True, "ppc64le"),
        (21, 2, False, "ppc64"),
        (22, 2, False, "s390x"),
        (22, 1, False, "s390"),
        (243, 2, True, "riscv64"),
        (243, 1, True, "riscv32"),
        (258, 2, True, "loongarch64"),
        (9999, 2, True, "ELF machine 9999"),
    ],
)
def test_each_machine_is_named_as_uname_names_it(machine: int, elf_class: int, little: bool, said: str) -> None:
    assert elfmatch.name(elf.ElfInfo(elf_class, little, machine)) == said


def test_a_c_library_of_another_family_is_said_only_when_the_interpreter_names_its_own() -> None:
    glibc = elf.ElfInfo(2, True, 62, needed=("libpython3.12.so.1.0", "libc.so.6"))
    musl = elf.ElfInfo(2, True, 62, needed=("libc.musl-x86_64.so.1",))
    static = elf.ElfInfo(2, True, 62)
    assert elfmatch.libc("libc.so.6") == "glibc"
    assert elfmatch.libc("libc.so") == elfmatch.libc("libc.musl-aarch64.so.1") == "musl libc"
    assert elfmatch.libc("libm.so.6") is None
    assert elfmatch.another_libc("libc.musl-x86_64.so.1", glibc) == (
        "is built for musl libc (it needs libc.musl-x86_64.so.1), and this environment runs glibc"
    )
    assert elfmatch.another_libc("libc.so.6", musl) == (
        "is built for glibc (it needs libc.so.6), and this environment runs musl libc"
    )
    assert elfmatch.another_libc("libc.so.6", glibc) is None  # its own family: a missing library, the system's
    assert elfmatch.another_libc("libfoo.so.1", glibc) is None
    assert elfmatch.another_libc("libc.musl-x86_64.so.1", static) is None  # nothing to compare with


def test_an_elf_file_of_the_targets_own_kind_is_not_refused_whatever_its_dynamic_section(tmp_path: Path) -> None:
    target = elf.ElfInfo(OWN.elf_class, OWN.little_endian, OWN.machine)
    stub = tmp_path / "stub.so"
    stub.write_bytes(binaries.loadable_stub(64))
    assert elfmatch.refused(str(stub), elf.read_file(str(stub)), target) is None
    # A header of the right size, class and order whose dynamic section is unreadable: the loader may take it.
    broken = bytearray(binaries.elf(machine=OWN.machine, needed=["liba.so.1"]))
    broken[64 + 16 : 64 + 24] = (0x100000).to_bytes(8, "little")
    (tmp_path / "broken.so").write_bytes(bytes(broken))
    assert elf.read_file(str(tmp_path / "broken.so")) is None
    assert elfmatch.refused(str(tmp_path / "broken.so"), None, target) is None
    thirty_two = bytes(binaries.elf(elf_class=1, machine=OWN.machine))[:52]
    (tmp_path / "narrow.so").write_bytes(thirty_two)
    assert elfmatch.refused(str(tmp_path / "narrow.so"), None, target) is None  # a whole 32-bit header
    (tmp_path / "empty.so").write_bytes(b"")
    assert elfmatch.refused(str(tmp_path / "empty.so"), None, target) == "is not an ELF file (an empty file)"
    assert elfmatch.refused(str(tmp_path / "gone.so"), None, target) is None  # unreadable: the file checks say it


def test_a_64_bit_header_cut_inside_its_last_fields_is_cut_short_and_a_whole_one_is_not(tmp_path: Path) -> None:
    target = elf.ElfInfo(2, True, 62)
    data = binaries.elf(machine=62)
    for size in (60, 63, 64):
        (tmp_path / "x.so").write_bytes(data[:size])
        said = f"is cut short ({size} bytes, shorter than an ELF header)" if size < 64 else None
        assert elfmatch.refused(str(tmp_path / "x.so"), None, target) == said
    narrow = binaries.elf(elf_class=1, machine=62)
    for size, said in ((51, "is cut short (51 bytes, shorter than an ELF header)"), (52, None), (len(narrow), None)):
        (tmp_path / "n.so").write_bytes(narrow[:size])
        assert elfmatch.refused(str(tmp_path / "n.so"), None, target) == said
    no_order = bytearray(data)
    no_order[5] = 0  # a class, but no byte order
    (tmp_path / "o.so").write_bytes(bytes(no_order))
    assert (
        elfmatch.refused(str(tmp_path / "o.so"), None, target)
        == "has an invalid ELF header (no ELF class or byte order)"
    )


def test_the_interpreter_is_read_once_while_its_file_is_unchanged(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    reads: list[str] = []
    real = elf.read_file

    def counted(path: str) -> elf.ElfInfo | None:
        reads.append(path)
        return real(path)

    monkeypatch.setattr(elf, "read_file", counted)
    python = tmp_path / "python"
    python.write_bytes(binaries.elf(machine=183))
    first = elfmatch.platform_of(str(python))
    assert elfmatch.platform_of(str(python)) is first
    assert reads == [str(python)]


def test_the_problems_compare_by_every_field() -> None:
    assert Missing("a.so", "libx.so.1") == Missing("a.so", "libx.so.1", None)
    assert Missing("a.so", "libx.so.1") != Missing("a.so", "liby.so.1")
    assert Missing("a.so", "libx.so.1", "libz.so") != Missing("a.so", "libx.so.1")
    assert len({Missing("a.so", "libx.so.1"), Missing("a.so", "libx.so.1")}) == 1
    assert Unloadable("a.so", "is cut short") == Unloadable("a.so", "is cut short")
    assert Unloadable("a.so", "is cut short") != Unloadable("b.so", "is cut short")
    assert Unloadable("a.so", "x") != Missing("a.so", "x")
    assert len({Unloadable("a.so", "x"), Unloadable("a.so", "x"), Unloadable("a.so", "y")}) == 2
    assert repr(Unloadable("a.so", "x")) == "Unloadable('a.so', 'x')"
    assert Missing("a.so", "libx.so.1").describe() == (
        "compiled artifact a.so needs libx.so.1, which the dynamic loader cannot find"
    )
    assert Missing("a.so", "libx.so.1", "liby.so.2").describe() == (
        "compiled artifact a.so needs libx.so.1 (through liby.so.2), which the dynamic loader cannot find"
    )
