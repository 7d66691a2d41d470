"""Which system package provides a shared library: the remedy when the loader cannot find one.

Read from this system's own package databases, offline, in this order:

* **dpkg** (Debian, Ubuntu): a package whose file list (``/var/lib/dpkg/info/*.list``) names the
  library is installed but lost the file: ``apt-get install --reinstall PACKAGE``;
* **rpm** (Fedora, RHEL, openSUSE): packages provide their sonames (``libfoo.so.1()(64bit)``), so
  ``dnf install 'libfoo.so.1()(64bit)'`` names the library itself;
* **apk** (Alpine): the same with ``apk add so:libfoo.so.1``;
* otherwise, on a dpkg system, the package Debian's naming rule gives (``libfoo.so.1`` is usually in
  ``libfoo1``; ``libfoo2.so.3`` in ``libfoo2-3``), said as likely, not certain; elsewhere the library
  is named and the user provides it.

Only on the path where a library is missing: nothing here runs while every library is found.
"""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Sequence

_SONAME = re.compile(r"^(?P<stem>.+?)\.so(?:\.(?P<version>[0-9][0-9.]*))?$")


def debian_package(library: str) -> str | None:
    """The package Debian's policy names after *library*'s soname (``libfoo.so.1`` -> ``libfoo1``), or None."""
    match = _SONAME.match(library)
    if match is None or not match.group("version"):
        return None
    stem, version = match.group("stem"), match.group("version")
    joint = "-" if stem[-1].isdigit() else ""
    return f"{stem}{joint}{version}".lower().replace("_", "-")


def dpkg_owner(library: str, root: str = "/") -> str | None:
    """The installed dpkg package whose file list names *library* (its file may be gone), or None."""
    info = os.path.join(root, "var", "lib", "dpkg", "info")
    try:
        names = sorted(n for n in os.listdir(info) if n.endswith(".list"))
    except OSError:
        return None
    tail = f"/{library}\n"
    for name in names:
        try:
            with open(os.path.join(info, name), encoding="utf-8", errors="replace") as fh:
                if any(line.endswith(tail) for line in fh):
                    return name[: -len(".list")].partition(":")[0]
        except OSError:
            continue
    return None


def _has(root: str, *parts: str) -> bool:
    return os.path.exists(os.path.join(root, *parts))


def command(libraries: Sequence[str], *, wide: bool = True, root: str = "/") -> str | None:
    """The one command that provides every library in *libraries* here, or None when none can be told.

    *wide*: the libraries are 64-bit (rpm names 64-bit sonames with ``()(64bit)``).
    """
    if not libraries:
        return None
    if _has(root, "var", "lib", "dpkg", "status"):
        owners = [dpkg_owner(lib, root) for lib in libraries]
        if all(owners):
            return shlex.join(["apt-get", "install", "--reinstall", *dict.fromkeys(o for o in owners if o)])
        return None
    if _has(root, "var", "lib", "rpm") or _has(root, "usr", "lib", "sysimage", "rpm"):
        return shlex.join(["dnf", "install", *(f"{lib}()(64bit)" if wide else lib for lib in libraries)])
    if _has(root, "lib", "apk", "db", "installed"):
        return shlex.join(["apk", "add", *(f"so:{lib}" for lib in libraries)])
    return None


def remedy(libraries: Sequence[str], *, wide: bool = True, root: str = "/") -> str:
    """How to provide *libraries*: the command when one can be told, else what to provide (and the likely
    Debian package names on a dpkg system)."""
    found = command(libraries, wide=wide, root=root)
    if found is not None:
        return found
    names = " and ".join(dict.fromkeys(libraries))
    text = f"provide {names} (the dynamic loader finds it in the loader cache, a default folder or LD_LIBRARY_PATH)"
    guesses = [p for p in (debian_package(lib) for lib in dict.fromkeys(libraries)) if p]
    if guesses and _has(root, "var", "lib", "dpkg", "status"):
        text += f"; on Debian and Ubuntu it is usually in: apt-get install {' '.join(guesses)}"
    return text
