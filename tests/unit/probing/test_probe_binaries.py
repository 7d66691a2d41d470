"""The binary readers (ELF, Mach-O, PE, the loader cache) on crafted bytes, and over arbitrary bytes: they
read every layout right, and never raise whatever they are given."""

from __future__ import annotations

import os
import shutil
import struct
import subprocess
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.support import binaries
from tierlock.probing import elf, foreign, ldcache


@pytest.mark.parametrize(("elf_class", "little"), [(2, True), (1, True), (2, False), (1, False)])
def test_every_class_and_byte_order_reads_the_same_dynamic_section(elf_class: int, little: bool) -> None:
    data = binaries.elf(
        elf_class=elf_class,
        little=little,
        machine=183,
        needed=["libfoo.so.1", "libc.so.6"],
        rpath="$ORIGIN/../x.libs:/opt/lib",
        soname="libme.so.2",
        flags_1=0x800 | 0x1,
    )
    info = elf.parse_bytes(data)
    assert info is not None
    assert (info.elf_class, info.little_endian, info.machine) == (elf_class, little, 183)
    assert info.needed == ("libfoo.so.1", "libc.so.6")
    assert info.rpath == ("$ORIGIN/../x.libs", "/opt/lib")
    assert info.runpath == ()
    assert info.soname == "libme.so.2"
    assert info.nodeflib
    assert info.dynamic


def test_a_runpath_without_nodeflib_is_read_as_such() -> None:
    info = elf.parse_bytes(binaries.elf(needed=["liba.so"], runpath="$ORIGIN", flags_1=0x1))
    assert info is not None
    assert (info.runpath, info.rpath, info.nodeflib, info.soname) == (("$ORIGIN",), (), False, None)


def test_a_program_header_count_past_pn_xnum_is_read_from_the_first_section_header() -> None:
    info = elf.parse_bytes(binaries.elf(needed=["libxnum.so.1"], xnum=True))
    assert info is not None
    assert info.needed == ("libxnum.so.1",)


def test_a_file_with_no_dynamic_section_needs_nothing() -> None:
    data = bytearray(binaries.elf(needed=["liba.so"]))
    data[64 + 56 : 64 + 60] = (6).to_bytes(4, "little")  # PT_DYNAMIC -> PT_PHDR
    info = elf.parse_bytes(bytes(data))
    assert info is not None
    assert (info.dynamic, info.needed) == (False, ())


@pytest.mark.parametrize(
    ("cut", "why"),
    [(40, "a header cut short"), (200, "program headers cut short"), (-30, "a dynamic section cut short")],
)
def test_a_file_cut_short_is_no_elf_file_or_says_less_never_raises(cut: int, why: str) -> None:
    data = binaries.elf(needed=["liba.so.1"], rpath="/x")
    info = elf.parse_bytes(data[:cut])
    assert info is None or info.needed in ((), ("liba.so.1",)), why


def test_a_string_table_address_no_segment_maps_makes_the_names_unreadable() -> None:
    data = bytearray(binaries.elf(needed=["liba.so.1"]))
    info = elf.parse_bytes(bytes(data))
    assert info is not None
    # Move the PT_LOAD segment's address away: DT_STRTAB then lies in no segment.
    data[64 + 16 : 64 + 24] = (0x100000).to_bytes(8, "little")
    assert elf.parse_bytes(bytes(data)) is None


def test_two_elf_files_are_compatible_only_with_one_class_byte_order_and_machine() -> None:
    base = elf.ElfInfo(2, True, 62)
    assert base.compatible(elf.ElfInfo(2, True, 62, needed=("x",)))
    assert not base.compatible(elf.ElfInfo(1, True, 62))
    assert not base.compatible(elf.ElfInfo(2, False, 62))
    assert not base.compatible(elf.ElfInfo(2, True, 183))
    assert "needed=('x',)" in repr(elf.ElfInfo(2, True, 62, needed=("x",)))


def test_a_file_that_is_not_there_or_not_elf_gives_nothing(tmp_path: Path) -> None:
    assert elf.read_file(str(tmp_path / "nope.so")) is None
    (tmp_path / "text.so").write_text("not a library")
    assert elf.read_file(str(tmp_path / "text.so")) is None
    (tmp_path / "big.so").write_bytes(binaries.elf(needed=["libq.so"]).ljust(8192, b"\0"))
    info = elf.read_file(str(tmp_path / "big.so"))
    assert info is not None
    assert info.needed == ("libq.so",)


