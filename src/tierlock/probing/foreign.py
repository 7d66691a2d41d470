"""The libraries a compiled extension needs on macOS (Mach-O) and Windows (PE), read without loading it.

The same design as :mod:`tierlock.probing.libraries` for ELF: read the file's own list of libraries,
then look each one up the way that system's loader does.

* **Mach-O** (``LC_LOAD_DYLIB``, ``LC_LOAD_WEAK_DYLIB``, ``LC_REEXPORT_DYLIB``, ``LC_LAZY_LOAD_DYLIB``,
  ``LC_LOAD_UPWARD_DYLIB``, ``LC_RPATH``; thin or universal files): ``@rpath/`` through the file's
  ``LC_RPATH`` entries, ``@loader_path/`` from its folder; ``@executable_path/`` depends on the program
  and counts as found; a library under ``/usr/lib/`` or ``/System/Library/`` lives in the system's
  shared cache rather than on disk (macOS 11 and later) and counts as found; a weak library may be
  missing.
* **PE** (the import and delay-import tables): the extension's own folder, every ``*.libs`` folder of
  the site folder (where delvewheel puts a wheel's DLLs), the system folder (``%SystemRoot%\\System32``),
  Python's own DLLs (``python3*.dll``, ``vcruntime*.dll``); ``api-ms-win-*`` and ``ext-ms-*`` names
  are API sets the system resolves. Names compare without case.

The readers never raise: bytes that are not such a file give None.
"""

from __future__ import annotations

import os
import struct
from collections.abc import Callable, Sequence

from tierlock.probing.regular import open_bytes

Read = Callable[[int, int], bytes]

MH_MAGIC, MH_MAGIC_64 = 0xFEEDFACE, 0xFEEDFACF
FAT_MAGIC, FAT_MAGIC_64 = 0xCAFEBABE, 0xCAFEBABF
LC_REQ_DYLD = 0x80000000
LC_LOAD_DYLIB, LC_LAZY_LOAD_DYLIB = 0xC, 0x20
LC_LOAD_WEAK_DYLIB, LC_REEXPORT_DYLIB, LC_LOAD_UPWARD_DYLIB = 0x18 | LC_REQ_DYLD, 0x1F | LC_REQ_DYLD, 0x23 | LC_REQ_DYLD
LC_RPATH = 0x1C | LC_REQ_DYLD
_DYLIBS = {
    LC_LOAD_DYLIB: False,
    LC_LAZY_LOAD_DYLIB: False,
    LC_REEXPORT_DYLIB: False,
    LC_LOAD_UPWARD_DYLIB: False,
    LC_LOAD_WEAK_DYLIB: True,
}
"""The load commands that name a library -> whether it may be missing (weak)."""
_MAX_COMMANDS = 4096
_MAX_ARCHES = 32


def macho(read: Read) -> tuple[list[tuple[str, bool]], list[str]] | None:
    """The libraries a Mach-O file loads ((path, weak) pairs) and its ``LC_RPATH`` entries; None when
    *read* gives no Mach-O file. A universal file gives the union over its architectures."""
    try:
        head = read(0, 8)  # (fewer bytes: struct.error)
        magic = struct.unpack(">I", head[:4])[0]
        if magic in (FAT_MAGIC, FAT_MAGIC_64):
            return _fat(read, magic == FAT_MAGIC_64, struct.unpack(">I", head[4:8])[0])
        return _thin(read, 0)
    except (struct.error, ValueError, OverflowError):
        return None


