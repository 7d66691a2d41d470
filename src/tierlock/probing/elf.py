"""The dynamic section of an ELF file, read without loading it: which libraries it needs and where it says to look.

Only what the dynamic loader reads to find libraries: the ELF header (class, byte order, machine),
the program headers (``PT_DYNAMIC`` and the ``PT_LOAD`` segments that map the string table), and the
dynamic entries ``DT_NEEDED``, ``DT_RPATH``, ``DT_RUNPATH``, ``DT_SONAME`` and ``DT_FLAGS_1``
(``DF_1_NODEFLIB``). Standard library only; a few small reads per file, never the whole file.

:func:`parse` never raises: bytes that are not ELF, or an ELF file that is cut short or malformed,
give ``None`` (nothing can be said about it), never an exception.
"""

from __future__ import annotations

import struct
from collections.abc import Callable

from tierlock.probing.regular import open_bytes

Read = Callable[[int, int], bytes]
"""``read(offset, size)``: up to *size* bytes of the file from *offset* (fewer at its end)."""

MAGIC = b"\x7fELF"
ELFCLASS32, ELFCLASS64 = 1, 2
PT_LOAD, PT_DYNAMIC = 1, 2
DT_NULL, DT_NEEDED, DT_STRTAB, DT_STRSZ = 0, 1, 5, 10
DT_SONAME, DT_RPATH, DT_RUNPATH, DT_FLAGS_1 = 14, 15, 29, 0x6FFFFFFB
DF_1_NODEFLIB = 0x800
PN_XNUM = 0xFFFF

_MAX_HEADERS = 4096
"""More program headers than any real file has: beyond it the file is taken as malformed."""
_MAX_DYNAMIC = 1 << 16
"""Dynamic entries read at most (real files have a few dozen)."""
_MAX_STRING = 4096
"""The longest name or path read (PATH_MAX)."""
_SPAN = 1 << 16
"""Strings closer together than this are read in one piece."""


# A plain class, not a NamedTuple or a dataclass: building either costs about a millisecond at import,
# and this module is on the probe's every-run path.
class ElfInfo:
    """What the dynamic loader needs to know of one ELF file."""

    __slots__ = (
        "dynamic",
        "elf_class",
        "kind",
        "little_endian",
        "machine",
        "needed",
        "nodeflib",
        "rpath",
        "runpath",
        "soname",
    )

    def __init__(
        self,
        elf_class: int,
        little_endian: bool,
        machine: int,
        *,
        needed: tuple[str, ...] = (),
        rpath: tuple[str, ...] = (),
        runpath: tuple[str, ...] = (),
        soname: str | None = None,
        nodeflib: bool = False,
        dynamic: bool = False,
        kind: int = 3,
    ) -> None:
        self.elf_class = elf_class
        """1: 32-bit, 2: 64-bit."""
        self.little_endian = little_endian
        self.machine = machine
        """``e_machine`` (62: x86-64, 183: AArch64 ...)."""
        self.needed = needed
        """``DT_NEEDED``, in order."""
        self.rpath = rpath
        """``DT_RPATH``, split at ``:`` (searched only when there is no ``DT_RUNPATH``)."""
        self.runpath = runpath
        """``DT_RUNPATH``, split at ``:``."""
        self.soname = soname
        self.nodeflib = nodeflib
        """``DF_1_NODEFLIB``: the loader cache and the default folders are not searched for its libraries."""
        self.dynamic = dynamic
        """Whether it has a dynamic section at all (a static executable or an object file has none)."""
        self.kind = kind
        """``e_type`` (1: an object file, 2: an executable, 3: a shared object or a position-independent executable)."""

    def __repr__(self) -> str:
        fields = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.__slots__)
        return f"ElfInfo({fields})"

    def compatible(self, other: ElfInfo) -> bool:
        """Whether the loader would load *other* beside this file (same class, byte order and machine)."""
        return (
            self.elf_class == other.elf_class
            and self.little_endian == other.little_endian
            and self.machine == other.machine
        )


def parse(read: Read) -> ElfInfo | None:
    """The :class:`ElfInfo` of the file *read* gives, or None when it is not a readable ELF file."""
    try:
        return _parse(read)
    except (struct.error, ValueError, OverflowError, UnicodeError):
        return None


def parse_bytes(data: bytes) -> ElfInfo | None:
    """:func:`parse` over bytes in memory."""
    return parse(lambda offset, size: data[offset : offset + size])


def read_file(path: str) -> ElfInfo | None:
    """:func:`parse` of the file at *path* (None when it cannot be opened or is not ELF)."""
    try:
        with open_bytes(path, buffering=0) as fh:
            head = fh.read(4096)  # the ELF header and, in almost every file, the program headers

            def read(offset: int, size: int) -> bytes:
                if offset + size <= len(head):
                    return head[offset : offset + size]
                fh.seek(offset)
                return fh.read(size)

            return parse(read)
    except (OSError, OverflowError, ValueError):
        return None


_Layout = tuple[str, str, str, int, str, int]
"""The struct formats of one ELF class and byte order: the byte order; the header from ``e_type`` to
``e_shstrndx`` (at offset 16); a program header (up to ``p_filesz``) and its size; a dynamic entry; the
offset of ``sh_info`` in a section header (the program header count beyond ``PN_XNUM``)."""


