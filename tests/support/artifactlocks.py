"""Locks, artifact records and projects with declared platforms, built in memory from real wheel file names."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from packaging.markers import Marker
from packaging.utils import canonicalize_name
from packaging.version import Version

from tierlock.lockfiles import artifacts
from tierlock.lockfiles.artifacts import Record
from tierlock.lockfiles.locks import Lock, LockedFile, LockEntry, LockHeader
from tierlock.tiers.platforms import parse, python_versions

LINUX, MUSL, MAC, WIN = (parse(n) for n in ("linux-x86_64", "linux-x86_64-musl", "macos-arm64", "windows-x86_64"))


PYTHONS = python_versions(">=3.11,<3.13")


def digest(name: str) -> str:
    import hashlib

    return hashlib.sha256(name.encode()).hexdigest()


def wheel(name: str) -> LockedFile:
    return LockedFile("wheel", name, None, None, None, {"sha256": digest(name)})


def sdist(name: str) -> LockedFile:
    return LockedFile("sdist", name, None, None, None, {"sha256": digest(name)})


def entry(name: str, version: str, files: Sequence[LockedFile], marker: str | None = None, line: int = 3) -> LockEntry:
    hashes = tuple(f"sha256:{f.hashes['sha256']}" for f in files)
    return LockEntry(
        canonicalize_name(name), Version(version), Marker(marker) if marker else None, hashes, line, tuple(files)
    )


def lock(*entries: LockEntry, platform: str | None = None, path: str = "lockfiles/base.txt") -> Lock:
    header = None
    if platform is not None:
        header = LockHeader("base", (), "", None, None, "", "pip-tools", "7", platform, "tierlock lock base")
    return Lock(Path(path), "pylock", header, tuple(entries), "", "sha256:body")


def record(*entries: LockEntry) -> Record:
    return Record("recorded", {artifacts.key(e): e.files for e in entries})


NAT = entry(
    "natpkg",
    "1.0",
    [
        wheel(f"natpkg-1.0-cp{py}-cp{py}-{p}.whl")
        for py in ("311", "312")
        for p in ("manylinux_2_17_x86_64", "win_amd64")
    ],
)


GLIBC = entry("glibconly", "1.0", [wheel("glibconly-1.0-cp311-cp311-manylinux_2_17_x86_64.manylinux2014_x86_64.whl")])


SDIST = entry("sdonly", "1.0", [sdist("sdonly-1.0.tar.gz")])


WINEXTRA = entry("winextra", "1.0", [wheel("winextra-1.0-cp311-abi3-win_amd64.whl")], "sys_platform == 'win32'")


def project(platforms: Sequence[str], requires: str = ">=3.11,<3.13", tiers: Sequence[str] = ("base",)) -> object:
    import tomllib

    from tierlock.tiers.loader import parse_project

    extras = "".join(f"{t} = []\n" for t in tiers if t != "base")
    layers = "".join(f'[tool.tierlock.tiers.{t}]\nlayered-on = "base"\n' for t in tiers if t != "base")
    text = (
        f'[project]\nname = "app"\nrequires-python = "{requires}"\ndependencies = []\n'
        f"[project.optional-dependencies]\n{extras}"
        f"[tool.tierlock]\nplatforms = {list(platforms)!r}\n{layers}"
    ).replace("'", '"')
    return parse_project(tomllib.loads(text), pyproject=Path("/app/pyproject.toml"), text=text)


def holds(marker: str, platform_name: str, python: tuple[int, int]) -> bool:
    return Marker(marker).evaluate(parse(platform_name).marker_environment(python))