@given(st.binary(max_size=512))
@settings(max_examples=400, deadline=None)
def test_the_elf_reader_never_raises_on_arbitrary_bytes(data: bytes) -> None:
    elf.parse_bytes(data)
    elf.parse_bytes(b"\x7fELF" + data)
    elf.parse_bytes(b"\x7fELF\x02\x01" + data)


@given(st.data())
@settings(max_examples=300, deadline=None)
def test_the_elf_reader_never_raises_on_a_real_layout_with_bytes_changed(data: st.DataObject) -> None:
    whole = bytearray(binaries.elf(elf_class=data.draw(st.sampled_from([1, 2])), needed=["liba.so"], rpath="/r"))
    for _ in range(data.draw(st.integers(1, 8))):
        whole[data.draw(st.integers(0, len(whole) - 1))] = data.draw(st.integers(0, 255))
    elf.parse_bytes(bytes(whole[: data.draw(st.integers(0, len(whole)))]))


@pytest.mark.parametrize("layout", ["new", "old", "both"])
def test_every_loader_cache_layout_maps_names_to_paths_in_order(layout: str) -> None:
    entries = [("libz.so.1", "/lib/x/libz.so.1"), ("libz.so.1", "/lib32/libz.so.1"), ("libm.so.6", "/lib/libm.so.6")]
    assert ldcache.parse(binaries.ld_cache(entries, layout=layout)) == {
        "libz.so.1": ("/lib/x/libz.so.1", "/lib32/libz.so.1"),
        "libm.so.6": ("/lib/libm.so.6",),
    }


def test_loader_cache_entries_that_are_no_elf_libraries_are_left_out() -> None:
    assert ldcache.parse(binaries.ld_cache([("libz.so.1", "/lib/libz.so.1")], flags=0x0300)) == {}


@given(st.binary(max_size=400))
@settings(max_examples=300, deadline=None)
def test_the_loader_cache_reader_never_raises_on_arbitrary_bytes(data: bytes) -> None:
    ldcache.parse(data)
    ldcache.parse(b"glibc-ld.so.cache1.1" + data)
    ldcache.parse(b"ld.so-1.7.0\0" + data)


def test_the_loader_cache_reads_as_ldconfig_prints_it() -> None:
    if not os.path.isfile(ldcache.PATH) or shutil.which("ldconfig") is None:
        pytest.skip("no loader cache or no ldconfig on this machine (musl, a minimal container)")
    printed = subprocess.run(["ldconfig", "-p"], capture_output=True, text=True, check=True).stdout.splitlines()
    expected: dict[str, list[str]] = {}
    for line in printed[1:]:
        name, _, path = line.strip().partition(" => ")
        if path:
            expected.setdefault(name.split(" (")[0], []).append(path)
    table = ldcache.load()
    assert {k: list(v) for k, v in table.items()} == expected
    assert ldcache.load() is table  # kept while the file is unchanged


def test_a_loader_cache_that_is_not_there_is_empty(tmp_path: Path) -> None:
    assert ldcache.load(str(tmp_path / "ld.so.cache")) == {}


LOAD, WEAK, REEXPORT = 0xC, 0x80000018, 0x8000001F


@pytest.mark.parametrize(("wide", "little"), [(True, True), (False, False), (True, False)])
def test_a_thin_mach_o_file_names_its_libraries_and_rpaths(wide: bool, little: bool) -> None:
    data = binaries.macho(
        [("@rpath/libfoo.dylib", LOAD), ("/usr/lib/libSystem.B.dylib", LOAD), ("@loader_path/w.dylib", WEAK)],
        ["@loader_path/../lib"],
        wide=wide,
        little=little,
    )
    assert foreign.macho(lambda o, s: data[o : o + s]) == (
        [("@rpath/libfoo.dylib", False), ("/usr/lib/libSystem.B.dylib", False), ("@loader_path/w.dylib", True)],
        ["@loader_path/../lib"],
    )