def _fat(read: Read, wide: bool, count: int) -> tuple[list[tuple[str, bool]], list[str]] | None:
    if count == 0 or count > _MAX_ARCHES:
        return None  # (Java class files share the magic; they count far more "architectures")
    size, offset_at = (32, 8) if wide else (20, 8)
    table = read(8, _MAX_ARCHES * 32)
    libraries: list[tuple[str, bool]] = []
    rpaths: list[str] = []
    for i in range(min(count, len(table) // size)):
        fields = table[i * size : (i + 1) * size]
        offset = struct.unpack(">Q" if wide else ">I", fields[offset_at : offset_at + (8 if wide else 4)])[0]
        found = _thin(read, offset)
        if found is None:
            continue
        libraries += [lib for lib in found[0] if lib not in libraries]
        rpaths += [r for r in found[1] if r not in rpaths]
    return (libraries, rpaths) if libraries or rpaths else None


def _thin(read: Read, start: int) -> tuple[list[tuple[str, bool]], list[str]] | None:
    head = read(start, 32)
    if len(head) < 28:
        return None
    for order in (">", "<"):
        magic = struct.unpack(order + "I", head[:4])[0]
        if magic in (MH_MAGIC, MH_MAGIC_64):
            break
    else:
        return None
    ncmds, sizeofcmds = struct.unpack(order + "II", head[16:24])
    if ncmds > _MAX_COMMANDS:
        return None
    commands = read(start + (32 if magic == MH_MAGIC_64 else 28), min(sizeofcmds, 1 << 20))
    libraries: list[tuple[str, bool]] = []
    rpaths: list[str] = []
    at = 0
    for _ in range(ncmds):
        if at + 12 > len(commands):
            break
        cmd, size, name_at = struct.unpack(order + "III", commands[at : at + 12])
        if size < 8:
            break
        body = commands[at : at + size]
        text = _c_string(body, name_at) if cmd == LC_RPATH or cmd in _DYLIBS else None
        if text is not None and cmd == LC_RPATH:
            rpaths.append(text)
        elif text is not None:
            libraries.append((text, _DYLIBS[cmd]))
        at += size
    return libraries, rpaths


def _c_string(body: bytes, offset: int) -> str | None:
    if not 0 < offset < len(body):
        return None
    end = body.find(b"\0", offset)
    return body[offset : end if end >= 0 else len(body)].decode("utf-8", "surrogateescape") or None


def pe(read: Read) -> list[str] | None:
    """The DLLs a PE file imports (the import and delay-import tables, in order); None when *read* gives
    no PE file."""
    try:
        return _pe(read)
    except (struct.error, ValueError, OverflowError):
        return None


def _pe(read: Read) -> list[str] | None:
    dos = read(0, 64)
    if len(dos) < 64 or dos[:2] != b"MZ":
        return None
    lfanew = struct.unpack_from("<I", dos, 0x3C)[0]
    coff = read(lfanew, 24)
    if len(coff) < 24 or coff[:4] != b"PE\0\0":
        return None
    sections, optional_size = struct.unpack_from("<H12xH", coff, 6)  # NumberOfSections, SizeOfOptionalHeader
    optional = read(lfanew + 24, optional_size)
    wide = struct.unpack_from("<H", optional, 0)[0] == 0x20B  # (an optional header cut short: struct.error)
    directories = 112 if wide else 96
    table = read(lfanew + 24 + optional_size, min(sections, 96) * 40)  # (cut short: struct.error)
    # Each section header: Name, VirtualSize, VirtualAddress, SizeOfRawData, PointerToRawData, and the rest.
    spans: list[tuple[int, int, int, int]] = [f[1:5] for f in struct.iter_unpack("<8sIIIIIIHHI", table)]

    def offset(rva: int) -> int | None:
        for virtual_size, address, raw_size, raw in spans:
            if address <= rva < address + max(virtual_size, raw_size):
                return rva - address + raw
        return None

    out: list[str] = []
    for index, entry, name_at in ((1, 20, 12), (13, 32, 4)):  # imports, delay-load imports
        where = directories + index * 8
        rva = struct.unpack_from("<I", optional, where)[0] if where + 8 <= len(optional) else 0
        start = offset(rva) if rva else None
        if start is None:
            continue
        for i in range(1024):
            descriptor = read(start + i * entry, entry)
            if len(descriptor) < entry or not any(descriptor):
                break
            name = offset(struct.unpack_from("<I", descriptor, name_at)[0])
            text = _c_string(b"\0" + read(name, 260), 1) if name is not None else None
            if text and text not in out:
                out.append(text)
    return out


def missing(path: str, sites: Sequence[str], *, system: str | None = None) -> list[str]:
    """The libraries the Mach-O or PE extension at *path* needs that its system's loader cannot find;
    *system*: the Windows system folder (default: ``%SystemRoot%\\System32``)."""
    try:
        with open_bytes(path, buffering=0) as fh:

            def read(offset: int, size: int) -> bytes:
                fh.seek(offset)
                return fh.read(size)

            dlls = pe(read)
            found = macho(read) if dlls is None else None
    except (OSError, OverflowError, ValueError):
        return []
    if dlls is not None:
        return [dll for dll in dlls if not _dll_found(dll, path, sites, system)]
    if found is None:
        return []
    libraries, rpaths = found
    origin = os.path.dirname(path)
    return [lib for lib, weak in libraries if not weak and not _dylib_found(lib, origin, rpaths)]


def _dylib_found(library: str, origin: str, rpaths: Sequence[str]) -> bool:
    if library.startswith("@executable_path/"):
        return True
    if library.startswith("@loader_path/"):
        return os.path.exists(os.path.join(origin, library[len("@loader_path/") :]))
    if library.startswith("@rpath/"):
        tail = library[len("@rpath/") :]
        places = [r.replace("@loader_path", origin) for r in rpaths if not r.startswith("@executable_path")]
        return any(os.path.exists(os.path.join(p, tail)) for p in places) or any(
            r.startswith("@executable_path") for r in rpaths
        )
    return library.startswith(("/usr/lib/", "/System/Library/")) or os.path.exists(library)


def _dll_found(dll: str, path: str, sites: Sequence[str], system: str | None) -> bool:
    name = dll.lower()
    if name.startswith(("api-ms-win-", "ext-ms-", "python3", "vcruntime", "msvcp")):
        return True
    system = system or os.path.join(os.environ.get("SYSTEMROOT", "C:\\Windows"), "System32")
    places = [os.path.dirname(path), system]
    for site in sites:
        try:
            places += [os.path.join(site, n) for n in os.listdir(site) if n.endswith(".libs")]
        except OSError:
            continue
    for place in places:
        try:
            if name in (n.lower() for n in os.listdir(place)):
                return True
        except OSError:
            continue
    return False
