"""Crafted binary files, byte by byte: ELF (any class and byte order), Mach-O (thin and universal), PE,
and the loader cache. For the readers' unit tests where no compiler for the format exists here."""

from __future__ import annotations

import os
import struct
import sys
from collections.abc import Sequence
from functools import cache


def elf(
    *,
    elf_class: int = 2,
    little: bool = True,
    machine: int = 62,
    needed: Sequence[str] = (),
    rpath: str | None = None,
    runpath: str | None = None,
    soname: str | None = None,
    flags_1: int = 0,
    xnum: bool = False,
    split: bool = False,
    phentsize: int | None = None,
    phnum: int | None = None,
    strsz: int | None = None,
) -> bytes:
    """An ELF shared object with one ``PT_LOAD`` mapping the whole file at address 0 and a dynamic section.

    *xnum*: the program header count is given as ``PN_XNUM`` with the real count in section header 0;
    *split*: two ``PT_LOAD`` segments, the second starting at the string table and mapped at another
    address (``DT_STRTAB`` is then that segment's first address); *phentsize*, *phnum*, *strsz*: those
    header fields as given instead of their true values.
    """
    order = "<" if little else ">"
    wide = elf_class == 2
    strings = b"\0"
    offsets: dict[str, int] = {}
    for text in [*needed, rpath, runpath, soname]:
        if text is not None and text not in offsets:
            offsets[text] = len(strings)
            strings += text.encode() + b"\0"
    entries = [(1, offsets[n]) for n in needed]
    entries += [(15, offsets[rpath])] if rpath is not None else []
    entries += [(29, offsets[runpath])] if runpath is not None else []
    entries += [(14, offsets[soname])] if soname is not None else []
    entries += [(0x6FFFFFFB, flags_1)] if flags_1 else []
    header_size, phdr_size, shdr_size, dyn_entry = (64, 56, 64, 16) if wide else (52, 32, 40, 8)
    phoff = header_size
    headers = 3 if split else 2
    shoff = phoff + headers * phdr_size
    strtab = shoff + shdr_size
    dynamic = strtab + len(strings) + (-(strtab + len(strings)) % 8)
    moved = 0x10000 if split else 0  # where the second segment maps the string table and what follows
    entries = [*entries, (5, strtab + moved), (10, len(strings) if strsz is None else strsz), (0, 0)]
    total = dynamic + len(entries) * dyn_entry
    dyn_format = order + ("qQ" if wide else "iI")
    body = b"".join(struct.pack(dyn_format, tag, value) for tag, value in entries)
    ident = b"\x7fELF" + bytes([elf_class, 1 if little else 2, 1, 0]) + b"\0" * 8
    count = 0xFFFF if xnum else (headers if phnum is None else phnum)
    entsize = phdr_size if phentsize is None else phentsize
    first = strtab if split else total  # the first segment stops at the string table when split
    if wide:
        fields = (3, machine, 1, 0, phoff, shoff, 0, 64, entsize, count, 64, 1, 0)
        header = struct.pack(order + "HHIQQQIHHHHHH", *fields)
        loads = struct.pack(order + "IIQQQQQQ", 1, 5, 0, 0, 0, first, first, 0x1000)
        if split:
            loads += struct.pack(order + "IIQQQQQQ", 1, 5, strtab, strtab + moved, 0, total - strtab, total - strtab, 8)
        dyn = struct.pack(order + "IIQQQQQQ", 2, 6, dynamic, dynamic + moved, 0, len(body), len(body), 8)
        section = struct.pack(order + "IIQQQQIIQQ", 0, 0, 0, 0, 0, 0, 0, headers, 0, 0)
    else:
        fields = (3, machine, 1, 0, phoff, shoff, 0, 52, entsize, count, 40, 1, 0)
        header = struct.pack(order + "HHIIIIIHHHHHH", *fields)
        loads = struct.pack(order + "IIIIIIII", 1, 0, 0, 0, first, first, 5, 0x1000)
        if split:
            loads += struct.pack(order + "IIIIIIII", 1, strtab, strtab + moved, 0, total - strtab, total - strtab, 5, 8)
        dyn = struct.pack(order + "IIIIIIII", 2, dynamic, dynamic + moved, 0, len(body), len(body), 6, 4)
        section = struct.pack(order + "IIIIIIIIII", 0, 0, 0, 0, 0, 0, 0, headers, 0, 0)
    data = ident + header + loads + dyn + section + strings
    return data + b"\0" * (dynamic - len(data)) + body