def _layout(elf_class: int, order: str) -> _Layout:
    if elf_class == ELFCLASS64:
        # p_type, p_flags, p_offset, p_vaddr, p_paddr, p_filesz
        return (order, order + "HHIQQQIHHHHHH", order + "IIQQQQ", 56, order + "qQ", 44)
    # p_type, p_offset, p_vaddr, p_paddr, p_filesz (p_flags comes later in 32-bit files)
    return (order, order + "HHIIIIIHHHHHH", order + "IIIII", 32, order + "iI", 28)


def _parse(read: Read) -> ElfInfo | None:
    ident = read(0, 64)
    if len(ident) < 52 or ident[:4] != MAGIC or ident[4] not in (ELFCLASS32, ELFCLASS64) or ident[5] not in (1, 2):
        return None
    elf_class, little = ident[4], ident[5] == 1
    order, header_format, phdr_format, phdr_size, dyn_format, shdr_info = _layout(elf_class, "<" if little else ">")
    header = struct.unpack_from(header_format, ident, 16)
    machine, phoff, shoff, phentsize, phnum = header[1], header[4], header[5], header[8], header[9]
    base = ElfInfo(elf_class, little, machine, kind=header[0])
    if phnum == PN_XNUM:  # the real count is in the first section header
        info = read(shoff + shdr_info, 4)
        phnum = struct.unpack(order + "I", info)[0] if len(info) == 4 else 0
    if phoff == 0 or phnum == 0 or phnum > _MAX_HEADERS or phentsize != phdr_size:  # glibc's checks too
        return base
    table = read(phoff, phnum * phentsize)
    loads: list[tuple[int, int, int]] = []
    dynamic: tuple[int, int] | None = None
    for i in range(min(phnum, len(table) // phentsize)):
        p_type, *rest = struct.unpack_from(phdr_format, table, i * phentsize)
        if elf_class == ELFCLASS64:
            offset, vaddr, filesz = rest[1], rest[2], rest[4]
        else:
            offset, vaddr, filesz = rest[0], rest[1], rest[3]
        if p_type == PT_LOAD:
            loads.append((vaddr, filesz, offset))
        elif p_type == PT_DYNAMIC and dynamic is None:
            dynamic = (offset, filesz)
    if dynamic is None:
        return base
    return _dynamic(read, base, dyn_format, dynamic, loads)


def _dynamic(
    read: Read, base: ElfInfo, dyn_format: str, where: tuple[int, int], loads: list[tuple[int, int, int]]
) -> ElfInfo | None:
    entry = struct.calcsize(dyn_format)
    data = read(where[0], min(where[1], _MAX_DYNAMIC * entry))
    tags: dict[int, list[int]] = {}
    for i in range(len(data) // entry):
        tag, value = struct.unpack_from(dyn_format, data, i * entry)
        if tag == DT_NULL:
            break
        tags.setdefault(tag, []).append(value)
    strtab = _file_offset(tags.get(DT_STRTAB, [None])[0], loads)
    wanted = [*tags.get(DT_NEEDED, ()), *tags.get(DT_RPATH, ()), *tags.get(DT_RUNPATH, ()), *tags.get(DT_SONAME, ())]
    if strtab is None:
        return (
            None if wanted else ElfInfo(base.elf_class, base.little_endian, base.machine, dynamic=True, kind=base.kind)
        )
    strings = _strings(read, strtab, tags.get(DT_STRSZ, [0])[0], wanted)
    if strings is None:
        return None

    def paths(tag: int) -> tuple[str, ...]:
        return tuple(part for value in tags.get(tag, ()) for part in strings[value].split(":"))

    sonames = tags.get(DT_SONAME)
    return ElfInfo(
        base.elf_class,
        base.little_endian,
        base.machine,
        needed=tuple(strings[v] for v in tags.get(DT_NEEDED, ())),
        rpath=paths(DT_RPATH),
        runpath=paths(DT_RUNPATH),
        soname=strings[sonames[0]] if sonames else None,
        nodeflib=any(v & DF_1_NODEFLIB for v in tags.get(DT_FLAGS_1, ())),
        dynamic=True,
        kind=base.kind,
    )


def _file_offset(address: int | None, loads: list[tuple[int, int, int]]) -> int | None:
    """Where the virtual *address* lies in the file, through the ``PT_LOAD`` segment that maps it."""
    if address is None:
        return None
    for vaddr, filesz, offset in loads:
        if vaddr <= address < vaddr + filesz:
            return address - vaddr + offset
    return None


def _strings(read: Read, strtab: int, size: int, offsets: list[int]) -> dict[int, str] | None:
    """The NUL-terminated strings at *offsets* of the string table (None when one is cut off or out of it)."""
    if not offsets:
        return {}
    if size and max(offsets) >= size:
        return None
    low, high = min(offsets), max(offsets)
    chunk = read(strtab + low, high - low + _MAX_STRING) if high - low <= _SPAN else None
    out: dict[int, str] = {}
    for offset in offsets:
        if chunk is not None:
            piece = chunk[offset - low : offset - low + _MAX_STRING]
        else:
            piece = read(strtab + offset, _MAX_STRING)
        end = piece.find(b"\0")
        if end < 0:
            return None
        out[offset] = piece[:end].decode("utf-8", "surrogateescape")
    return out
