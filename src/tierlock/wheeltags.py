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

    if _same(target):
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


def _same(target: Target) -> bool:
    """Whether *target* shares this process's platform, C library and width (its platform tags are then exact)."""
    own_bits = 64 if sys.maxsize > 2**32 else 32
    return (target.platform, target.libc, target.bits) == (sysconfig.get_platform(), own_libc(), own_bits)


def kind(platform: str) -> tuple[str, str]:
    """A platform tag's system family and machine: ``manylinux_2_17_x86_64``, ``musllinux_1_2_x86_64`` and
    ``linux_x86_64`` are ``("linux", "x86_64")`` (which C library a target of another platform string has is not
    told here), ``macosx_11_0_arm64`` is ``("macosx", "arm64")``, ``win_amd64`` is ``("win", "amd64")``."""
    family, _, rest = platform.partition("_")
    parts = rest.split("_")
    while parts[:-1] and parts[0].isdigit():
        parts = parts[1:]  # the version numbers (manylinux_2_17_, macosx_11_0_, musllinux_1_2_)
    family = "linux" if "linux" in family else family
    return family, "_".join(parts)


class Fit:
    """Which wheel tags a target accepts, as an installed distribution's WHEEL file names them.

    Exact (:func:`ordered_tags`) when the target shares this process's platform; for a target on another
    platform string (a macOS build for another deployment target, another C library), whose range of platform
    tags cannot be derived here, a tag fits when its interpreter and ABI are the target's and its platform names the
    target's system family and machine (``universal2`` either macOS machine)."""

    __slots__ = ("exact", "first", "heads", "own", "tags")

    def __init__(self, ordered: tuple[str, ...], *, exact: bool) -> None:
        self.tags = frozenset(ordered)
        self.first = ordered[0] if ordered else "no wheel tags"
        """The target's most preferred tag (what a reason shows of it)."""
        self.exact = exact
        self.heads = frozenset(t.rpartition("-")[0] for t in ordered)
        self.own = kind(ordered[0].rpartition("-")[2]) if ordered else ("", "")

    @classmethod
    def of(cls, target: Target) -> Fit:
        return cls(target.ordered_tags, exact=_same(target))

    @classmethod
    def running(cls) -> Fit:
        """The running interpreter's (the pytest plugin probes the environment it runs in)."""
        from packaging import tags

        return cls(tuple(dict.fromkeys(str(t) for t in tags.sys_tags())), exact=True)

    def accepts(self, tag: str) -> bool:
        if tag in self.tags:
            return True
        if self.exact:
            return False
        head, _, platform = tag.rpartition("-")
        family, machine = kind(platform)
        if head not in self.heads or family != self.own[0]:
            return False
        return machine == self.own[1] or (family == "macosx" and "universal2" in (machine, self.own[1]))

    def foreign(self, tags: tuple[str, ...]) -> bool:
        """Whether a wheel whose WHEEL file lists *tags* was built for no tag this target accepts (a wheel for any
        platform, ``-any``, is never judged: its interpreter part says only which Pythons it was meant for)."""
        return bool(tags) and not any(t.endswith("-any") or self.accepts(t) for t in tags)
