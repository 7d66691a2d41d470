"""What a failed build from source was missing, read from the backend's output (pure).

uv and pip print the build's own output when a build fails. Where it tells,
this names the package and what the build lacked: a C header
(``fatal error: mysql.h: No such file or directory``), a pkg-config package
(``Package libpq was not found``, mysqlclient's ``pkg-config --exists
mysqlclient`` probe), pkg-config itself, a compiler (gcc, a Rust toolchain,
MSVC), or a Python build dependency (``No module named 'pkg_resources'``).
The remedy then changes something: the system package that provides it (named
for Debian and Ubuntu where it is well known), or what to give the build.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal


def _wrapped(pattern: str) -> re.Pattern[str]:
    """*pattern* with each space matching any run of whitespace: uv wraps a build's long lines."""
    return re.compile(pattern.replace(" ", r"\s+"))


MissingKind = Literal["header", "pkg-config", "pkg-config-tool", "compiler", "build-dependency"]

_FAILED_UV = _wrapped(r"Failed to (?:download and )?build `([A-Za-z0-9._-]+)(?:==|@ ?)([^`\s]*)`")
_FAILED_PIP = re.compile(
    r"(?:Building wheel for|Failed building wheel for|Failed to build(?! installable)) ([A-Za-z0-9._-]+)|"
    r"(?:Collecting|Processing) (?:\S*/)?([A-Za-z0-9._-]+?)(?:==|-)(\d[^\s/]*?)(?:\.tar\.gz|\.zip)?(?:\s|$)"
)
_BUILD_BROKE = re.compile(
    r"Failed to (?:download and )?build\b|did not run successfully|Failed building wheel|"
    r"metadata-generation-failed|subprocess-exited-with-error|The build backend returned an error"
)
_HEADER = _wrapped(
    r"fatal error: [`'\"]?([\w./+-]+\.h(?:pp)?)[`'\"]?:? (?:No such file or directory|file not found)"
    r"|Cannot open include file: '([\w./+-]+)'"
)
_PKG_CONFIG = _wrapped(
    r"Package '?([\w.+-]+)'?,? (?:was not found in the pkg-config search path|required by '[^']*', not found)"
)
_PKG_CONFIG_PROBE = _wrapped(r"pkg-config --exists ([\w.+-]+)' returned non-zero")
_PKG_CONFIG_TOOL = _wrapped(
    r"pkg-config: (?:command )?not found|Did not find pkg-config|No such file or directory: 'pkg-config'"
)
_COMPILER = _wrapped(
    r"error: command '(?:\S*/)?([\w.+-]*(?:gcc|cc|clang|g\+\+|c\+\+))' failed: No such file or directory"
    r"|unable to execute '(?:\S*/)?([\w.+-]+)': No such file or directory"
    r"|\b(gcc|cc|clang|g\+\+|c\+\+): (?:command )?not found"
    r"|(can't find Rust compiler|Cargo, the Rust package manager, is not installed|cargo: (?:command )?not found)"
    r"|(Microsoft Visual C\+\+ [\d.]+ or greater is required)"
)
_MODULE = _wrapped(r"ModuleNotFoundError: No module named '([\w.]+)'")

#: Debian/Ubuntu packages for headers and pkg-config names that builds commonly lack.
APT: Mapping[str, str] = {
    "mysqlclient": "default-libmysqlclient-dev",
    "mariadb": "libmariadb-dev",
    "mysql.h": "default-libmysqlclient-dev",
    "mysql/mysql.h": "default-libmysqlclient-dev",
    "libpq": "libpq-dev",
    "libpq-fe.h": "libpq-dev",
    "Python.h": "python3-dev",
    "ffi.h": "libffi-dev",
    "libffi": "libffi-dev",
    "openssl": "libssl-dev",
    "openssl/ssl.h": "libssl-dev",
    "libssl": "libssl-dev",
    "libxml-2.0": "libxml2-dev",
    "libxml/xmlversion.h": "libxml2-dev",
    "libxslt": "libxslt1-dev",
    "zlib": "zlib1g-dev",
    "zlib.h": "zlib1g-dev",
    "krb5-gssapi": "libkrb5-dev",
    "gssapi/gssapi.h": "libkrb5-dev",
    "sqlite3": "libsqlite3-dev",
    "sqlite3.h": "libsqlite3-dev",
    "libjpeg": "libjpeg-dev",
    "jpeglib.h": "libjpeg-dev",
    "cairo": "libcairo2-dev",
    "sql.h": "unixodbc-dev",
    "odbc": "unixodbc-dev",
}
#: Modules a build imports that its build dependency dropped, and the constraint that brings them back.
BUILD_CONSTRAINTS: Mapping[str, str] = {
    "pkg_resources": "setuptools<82",  # setuptools 82 removed pkg_resources
}


