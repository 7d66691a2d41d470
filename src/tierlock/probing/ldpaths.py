"""Where the dynamic loader looks for a library: the default folders of a machine, and the dynamic string tokens
(``$ORIGIN``, ``$LIB``, ``$PLATFORM``) of a search path expanded as glibc expands them.
"""

from __future__ import annotations

from collections.abc import Iterable

from tierlock.probing import elf

#: ``e_machine`` and ELF class -> the Debian multiarch folder name of that target.
MULTIARCH = {
    (62, 2): "x86_64-linux-gnu",
    (62, 1): "x86_64-linux-gnux32",
    (3, 1): "i386-linux-gnu",
    (183, 2): "aarch64-linux-gnu",
    (40, 1): "arm-linux-gnueabihf",
    (21, 2): "powerpc64le-linux-gnu",
    (22, 2): "s390x-linux-gnu",
    (243, 2): "riscv64-linux-gnu",
    (258, 2): "loongarch64-linux-gnu",
}
#: ``e_machine`` -> what ``$PLATFORM`` expands to.
PLATFORMS = {62: "x86_64", 3: "i686", 183: "aarch64", 40: "armv7l", 21: "ppc64le", 22: "s390x", 243: "riscv64"}


def default_folders(obj: elf.ElfInfo) -> tuple[str, ...]:
    """The folders the loader searches last for a library of *obj*'s machine and class."""
    arch = MULTIARCH.get((obj.machine, obj.elf_class))
    multiarch = (f"/lib/{arch}", f"/usr/lib/{arch}") if arch else ()
    wide = ("/lib64", "/usr/lib64") if obj.elf_class == elf.ELFCLASS64 else ("/lib32", "/usr/lib32")
    return (*multiarch, *wide, "/lib", "/usr/lib")


def expand(paths: Iterable[str], origin: str, obj: elf.ElfInfo) -> tuple[str, ...]:
    """*paths* with the dynamic string tokens replaced (``$LIB`` and ``$PLATFORM`` by every likely value)."""
    out: list[str] = []
    for path in paths:
        variants = [path.replace("${ORIGIN}", origin).replace("$ORIGIN", origin)]
        if "LIB" in path:
            arch = MULTIARCH.get((obj.machine, obj.elf_class))
            libs = [f"lib/{arch}"] if arch else []
            libs += ["lib64", "lib"] if obj.elf_class == elf.ELFCLASS64 else ["lib32", "lib"]
            variants = [v.replace("${LIB}", lib).replace("$LIB", lib) for v in variants for lib in libs]
        if "PLATFORM" in path:
            platform = PLATFORMS.get(obj.machine, "")
            variants = [v.replace("${PLATFORM}", platform).replace("$PLATFORM", platform) for v in variants]
        out.extend(v for v in variants if v not in out)
    return tuple(out)
