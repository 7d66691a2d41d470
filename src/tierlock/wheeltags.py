"""The wheel tags a target interpreter accepts, computed in this process from what the target reported.

``packaging.tags.sys_tags()`` describes only the interpreter it runs in, and
packaging itself does not import on every Python a target may run (3.9). So
the target reports the few facts the tags depend on (:class:`tierlock.environment.Target`:
its implementation and version, ``EXT_SUFFIX``, ``sysconfig.get_platform()``,
its C library and pointer width) and the tags are built here with packaging's
own public functions (``cpython_tags``, ``generic_tags``, ``compatible_tags``).
The platform tags (manylinux, musllinux, macOS versions) are packaging's for
this machine when the target runs on the same platform with the same C
library and width; otherwise only the target's own platform tag.
"""

from __future__ import annotations

import sys
import sysconfig
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tierlock.environment import Target


def ordered_tags(target: Target) -> tuple[str, ...]:
    """Every wheel tag *target* accepts, most preferred first (``packaging.tags.sys_tags`` order)."""
    from packaging import tags

    name = target.marker_env.get("implementation_name", "cpython")
    short = tags.INTERPRETER_SHORT_NAMES.get(name, name)
    version = target.version[:2]
    platforms = platform_tags(target)
    abis = abis_of(target.ext_suffix)
    if short == "cp":
        specific = tags.cpython_tags(version, abis or [f"cp{version[0]}{version[1]}"], platforms)
        interpreter: str | None = f"cp{version[0]}{version[1]}"
    else:
        specific = tags.generic_tags(f"{short}{version[0]}{version[1]}", [*abis, "none"], platforms)
        interpreter = "pp3" if short == "pp" else None
    compatible = tags.compatible_tags(version, interpreter, platforms)
    return tuple(dict.fromkeys(str(t) for t in (*specific, *compatible)))


def abis_of(ext_suffix: str) -> list[str]:
    """The ABI tag an ``EXT_SUFFIX`` names (packaging's rule for the running interpreter, for another one)."""
    parts = ext_suffix.split(".")
    if not ext_suffix.startswith(".") or len(parts) < 3:
        return []
    soabi = parts[1]
    if soabi.startswith("cpython"):
        pieces = soabi.split("-")
        abi = "cp" + pieces[1] if len(pieces) > 1 and pieces[1] else ""
    elif soabi.startswith("cp"):
        abi = soabi.split("-")[0]
    elif soabi.startswith("pypy"):
        abi = "-".join(soabi.split("-")[:2])
    elif soabi.startswith("graalpy"):
        abi = "-".join(soabi.split("-")[:3])
    else:
        abi = soabi
    return [abi.replace("-", "_").replace(".", "_").replace(" ", "_")] if abi else []


def platform_tags(target: Target) -> list[str]:
    """packaging's platform tags for this machine when *target* shares its platform, C library and width; else
    the target's own platform tag (no manylinux or macOS range can be derived for another machine)."""
    from packaging import tags

    own_bits = 64 if sys.maxsize > 2**32 else 32
    same = (target.platform, target.libc, target.bits) == (sysconfig.get_platform(), own_libc(), own_bits)
    if same:
        return list(tags.platform_tags())
    plain = target.platform.replace("-", "_").replace(".", "_").replace(" ", "_")
    if target.bits == 32 and plain == "linux_x86_64":
        plain = "linux_i686"
    return [plain]


def own_libc() -> str:
    """This process's C library (``glibc 2.36``), or "" where there is none to name."""
    import os

    try:
        return os.confstr("CS_GNU_LIBC_VERSION") or ""
    except (AttributeError, ValueError, OSError):
        return ""