def test_a_universal_mach_o_file_names_the_libraries_of_every_architecture_once() -> None:
    arm = binaries.macho([("@rpath/liba.dylib", LOAD), ("/usr/lib/libc++.1.dylib", REEXPORT)], ["@loader_path"])
    intel = binaries.macho([("@rpath/liba.dylib", LOAD), ("@rpath/libx86.dylib", LOAD)], ["@loader_path"])
    data = binaries.fat(arm, intel)
    libraries, rpaths = foreign.macho(lambda o, s: data[o : o + s]) or ([], [])
    assert [name for name, _weak in libraries] == [
        "@rpath/liba.dylib",
        "/usr/lib/libc++.1.dylib",
        "@rpath/libx86.dylib",
    ]
    assert rpaths == ["@loader_path"]


@pytest.mark.parametrize("wide", [True, False])
def test_a_pe_file_names_its_imported_and_delay_loaded_dlls(wide: bool) -> None:
    data = binaries.pe(["KERNEL32.dll", "python311.dll", "libfoo-abc.dll"], ["late.dll"], wide=wide)
    assert foreign.pe(lambda o, s: data[o : o + s]) == ["KERNEL32.dll", "python311.dll", "libfoo-abc.dll", "late.dll"]


@given(st.binary(max_size=600))
@settings(max_examples=300, deadline=None)
def test_the_mach_o_and_pe_readers_never_raise_on_arbitrary_bytes(data: bytes) -> None:
    for prefix in (b"", b"\xcf\xfa\xed\xfe", b"\xca\xfe\xba\xbe\x00\x00\x00\x02", b"MZ"):
        whole = prefix + data

        def read(offset: int, size: int, whole: bytes = whole) -> bytes:
            return whole[offset : offset + size]

        foreign.macho(read)
        foreign.pe(read)


@given(st.data())
@settings(max_examples=200, deadline=None)
def test_the_pe_reader_never_raises_on_a_real_layout_with_bytes_changed(data: st.DataObject) -> None:
    whole = bytearray(binaries.pe(["a.dll"], ["b.dll"]))
    for _ in range(data.draw(st.integers(1, 8))):
        whole[data.draw(st.integers(0, len(whole) - 1))] = data.draw(st.integers(0, 255))
    foreign.pe(lambda o, s: bytes(whole[o : o + s]))


def test_a_mach_o_extension_misses_only_the_strong_libraries_no_path_finds(tmp_path: Path) -> None:
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "libthere.dylib").write_bytes(b"x")
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "beside.dylib").write_bytes(b"x")
    libraries = [
        ("@rpath/libthere.dylib", LOAD),
        ("@rpath/libgone.dylib", LOAD),
        ("@loader_path/beside.dylib", LOAD),
        ("@loader_path/nothere.dylib", LOAD),
        ("@rpath/libweak.dylib", WEAK),
        ("/usr/lib/libSystem.B.dylib", LOAD),
        ("/System/Library/Frameworks/CoreFoundation.framework/CoreFoundation", LOAD),
        ("@executable_path/libpython3.11.dylib", LOAD),
        (str(tmp_path / "lib" / "libthere.dylib"), LOAD),
        ("/opt/homebrew/lib/libgone.1.dylib", LOAD),
    ]
    extension = tmp_path / "pkg" / "_ext.cpython-311-darwin.so"
    extension.write_bytes(binaries.macho(libraries, ["@loader_path/../lib"]))
    assert foreign.missing(str(extension), [str(tmp_path)]) == [
        "@rpath/libgone.dylib",
        "@loader_path/nothere.dylib",
        "/opt/homebrew/lib/libgone.1.dylib",
    ]


def test_a_pe_extension_finds_dlls_beside_it_in_a_libs_folder_and_in_the_system_folder(tmp_path: Path) -> None:
    site, system = tmp_path / "site", tmp_path / "System32"
    (site / "pkg").mkdir(parents=True)
    (site / "pkg.libs").mkdir()
    system.mkdir()
    (site / "pkg" / "Beside.dll").write_bytes(b"x")
    (site / "pkg.libs" / "libopenblas-abc.dll").write_bytes(b"x")
    (system / "KERNEL32.DLL").write_bytes(b"x")
    dlls = ["kernel32.dll", "beside.DLL", "libopenblas-abc.dll", "api-ms-win-crt-runtime-l1-1-0.dll", "python311.dll"]
    extension = site / "pkg" / "_ext.cp311-win_amd64.pyd"
    extension.write_bytes(binaries.pe([*dlls, "gone.dll"], ["vcruntime140_1.dll", "late-gone.dll"]))
    assert foreign.missing(str(extension), [str(site)], system=str(system)) == ["gone.dll", "late-gone.dll"]


