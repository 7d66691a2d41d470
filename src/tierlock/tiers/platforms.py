"""Declared platforms: short names and wheel platform tags, what each accepts, and its markers (pure).

``[tool.tierlock].platforms`` names the machines a project supports, either by
a short name (``linux-x86_64``) or by the wheel platform tag it stands for
(``manylinux_2_17_x86_64``). A platform is the oldest machine of its kind the
project promises to install on: ``manylinux_2_28_x86_64`` is every x86_64 Linux
with glibc 2.28 or newer, so a wheel tagged ``manylinux_2_17`` fits it and one
tagged ``manylinux_2_34`` does not. libc is a dimension of its own: glibc
(manylinux) and musl (musllinux) wheels never stand in for each other.

The interpreter and ABI part of the tags comes from :mod:`packaging.tags`
(``cpython_tags`` and ``compatible_tags`` for a given Python version); macOS
platform tags from ``packaging.tags.mac_platforms``. Only the manylinux and
musllinux ladders are spelled here, because packaging derives them from the
running machine's libc, never from a stated one.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from functools import lru_cache
from typing import TYPE_CHECKING

from tierlock import _lazy
from tierlock.frozen import Frozen

if TYPE_CHECKING:
    from typing import Literal, TypeAlias

    OS: TypeAlias = Literal["linux", "macos", "windows"]

#: The values of the ``Literal`` aliases above, made by :func:`__getattr__` at run time.
_ALIASES: dict[str, tuple[str, ...]] = {"OS": ("linux", "macos", "windows")}

__getattr__ = _lazy.literals(__name__, _ALIASES)


#: Short names and the wheel platform tag each stands for (the oldest machine it promises).
SHORT_NAMES: dict[str, str] = {
    "linux-x86_64": "manylinux_2_28_x86_64",
    "linux-aarch64": "manylinux_2_28_aarch64",
    "linux-x86_64-musl": "musllinux_1_2_x86_64",
    "linux-aarch64-musl": "musllinux_1_2_aarch64",
    "macos-arm64": "macosx_13_0_arm64",
    "macos-x86_64": "macosx_13_0_x86_64",
    "windows-x86_64": "win_amd64",
    "windows-arm64": "win_arm64",
    "windows-x86": "win32",
}

#: The CPython minor versions a ``requires-python`` range is checked at (released versions).
KNOWN_PYTHONS: tuple[tuple[int, int], ...] = tuple((3, minor) for minor in range(8, 15))

# (patterns compiled on their first use, through re's own cache: most runs declare no platform)
_MANYLINUX = r"manylinux_(\d+)_(\d+)_(x86_64|aarch64|i686|armv7l|ppc64le|s390x|riscv64)"
_LEGACY = r"manylinux(1|2010|2014)_(x86_64|aarch64|i686|armv7l|ppc64le|s390x)"
_LEGACY_GLIBC = {"1": (2, 5), "2010": (2, 12), "2014": (2, 17)}
_MUSLLINUX = r"musllinux_(\d+)_(\d+)_(x86_64|aarch64|i686|armv7l|ppc64le|s390x|riscv64)"
_MACOS = r"macosx_(\d+)_(\d+)_(arm64|x86_64)"
_WINDOWS = {"win_amd64": "AMD64", "win_arm64": "ARM64", "win32": "x86"}
_MACHINE = {"arm64": "arm64", "x86_64": "x86_64"}


class Platform(Frozen):
    """One declared platform: the name as written, and the wheel platform tag it stands for."""

    _fields = ("name", "tag", "os", "arch", "libc", "version")

    name: str
    tag: str
    os: OS
    arch: str
    """The machine as ``platform.machine()`` reports it there (``x86_64``, ``aarch64``, ``arm64``, ``AMD64``)."""
    libc: Literal["glibc", "musl"] | None
    version: tuple[int, int] | None
    """glibc, musl or macOS version of the tag (None on Windows)."""

    def __init__(  # noqa: PLR0917 (the signature it had as a dataclass)
        self,
        name: str,
        tag: str,
        os: OS,
        arch: str,
        libc: Literal["glibc", "musl"] | None = None,
        version: tuple[int, int] | None = None,
    ) -> None:
        self._init(name, tag, os, arch, libc, version)

    @property
    def label(self) -> str:
        """``linux-x86_64 (manylinux_2_28_x86_64)``, or just the tag when it was declared as one."""
        return self.name if self.name == self.tag else f"{self.name} ({self.tag})"

    def platform_tags(self) -> list[str]:
        """The wheel platform tags a machine of this platform accepts, most specific first."""
        return list(_platform_tags(self.tag))

    def tags(self, python: tuple[int, int]) -> frozenset[str]:
        """Every wheel tag CPython *python* accepts here (``cp311-cp311-manylinux_2_17_x86_64``, ``py3-none-any``)."""
        return _tags(self.tag, python)

    def marker_environment(self, python: tuple[int, int], micro: int = 0) -> dict[str, str]:
        """The PEP 508 marker environment of CPython *python* on this platform."""
        full = f"{python[0]}.{python[1]}.{micro}"
        system, sys_platform, os_name = {
            "linux": ("Linux", "linux", "posix"),
            "macos": ("Darwin", "darwin", "posix"),
            "windows": ("Windows", "win32", "nt"),
        }[self.os]
        return {
            "implementation_name": "cpython",
            "implementation_version": full,
            "os_name": os_name,
            "platform_machine": self.arch,
            "platform_python_implementation": "CPython",
            "platform_release": "",
            "platform_system": system,
            "platform_version": "",
            "python_full_version": full,
            "python_version": f"{python[0]}.{python[1]}",
            "sys_platform": sys_platform,
        }


def parse(text: str) -> Platform:
    """The platform *text* names (a short name or a wheel platform tag); ValueError says why not."""
    name = text.strip()
    tag = SHORT_NAMES.get(name.lower(), name.lower().replace("-", "_").replace(".", "_"))
    if name.lower() in SHORT_NAMES:
        name = name.lower()
    platform = _from_tag(name, tag)
    if platform is None:
        raise ValueError(_unknown(text))
    return platform


def _from_tag(name: str, tag: str) -> Platform | None:
    if (match := re.fullmatch(_LEGACY, tag)) is not None:
        major, minor = _LEGACY_GLIBC[match.group(1)]
        tag = f"manylinux_{major}_{minor}_{match.group(2)}"
    if (match := re.fullmatch(_MANYLINUX, tag)) is not None:
        version = (int(match.group(1)), int(match.group(2)))
        return Platform(name, tag, "linux", match.group(3), "glibc", version)
    if (match := re.fullmatch(_MUSLLINUX, tag)) is not None:
        version = (int(match.group(1)), int(match.group(2)))
        return Platform(name, tag, "linux", match.group(3), "musl", version)
    if (match := re.fullmatch(_MACOS, tag)) is not None:
        version = (int(match.group(1)), int(match.group(2)))
        return Platform(name, tag, "macos", _MACHINE[match.group(3)], None, version)
    if tag in _WINDOWS:
        return Platform(name, tag, "windows", _WINDOWS[tag])
    return None


def _unknown(text: str) -> str:
    import difflib  # a did-you-mean hint for a mistyped platform: every command loads this module

    hint = difflib.get_close_matches(text.strip().lower(), list(SHORT_NAMES), n=1)
    if text.strip().lower().startswith("linux_"):
        why = "names no libc; write manylinux_2_X_ARCH (glibc) or musllinux_1_X_ARCH (musl)"
    else:
        why = f"is not a platform: use a short name ({', '.join(SHORT_NAMES)}) or a wheel platform tag"
    return f"{text!r} {why}" + (f" (did you mean {hint[0]!r}?)" if hint else "")


@lru_cache(maxsize=64)
def _platform_tags(tag: str) -> tuple[str, ...]:
    platform = _from_tag(tag, tag)
    assert platform is not None, tag
    if platform.os == "windows":
        return (tag,)
    assert platform.version is not None
    major, minor = platform.version
    if platform.os == "macos":
        from packaging.tags import mac_platforms

        return tuple(mac_platforms((major, minor), "arm64" if platform.arch == "arm64" else "x86_64"))
    if platform.libc == "musl":
        return tuple(f"musllinux_{major}_{m}_{platform.arch}" for m in range(minor, -1, -1))
    return tuple(_manylinux(major, minor, platform.arch))


def _manylinux(major: int, minor: int, arch: str) -> Iterable[str]:
    """``manylinux_2_28_x86_64`` down to the oldest glibc of *arch*, each legacy alias after its version."""
    oldest = 5 if arch in ("x86_64", "i686") else 17
    aliases = {17: "manylinux2014", 12: "manylinux2010", 5: "manylinux1"}
    for m in range(minor, oldest - 1, -1):
        yield f"manylinux_{major}_{m}_{arch}"
        if major == 2 and m in aliases and (m == 17 or arch in ("x86_64", "i686")):
            yield f"{aliases[m]}_{arch}"


@lru_cache(maxsize=256)
def _tags(tag: str, python: tuple[int, int]) -> frozenset[str]:
    from packaging import tags

    platforms = _platform_tags(tag)
    interpreter = f"cp{python[0]}{python[1]}"
    found = [
        *tags.cpython_tags(python, [interpreter], platforms),
        *tags.compatible_tags(python, interpreter, platforms),
    ]
    return frozenset(str(t) for t in found)


def python_versions(requires_python: str | None) -> list[tuple[tuple[int, int], int]]:
    """The known CPython minor versions *requires-python* allows, each with its lowest allowed micro version.

    An unreadable specifier allows every known version (the project loader reports it).
    """
    from packaging.specifiers import InvalidSpecifier, SpecifierSet
    from packaging.version import Version

    try:
        spec = SpecifierSet(requires_python or "")
    except InvalidSpecifier:
        spec = SpecifierSet("")
    out: list[tuple[tuple[int, int], int]] = []
    for major, minor in KNOWN_PYTHONS:
        micro = next((m for m in range(40) if spec.contains(Version(f"{major}.{minor}.{m}"), prereleases=True)), None)
        if micro is not None:
            out.append(((major, minor), micro))
    return out


def version_text(python: tuple[int, int]) -> str:
    return f"{python[0]}.{python[1]}"


def versions_text(versions: Sequence[str]) -> str:
    """``3.10-3.14`` for a run of consecutive minor versions, else ``3.11, 3.13`` (pure)."""
    minors = [int(v.split(".")[1]) for v in versions]
    majors = {v.split(".")[0] for v in versions}
    if len(versions) > 2 and len(majors) == 1 and minors == list(range(minors[0], minors[0] + len(minors))):
        return f"{versions[0]}-{versions[-1]}"
    return ", ".join(versions)