@cache
def _own_header() -> tuple[int, bool, int]:
    """The running interpreter's ELF class, byte order and machine (the tests' venvs are made from it)."""
    with open(os.path.realpath(sys.executable), "rb") as fh:
        ident = fh.read(20)
    little = ident[5] == 1
    return ident[4], little, struct.unpack("<H" if little else ">H", ident[18:20])[0]


def loadable_stub(size: int = 260) -> bytes:
    """*size* bytes (at least an ELF header's) that the probe takes for an extension module this interpreter's loader
    loads: an ELF header of its class, byte order and machine, of a shared object without program headers, then
    zeros. What a test that only needs a compiled file of some size writes (no compiler needed)."""
    elf_class, little, machine = _own_header()
    order = "<" if little else ">"
    wide = elf_class == 2
    ident = b"\x7fELF" + bytes([elf_class, 1 if little else 2, 1, 0]) + b"\0" * 8
    if wide:
        header = struct.pack(order + "HHIQQQIHHHHHH", 3, machine, 1, 0, 0, 0, 0, 64, 56, 0, 64, 0, 0)
    else:
        header = struct.pack(order + "HHIIIIIHHHHHH", 3, machine, 1, 0, 0, 0, 0, 52, 32, 0, 40, 0, 0)
    data = ident + header
    assert size >= len(data), f"an ELF header takes {len(data)} bytes"
    return data + b"\0" * (size - len(data))


def macho(
    libraries: Sequence[tuple[str, int]],
    rpaths: Sequence[str] = (),
    *,
    wide: bool = True,
    little: bool = True,
    first: bytes = b"",
) -> bytes:
    """A thin Mach-O file with one load command per (library, command) and per rpath, after the raw
    load command *first* (when given: counted as one)."""
    order = "<" if little else ">"
    commands = first
    for text, cmd in [*libraries, *((r, 0x8000001C) for r in rpaths)]:
        name = text.encode() + b"\0"
        fixed = 12 if cmd == 0x8000001C else 24
        size = fixed + len(name) + (-(fixed + len(name)) % 8)
        if cmd == 0x8000001C:
            commands += struct.pack(order + "III", cmd, size, fixed) + name.ljust(size - fixed, b"\0")
        else:
            commands += struct.pack(order + "IIIIII", cmd, size, fixed, 2, 0x10000, 0x10000) + name.ljust(
                size - fixed, b"\0"
            )
    count = len(libraries) + len(rpaths) + (1 if first else 0)
    magic = 0xFEEDFACF if wide else 0xFEEDFACE
    header = struct.pack(order + "IiiIIII", magic, 0x01000007, 3, 6, count, len(commands), 0)
    return header + (b"\0\0\0\0" if wide else b"") + commands


def fat(*thin: bytes) -> bytes:
    """A universal Mach-O file holding the *thin* files (big-endian fat header, 32-bit arch table)."""
    table = b""
    offset = 4096
    body = b""
    for item in thin:
        table += struct.pack(">iiIII", 0x01000007, 3, offset + len(body), len(item), 12)
        body += item + b"\0" * (-len(item) % 4096)
    header = struct.pack(">II", 0xCAFEBABE, len(thin)) + table
    return header + b"\0" * (offset - len(header)) + body