def test_a_pe_extension_looks_in_every_site_s_libs_folders_past_one_it_cannot_read(tmp_path: Path) -> None:
    site = tmp_path / "site"
    (site / "pkg").mkdir(parents=True)
    (site / "pkg.libs").mkdir()
    (site / "pkg.libs" / "libopenblas-abc.dll").write_bytes(b"x")
    extension = site / "pkg" / "_ext.cp311-win_amd64.pyd"
    extension.write_bytes(binaries.pe(["libopenblas-abc.dll"], []))
    sites = [str(tmp_path / "gone-site"), str(site)]
    assert foreign.missing(str(extension), sites, system=str(tmp_path / "System32")) == []


def test_a_file_of_neither_format_needs_nothing_that_can_be_told(tmp_path: Path) -> None:
    (tmp_path / "x.so").write_bytes(b"\x7fELF")
    assert foreign.missing(str(tmp_path / "x.so"), []) == []
    assert foreign.missing(str(tmp_path / "gone.so"), []) == []


@pytest.mark.parametrize(("elf_class", "little"), [(1, False), (2, True)])
def test_a_string_table_at_the_very_start_of_a_second_segment_is_found_at_its_file_offset(
    elf_class: int, little: bool
) -> None:
    info = elf.parse_bytes(binaries.elf(elf_class=elf_class, little=little, needed=["libseg.so.1"], split=True))
    assert info is not None
    assert info.needed == ("libseg.so.1",)


@pytest.mark.parametrize(("elf_class", "little"), [(1, False), (1, True), (2, False)])
def test_pn_xnum_is_read_for_every_class_and_byte_order(elf_class: int, little: bool) -> None:
    info = elf.parse_bytes(binaries.elf(elf_class=elf_class, little=little, needed=["libx.so.1"], xnum=True))
    assert info is not None
    assert info.needed == ("libx.so.1",)


@pytest.mark.parametrize(
    ("fields", "why"),
    [
        ({"phentsize": 55}, "64-bit program headers shorter than 56 bytes"),
        ({"phentsize": 31, "elf_class": 1}, "32-bit program headers shorter than 32 bytes"),
        ({"phnum": 4097}, "more program headers than any real file"),
        ({"phnum": 0}, "no program headers"),
    ],
)
def test_implausible_program_headers_leave_the_file_without_dynamic_information(
    fields: dict[str, int], why: str
) -> None:
    info = elf.parse_bytes(binaries.elf(needed=["libq.so.1"], **fields))  # type: ignore[arg-type]
    assert info is not None, why
    assert (info.dynamic, info.needed) == (False, ()), why


def test_a_name_at_or_past_the_end_of_the_string_table_makes_the_names_unreadable() -> None:
    whole = binaries.elf(needed=["liba.so.1", "libb.so.1"])
    assert elf.parse_bytes(whole) is not None
    # "\0liba.so.1\0libb.so.1\0": libb starts at 11; a table of 11 bytes ends where it starts.
    assert elf.parse_bytes(binaries.elf(needed=["liba.so.1", "libb.so.1"], strsz=11)) is None
    info = elf.parse_bytes(binaries.elf(needed=["liba.so.1", "libb.so.1"], strsz=12))
    assert info is not None
    assert info.needed == ("liba.so.1", "libb.so.1")


@pytest.mark.parametrize("data", [0, 3, 255])
def test_a_byte_order_that_is_neither_little_nor_big_is_no_elf_file(data: int) -> None:
    whole = bytearray(binaries.elf(needed=["liba.so"]))
    whole[5] = data
    assert elf.parse_bytes(bytes(whole)) is None


def test_a_second_program_header_cut_short_is_left_out_and_the_first_kept() -> None:
    whole = binaries.elf(needed=["liba.so.1"])
    cut = elf.parse_bytes(whole[: 64 + 56 + 20])  # the PT_LOAD whole, the PT_DYNAMIC cut
    assert cut is not None
    assert (cut.dynamic, cut.needed) == (False, ())


