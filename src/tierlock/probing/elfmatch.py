"""Whether the target interpreter can load an ELF extension module at all: the file's own header read against
the interpreter's.

A file can be whole (there, with its recorded size and hash) and still be refused by the dynamic loader before
any library it needs is looked for: ``import`` fails with ``wrong ELF class: ELFCLASS32``, ``cannot open shared
object file`` (an extension built for another machine: a venv shared between an arm64 host and an x86_64
container), ``invalid ELF header`` (a Mach-O or PE file, or no binary at all) or ``file too short``. The
target's class, byte order and machine are read from the target interpreter's own file (its ``sys.executable``,
symbolic links followed), never from the Python tierlock runs on. Standard library only, a few bytes of each file.
"""

from __future__ import annotations

import os

from tierlock.probing import elf
from tierlock.probing.regular import open_bytes

ET_REL, ET_EXEC = 1, 2
_MACHINES = {
    3: "i386",
    8: "mips",
    20: "ppc",
    21: "ppc64",
    22: "s390x",
    40: "arm",
    62: "x86_64",
    183: "aarch64",
    258: "loongarch64",
}
"""``e_machine`` -> the name ``uname -m`` gives (the usual ones)."""
_KINDS = {ET_REL: "an ELF object file (.o)", ET_EXEC: "an ELF executable"}
_PLATFORMS: dict[str, tuple[tuple[int, int, int, int] | None, elf.ElfInfo | None]] = {}
"""What was read of each interpreter, by the path it was named by: the identity of the file it resolves to."""


def platform_of(python: str) -> elf.ElfInfo | None:
    """The ELF header of the interpreter *python* (symbolic links followed), or None when it is no ELF file
    (a script, another system's binary): then nothing is checked. Read again only when that file changed."""
    real = os.path.realpath(python)
    try:
        st = os.stat(real)
    except (OSError, ValueError):
        return None
    identity = (st.st_size, st.st_mtime_ns, st.st_ino, st.st_ctime_ns)
    known = _PLATFORMS.get(python)
    if known is not None and known[0] == identity:
        return known[1]
    info = elf.read_file(real)
    _PLATFORMS[python] = (identity, info)
    return info


def name(info: elf.ElfInfo) -> str:
    """How ``uname -m`` names the machine of *info* (``x86_64``, ``aarch64``, ``ppc64le``)."""
    machine = _MACHINES.get(info.machine, f"ELF machine {info.machine}")
    if info.machine == 21 and info.little_endian:
        return "ppc64le"
    if info.machine == 22 and info.elf_class == elf.ELFCLASS32:
        return "s390"
    if info.machine == 243:
        return f"riscv{32 if info.elf_class == elf.ELFCLASS32 else 64}"
    return machine


def _described(info: elf.ElfInfo, other: elf.ElfInfo) -> str:
    """*info*'s machine, with its class and byte order when that is what tells it from *other*'s."""
    said = name(info)
    if said != name(other):
        return said
    bits = "32-bit" if info.elf_class == elf.ELFCLASS32 else "64-bit"
    return f"{said} ({bits}, {'little' if info.little_endian else 'big'}-endian)"


def refused(path: str, info: elf.ElfInfo | None, target: elf.ElfInfo) -> str | None:
    """Why the dynamic loader of the interpreter whose header is *target* refuses the extension at *path*
    (*info*: what :func:`tierlock.probing.elf.read_file` read of it), as a reason says it; None when it
    does not (or when only the file's dynamic section is unreadable: the loader may still take it)."""
    if info is None:
        return _header_problem(path)
    if not target.compatible(info):
        return f"is built for {_described(info, target)}, and this environment runs {_described(target, info)}"
    kind = _KINDS.get(info.kind)
    return None if kind is None else f"is {kind}, not a shared object"


def _header_problem(path: str) -> str | None:
    """What is wrong with the first bytes of a readable file :func:`tierlock.probing.elf.parse` could not read."""
    try:
        with open_bytes(path, buffering=0) as fh:
            head = fh.read(64)
    except OSError:
        return None
    if head[:4] != elf.MAGIC:
        return f"is not an ELF file ({_what(head)})"
    wide = head[4:5] == b"\x02"
    if head[4:5] not in (b"\x01", b"\x02") or head[5:6] not in (b"\x01", b"\x02"):
        return "has an invalid ELF header (no ELF class or byte order)"
    if len(head) < (64 if wide else 52):
        return f"is cut short ({len(head)} bytes, shorter than an ELF header)"
    return None


def _what(head: bytes) -> str:
    """What a file that is no ELF file looks like, by its first bytes."""
    if head[:4] in (b"\xcf\xfa\xed\xfe", b"\xce\xfa\xed\xfe", b"\xca\xfe\xba\xbe", b"\xfe\xed\xfa\xcf"):
        return "a Mach-O file: built for macOS"
    if head[:2] == b"MZ":
        return "a PE file: built for Windows"
    return "no compiled code" if head else "an empty file"


def libc(needed: str) -> str | None:
    """The C library family a ``DT_NEEDED`` name belongs to (``libc.so.6``: glibc; ``libc.musl-x86_64.so.1``:
    musl libc), or None when it is no C library."""
    if needed == "libc.so.6":
        return "glibc"
    if needed.startswith("libc.musl-") or needed == "libc.so":
        return "musl libc"
    return None


def another_libc(needed: str, target: elf.ElfInfo) -> str | None:
    """Why an extension needing the C library *needed*, which the loader cannot find, is built for another
    platform than the interpreter whose header is *target* (it uses another C library family); None when not."""
    family = libc(needed)
    own = {libc(name) for name in target.needed} - {None}
    if family is None or not own or family in own:
        return None
    return f"is built for {family} (it needs {needed}), and this environment runs {', '.join(sorted(map(str, own)))}"