def pe(
    imports: Sequence[str],
    delayed: Sequence[str] = (),
    *,
    wide: bool = True,
    directories: int = 16,
    lfanew: int = 64,
    raw: int = 0x400,
    names_first: bool = False,
    stale: Sequence[str] = (),
) -> bytes:
    """A PE file with one section holding an import table for *imports* (none without imports) and a
    delay-import table.

    *directories*: the data directories its optional header holds; *lfanew*: where the PE header
    starts; *raw*: the section's file offset; *names_first*: the DLL names lie before the tables in the
    section (else after); *stale*: descriptors written after the import table's all-zero end.
    """
    optional_size = (112 if wide else 96) + 8 * directories
    rva = 0x1000
    names = b""
    name_at: dict[str, int] = {}
    for dll in [*imports, *delayed, *stale]:
        name_at[dll] = len(names)
        names += dll.encode() + b"\0"
    names_rva = rva if names_first else rva + 0x200
    tables_rva = rva + 0x200 if names_first else rva

    def named(dll: str) -> int:
        return names_rva + name_at[dll]

    table = b"".join(struct.pack("<IIIII", 0, 0, 0, named(d), 0) for d in imports) + b"\0" * 20
    table += b"".join(struct.pack("<IIIII", 0, 0, 0, named(d), 0) for d in stale)
    delay = b"".join(struct.pack("<IIIIIIII", 1, named(d), 0, 0, 0, 0, 0, 0) for d in delayed) + b"\0" * 32
    tables = table.ljust(0x100, b"\0") + delay.ljust(0x100, b"\0")
    content = names.ljust(0x200, b"\0") + tables if names_first else tables + names
    entries = [(0, 0)] * 16
    if imports:
        entries[1] = (tables_rva, len(table))
    if delayed:
        entries[13] = (tables_rva + 0x100, len(delay))
    start = 112 if wide else 96
    optional = bytearray(optional_size)
    struct.pack_into("<H", optional, 0, 0x20B if wide else 0x10B)
    struct.pack_into("<I", optional, start - 4, directories)
    for i, (address, size) in enumerate(entries[:directories]):
        struct.pack_into("<II", optional, start + i * 8, address, size)
    coff = b"PE\0\0" + struct.pack("<HHIIIHH", 0x8664, 1, 0, 0, 0, optional_size, 0x2022)
    section = struct.pack("<8sIIIIIIHHI", b".idata", len(content), rva, len(content), raw, 0, 0, 0, 0, 0x40000040)
    dos = bytearray(lfanew)
    dos[:2] = b"MZ"
    struct.pack_into("<I", dos, 0x3C, lfanew)
    head = bytes(dos) + coff + bytes(optional) + section
    assert len(head) <= raw
    return head.ljust(raw, b"\0") + content


def ld_cache(entries: Sequence[tuple[str, str]], *, layout: str = "new", flags: int = 0x0303) -> bytes:
    """An ``ld.so.cache`` in the ``new`` layout, the ``old`` one, or ``both`` (old, then new, aligned)."""
    strings = b""
    positions: list[tuple[int, int]] = []
    for name, path in entries:
        positions.append((len(strings), len(strings) + len(name) + 1))
        strings += name.encode() + b"\0" + path.encode() + b"\0"
    new_head = 48 + 24 * len(entries)
    new = struct.pack("=20sII4xI12x", b"glibc-ld.so.cache1.1", len(entries), len(strings), 0)
    new += b"".join(struct.pack("=iIIIQ", flags, new_head + k, new_head + v, 0, 0) for k, v in positions)
    new += strings
    old = b"ld.so-1.7.0\0" + struct.pack("=I", len(entries))
    old += b"".join(struct.pack("=iII", flags, k, v) for k, v in positions)
    if layout == "new":
        return new
    if layout == "old":
        return old + strings
    return old + b"\0" * (-len(old) % 8) + new
