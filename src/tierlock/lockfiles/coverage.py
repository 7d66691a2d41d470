"""Wheel coverage: does every locked package install from a wheel on every declared platform? (pure)

For a tier, each declared platform and each CPython version ``requires-python``
allows, every lock entry whose marker holds there (the platform's marker
environment for that version) needs a file from the artifact record that the
platform accepts (:mod:`tierlock.tiers.platforms`, tag logic from
:mod:`packaging.tags`). An entry without one is a :class:`Gap`: it would be
built from source there. For a ``no-build`` tier a gap is a failure of
``tierlock check``; for any other tier it is said as a note.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import lru_cache, partial
from typing import Any, Literal

from tierlock.frozen import Frozen
from tierlock.lockfiles.artifacts import Record
from tierlock.lockfiles.locks import Lock, LockedFile, LockEntry
from tierlock.tiers.platforms import Platform, version_text, versions_text

Exists = Literal["sdist-only", "other-wheels", "nothing", "unknown"]
Python = tuple[tuple[int, int], int]
"""A CPython minor version and the lowest micro version ``requires-python`` allows of it."""


class Gap(Frozen):
    """One package that has no wheel for one platform, on some Python versions."""

    _fields = ("name", "version", "platform", "pythons", "exists", "files", "nearest", "line")

    name: str
    version: str
    platform: Platform
    pythons: tuple[str, ...]
    exists: Exists
    files: tuple[str, ...]
    """The file names the lock records for it (the sdist, or wheels for other platforms)."""
    nearest: tuple[str, ...]
    """The wheel tags closest to what the platform needs (at most three)."""
    line: int | None

    def __init__(  # noqa: PLR0917 (the signature it had as a dataclass)
        self,
        name: str,
        version: str,
        platform: Platform,
        pythons: tuple[str, ...],
        exists: Exists,
        files: tuple[str, ...],
        nearest: tuple[str, ...],
        line: int | None = None,
    ) -> None:
        self._init(name, version, platform, pythons, exists, files, nearest, line)

    @property
    def what(self) -> str:
        """``only an sdist (cymysql-1.0.1.tar.gz)``, ``wheels only for cp312-cp312-manylinux_2_17_x86_64``..."""
        if self.exists == "sdist-only":
            return f"only an sdist ({self.files[0]})"
        if self.exists == "other-wheels":
            more = len(self.files) - len(self.nearest)
            return "wheels only for " + ", ".join(self.nearest) + (f" (and {more} more)" if more > 0 else "")
        if self.exists == "nothing":
            return "no file the lock has a hash for"
        return "no file recorded for it (the index listed none of its hashed files)"

    def describe(self) -> str:
        """``natpkg 1.0 has no wheel for linux-x86_64-musl (musllinux_1_2_x86_64) on Python 3.12, 3.13: ...``."""
        where = f"{self.platform.label} on Python {versions_text(self.pythons)}"
        return f"{self.name} {self.version} has no wheel for {where}: the lock has {self.what}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "package": self.name,
            "version": self.version,
            "platform": self.platform.name,
            "platform_tag": self.platform.tag,
            "pythons": list(self.pythons),
            "exists": self.exists,
            "files": list(self.files),
            "nearest_tags": list(self.nearest),
            "line": self.line,
        }


class Cell(Frozen):
    """One platform at one Python version: how many packages apply there and which of them need a build."""

    _fields = ("platform", "python", "packages", "builds", "outside")

    platform: str
    python: str
    packages: int
    builds: tuple[str, ...]
    outside: bool
    """The lock was resolved for none of the environments there (uv.lock's ``[tool.uv] environments``): nothing
    installs there (``uv sync`` refuses it), whatever wheels its entries have."""

    def __init__(
        self,
        platform: str,
        python: str,
        packages: int,
        builds: tuple[str, ...],
        outside: bool = False,
    ) -> None:
        self._init(platform, python, packages, builds, outside)

    def to_dict(self) -> dict[str, Any]:
        return {
            "platform": self.platform,
            "python": self.python,
            "packages": self.packages,
            "builds": list(self.builds),
            "outside": self.outside,
        }


class TierCoverage(Frozen):
    _fields = (
        "tier",
        "no_build",
        "lockfile",
        "record",
        "cells",
        "gaps",
        "record_file",
        "single_platform",
        "environments",
    )

    tier: str
    no_build: bool
    lockfile: str
    record: Record
    cells: tuple[Cell, ...]
    gaps: tuple[Gap, ...]
    record_file: str | None
    """The artifact record's file relative to the project (requirements format), else None."""
    single_platform: str | None
    """The platform a single-platform lock (pip-tools) was made for: it proves nothing about others."""
    environments: tuple[str, ...]
    """The only environments the lock was resolved for (uv.lock's ``[tool.uv] environments``; empty: every one)."""

    def __init__(  # noqa: PLR0917 (the signature it had as a dataclass)
        self,
        tier: str,
        no_build: bool,
        lockfile: str,
        record: Record,
        cells: tuple[Cell, ...] = (),
        gaps: tuple[Gap, ...] = (),
        record_file: str | None = None,
        single_platform: str | None = None,
        environments: tuple[str, ...] = (),
    ) -> None:
        self._init(tier, no_build, lockfile, record, cells, gaps, record_file, single_platform, environments)

    @property
    def proven(self) -> bool:
        """Whether every package applies with a wheel everywhere (with a usable record of a universal lock made for
        every platform and Python version)."""
        return self.record.usable and self.single_platform is None and not self.gaps and not self.outside

    @property
    def outside(self) -> list[Cell]:
        """The cells the lock was resolved for none of the environments of (:attr:`Cell.outside`)."""
        return [c for c in self.cells if c.outside]

    def to_dict(self) -> dict[str, Any]:
        return {
            "tier": self.tier,
            "no_build": self.no_build,
            "lockfile": self.lockfile,
            "record": self.record.state,
            "record_file": self.record_file,
            "single_platform": self.single_platform,
            "environments": list(self.environments),
            "proven": self.proven,
            "cells": [c.to_dict() for c in self.cells],
            "gaps": [g.to_dict() for g in self.gaps],
        }


def tier_coverage(
    tier: str,
    lock: Lock,
    record: Record,
    platforms: Sequence[Platform],
    pythons: Sequence[Python],
    *,
    no_build: bool,
    lockfile: str,
    record_file: str | None = None,
) -> TierCoverage:
    """The coverage of one tier's lock on every platform and Python version (nothing to say without a record)."""
    single = lock.header.platform if lock.header is not None else None
    if not record.usable or single is not None:
        return TierCoverage(tier, no_build, lockfile, record, record_file=record_file, single_platform=single)
    held = None
    if lock.environments:  # (uv.lock's [tool.uv] environments: a platform none of them holds gets nothing)
        from tierlock.lockfiles.lockplatform import inside

        held = partial(inside, lock)
    cells, gaps = gaps_of(lock.entries, record, platforms, pythons, held)
    return TierCoverage(
        tier, no_build, lockfile, record, tuple(cells), tuple(gaps), record_file, environments=lock.environments
    )


def gaps_of(
    entries: Sequence[LockEntry],
    record: Record,
    platforms: Sequence[Platform],
    pythons: Sequence[Python],
    held: Callable[[Mapping[str, str]], bool] | None = None,
) -> tuple[list[Cell], list[Gap]]:
    """Per platform and Python version, the entries that apply and those without a wheel; and those as gaps. Where
    *held* (the lock's environments) does not hold, the cell is outside the lock: no entry is judged there."""
    cells: list[Cell] = []
    failing: dict[tuple[int, str], list[str]] = {}
    for platform in platforms:
        for python, micro in pythons:
            environment = platform.marker_environment(python, micro)
            if held is not None and not held(environment):
                cells.append(Cell(platform.name, version_text(python), 0, (), outside=True))
                continue
            accepted = platform.tags(python)
            applicable = [(i, e) for i, e in enumerate(entries) if e.applies(environment)]
            builds = [(i, e) for i, e in applicable if not _has_wheel(record.files_for(e), accepted)]
            names = tuple(str(e.name) for _, e in builds)
            cells.append(Cell(platform.name, version_text(python), len(applicable), names))
            for index, _entry in builds:
                failing.setdefault((index, platform.tag), []).append(version_text(python))
    order = {p.tag: i for i, p in enumerate(platforms)}
    gaps = [
        _gap(entries[index], record.files_for(entries[index]), platforms[order[tag]], versions)
        for (index, tag), versions in sorted(failing.items(), key=lambda item: (item[0][0], order[item[0][1]]))
    ]
    return cells, gaps


def _has_wheel(files: Sequence[LockedFile] | None, accepted: frozenset[str]) -> bool:
    return files is not None and any(
        f.kind == "wheel" and not wheel_tags(f.filename).isdisjoint(accepted) for f in files
    )


@lru_cache(maxsize=4096)
def wheel_tags(filename: str) -> frozenset[str]:
    """The tags a wheel file name carries (``cp311-cp311-manylinux_2_17_x86_64``, ...); none for a bad name."""
    from packaging.utils import InvalidWheelFilename, parse_wheel_filename

    try:
        return frozenset(str(t) for t in parse_wheel_filename(filename)[3])
    except InvalidWheelFilename:
        return frozenset()


def _gap(entry: LockEntry, files: Sequence[LockedFile] | None, platform: Platform, pythons: Sequence[str]) -> Gap:
    if files is None:
        return Gap(str(entry.name), str(entry.version), platform, tuple(pythons), "unknown", (), (), entry.line)
    wheels = [f.filename for f in files if f.kind == "wheel"]
    sdists = [f.filename for f in files if f.kind == "sdist"]
    if not wheels:
        exists: Exists = "sdist-only" if sdists else "nothing"
        return Gap(str(entry.name), str(entry.version), platform, tuple(pythons), exists, tuple(sdists), (), entry.line)
    nearest = nearest_tags(wheels, platform, pythons)
    return Gap(
        str(entry.name),
        str(entry.version),
        platform,
        tuple(pythons),
        "other-wheels",
        tuple(wheels),
        nearest,
        entry.line,
    )


def nearest_tags(wheels: Iterable[str], platform: Platform, pythons: Sequence[str], limit: int = 3) -> tuple[str, ...]:
    """The tags of *wheels* closest to *platform* at *pythons*: its platform first, then its Python, its OS, its
    machine."""
    accepted = set(platform.platform_tags())
    versions = [tuple(int(p) for p in v.split(".")) for v in pythons]
    family = {"linux": ("manylinux", "musllinux"), "macos": ("macosx",), "windows": ("win",)}[platform.os]
    machine = _machine(platform.tag)
    scored: dict[str, int] = {}
    for filename in wheels:
        shown = "-".join(filename[: -len(".whl")].split("-")[-3:])
        score = 0
        for tag in wheel_tags(filename):
            interpreter, abi, plat = tag.split("-")
            fits_python = any(
                f"{interpreter}-{abi}-{platform.platform_tags()[0]}" in platform.tags((v[0], v[1])) for v in versions
            )
            closeness = (
                4 * (plat in accepted) + 2 * fits_python + plat.startswith(family) + (machine & _machine(plat) != set())
            )
            score = max(score, closeness)
        scored[shown] = max(score, scored.get(shown, 0))
    ranked = sorted(scored, key=lambda t: (-scored[t], t))
    return tuple(ranked[:limit])


def _machine(tag: str) -> set[str]:
    """The machines a platform tag is for (``universal2``: both Mac machines)."""
    names = {"x86_64": "x86_64", "amd64": "x86_64", "aarch64": "aarch64", "arm64": "aarch64", "universal2": "both"}
    found = {m for word, m in names.items() if word in tag.lower()}
    return {"x86_64", "aarch64"} if "both" in found else found
