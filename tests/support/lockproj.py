"""A small project and a local wheel folder for lock and check tests (no registry)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from tests.support.pyproject import pyproject
from tests.support.wheels import build_wheel

#: Every wheel the lock tests resolve from: name -> [(version, requires)].
WHEELS: dict[str, list[tuple[str, Sequence[str]]]] = {
    "alpha": [("1.0", ["beta>=1"]), ("1.1", ["beta>=1"])],
    "beta": [("1.0", []), ("2.0", [])],
    "gamma": [("1.0", ["beta>=1"])],
    "delta": [("1.0", []), ("2.0", [])],
    "omega": [("1.0", ["beta<1"])],
    "winonly": [("1.0", [])],
}

PYPROJECT = pyproject(
    dependencies=["alpha>=1", "winonly; sys_platform == 'win32'"],
    extras={"brain": ["gamma>=1"]},
    groups={"extra-tools": ["delta<2"], "tools": [{"include-group": "extra-tools"}]},
    tierlock={"lock-dir": "lockfiles"},
    tiers={"brain": {"source": "extra:brain"}, "tools": {"source": "group:tools", "layered-on": "brain"}},
)


def build_wheel_dir(dest: Path) -> Path:
    for name, versions in WHEELS.items():
        for version, requires in versions:
            build_wheel(dest, name, version, requires=requires)
    return dest


def write_project(folder: Path, pyproject: str = PYPROJECT) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "pyproject.toml").write_text(pyproject, encoding="utf-8")
    return folder


def offline(wheels: Path) -> list[str]:
    """The lock options that resolve from *wheels* only."""
    return ["--no-index", "--find-links", str(wheels)]


def lock_offline(folder: Path, wheels: Path, pyproject: str = PYPROJECT) -> Path:
    """Write *pyproject* into *folder* and lock every tier with uv from *wheels* (offline); return the folder."""
    from tierlock.cli import main

    write_project(folder, pyproject)
    assert main(["--project", str(folder), "-q", "lock", "--backend", "uv", *offline(wheels)]) == 0
    return folder