def test_a_loader_cache_entry_whose_path_has_no_end_is_left_out() -> None:
    data = binaries.ld_cache([("liba.so.1", "/lib/liba.so.1"), ("libz.so.1", "/lib/libz.so.1")])
    assert ldcache.parse(data[:-1]) == {"liba.so.1": ("/lib/liba.so.1",)}


def test_an_upward_and_a_reexported_library_are_libraries_too() -> None:
    data = binaries.macho(
        [("@rpath/libup.dylib", 0x80000023), ("@rpath/libre.dylib", REEXPORT), ("@rpath/lazy.dylib", 0x20)]
    )
    assert foreign.macho(lambda o, s: data[o : o + s]) == (
        [("@rpath/libup.dylib", False), ("@rpath/libre.dylib", False), ("@rpath/lazy.dylib", False)],
        [],
    )


def test_a_pe_file_without_an_import_table_still_names_its_delay_loaded_dlls() -> None:
    data = binaries.pe([], ["late.dll"])
    assert foreign.pe(lambda o, s: data[o : o + s]) == ["late.dll"]


@pytest.mark.parametrize(("directories", "expected"), [(2, ["a.dll"]), (1, []), (14, ["a.dll", "b.dll"])])
def test_a_pe_optional_header_with_few_data_directories_is_read_as_far_as_it_goes(
    directories: int, expected: list[str]
) -> None:
    data = binaries.pe(["a.dll"], ["b.dll"], wide=False, directories=directories)
    assert foreign.pe(lambda o, s: data[o : o + s]) == expected


def test_a_loader_cache_that_counts_more_entries_than_it_holds_keeps_those_it_holds() -> None:
    data = bytearray(binaries.ld_cache([("liba.so.1", "/lib/liba.so.1"), ("libb.so.1", "/lib/libb.so.1")]))
    data[20:24] = (1000).to_bytes(4, "little")  # nlibs
    table = ldcache.parse(bytes(data))
    assert table["liba.so.1"] == ("/lib/liba.so.1",)
    assert table["libb.so.1"] == ("/lib/libb.so.1",)


@pytest.mark.parametrize("entsize", [64, 48])
def test_program_headers_of_another_size_than_the_class_gives_are_refused_as_the_loader_refuses_them(
    entsize: int,
) -> None:
    info = elf.parse_bytes(binaries.elf(needed=["libq.so.1"], phentsize=entsize))
    assert info is not None
    assert (info.dynamic, info.needed) == (False, ())


@pytest.mark.parametrize(("lfanew", "raw"), [(0xE8, 0x600), (0x80, 0x400), (0x40, 0x1400)])
def test_a_pe_file_is_read_wherever_its_pe_header_and_its_section_lie(lfanew: int, raw: int) -> None:
    data = binaries.pe(["a.dll", "b.dll"], ["c.dll"], lfanew=lfanew, raw=raw, names_first=True)
    assert foreign.pe(lambda o, s: data[o : o + s]) == ["a.dll", "b.dll", "c.dll"]


def test_the_import_table_ends_at_its_all_zero_descriptor_and_a_cut_one_ends_it_too() -> None:
    data = binaries.pe(["a.dll"], stale=["stale.dll"])
    assert foreign.pe(lambda o, s: data[o : o + s]) == ["a.dll"]
    first = binaries.pe(["a.dll", "b.dll"], names_first=True)
    cut = first[: 0x400 + 0x200 + 20 + 14]  # the names, the first descriptor whole, the second cut in its Name
    assert foreign.pe(lambda o, s: cut[o : o + s]) == ["a.dll"]


def test_a_section_table_cut_short_is_no_pe_file_that_can_be_read() -> None:
    data = binaries.pe(["a.dll"])
    head = data[: 64 + 24 + 240 + 20]  # the section header cut in the middle
    assert foreign.pe(lambda o, s: head[o : o + s]) is None


def test_an_unknown_load_command_of_eight_bytes_is_stepped_over() -> None:
    data = binaries.macho([("@rpath/liba.dylib", LOAD)], first=struct.pack("<II", 0x2A, 8))
    assert foreign.macho(lambda o, s: data[o : o + s]) == ([("@rpath/liba.dylib", False)], [])