@dataclass(frozen=True)
class Missing:
    """One thing a build lacked."""

    kind: MissingKind
    name: str
    alternatives: tuple[str, ...] = ()
    """Other names that would do as well (a build that probes for ``mysqlclient``, then ``mariadb``)."""

    def text(self) -> str:
        either = f" (or {', '.join(self.alternatives)})" if self.alternatives else ""
        return {
            "header": f"the C header {self.name}",
            "pkg-config": f"the pkg-config package {self.name}{either}",
            "pkg-config-tool": "pkg-config itself",
            "compiler": f"a compiler ({self.name})",
            "build-dependency": f"the build dependency {self.name}",
        }[self.kind]


@dataclass(frozen=True)
class BuildFailure:
    """A build from source that failed: of which package, and what it lacked (empty: it does not say)."""

    package: str | None
    version: str | None
    missing: tuple[Missing, ...]

    @property
    def pin(self) -> str:
        return f"{self.package} {self.version}".strip() if self.package else "a package"

    def lacks(self) -> str:
        """``the C header mysql.h and pkg-config itself``, or "" when the output does not say."""
        texts = [m.text() for m in self.missing]
        return " and ".join(texts)

    def to_dict(self) -> dict[str, object]:
        return {
            "package": self.package,
            "version": self.version,
            "missing": [
                {"kind": m.kind, "name": m.name, **({"alternatives": list(m.alternatives)} if m.alternatives else {})}
                for m in self.missing
            ],
        }


def diagnose(output: str) -> BuildFailure | None:
    """The build failure *output* shows (None: the backend failed for another reason)."""
    if not _BUILD_BROKE.search(output):
        return None
    package, version = _package(output)
    return BuildFailure(package, version, _missing(output))


def _package(output: str) -> tuple[str | None, str | None]:
    match = _FAILED_UV.search(output)
    if match is not None:
        return match.group(1), match.group(2) or None
    found: tuple[str | None, str | None] = (None, None)
    for match in _FAILED_PIP.finditer(output):
        if match.group(1):
            found = (match.group(1), found[1] if found[0] == match.group(1) else None)
        else:
            found = (match.group(2), match.group(3))
    return found


def _missing(output: str) -> tuple[Missing, ...]:
    found: list[Missing] = []
    for match in _HEADER.finditer(output):
        found.append(Missing("header", match.group(1) or match.group(2)))
    for match in _PKG_CONFIG.finditer(output):
        found.append(Missing("pkg-config", match.group(1)))
    probed = list(dict.fromkeys(m.group(1) for m in _PKG_CONFIG_PROBE.finditer(output)))
    if probed:  # tried one name after another: any one of them does
        found.append(Missing("pkg-config", probed[0], tuple(probed[1:])))
    if _PKG_CONFIG_TOOL.search(output):
        found.append(Missing("pkg-config-tool", "pkg-config"))
    for match in _COMPILER.finditer(output):
        name = next(g for g in match.groups() if g)
        if "Rust" in name or "argo" in name:
            name = "Rust (cargo, rustc)"
        elif "Visual C++" in name:
            name = "Microsoft Visual C++ Build Tools"
        found.append(Missing("compiler", name))
    for match in _MODULE.finditer(output):
        found.append(Missing("build-dependency", match.group(1).split(".")[0]))
    return tuple(dict.fromkeys(found))


def apt_package(missing: Missing) -> str | None:
    """The Debian/Ubuntu package that provides *missing*, when it is well known."""
    if missing.kind == "pkg-config-tool":
        return "pkg-config"
    if missing.kind == "compiler" and (missing.name in ("gcc", "cc", "g++", "c++") or missing.name.endswith("-gcc")):
        return "build-essential"
    if missing.kind in ("header", "pkg-config"):
        return next((APT[n] for n in (missing.name, *missing.alternatives) if n in APT), None)
    return None


def system_fix(missing: Missing) -> str:
    """What to install for *missing*, in words (when no ``apt-get install`` names it)."""
    if missing.kind == "build-dependency":
        return (
            f"its build imports {missing.name}, which its build requirements do not provide: "
            "ask its maintainers to declare it"
        )
    if missing.kind == "compiler":
        if missing.name.startswith("Rust"):
            return "install a Rust toolchain (https://rustup.rs)"
        if missing.name.startswith("Microsoft"):
            return "install the Microsoft C++ Build Tools"
        return f"install a C compiler ({missing.name})"
    if missing.kind == "header":
        return f"install the development package that provides {missing.name} (apt-file search {missing.name} names it)"
    if missing.kind == "pkg-config-tool":
        return "install pkg-config"
    return f"install the development package that ships {missing.name}.pc (apt-file search /{missing.name}.pc names it)"
