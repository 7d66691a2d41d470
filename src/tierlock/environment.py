"""The target environment: where tiers are probed and installed.

:func:`current` describes the running interpreter in-process (no subprocess:
the fast path). :func:`inspect` asks another interpreter once, through the
subprocess helper, for its paths, marker environment and tags.
"""

from __future__ import annotations

import json
import os
import sys
import sysconfig
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from tierlock.errors import UsageError

_INSPECT = r"""
import json, os, sys, sysconfig
from importlib.metadata import version as _v
env = {
    "implementation_name": sys.implementation.name,
    "implementation_version": "{0.major}.{0.minor}.{0.micro}".format(sys.implementation.version),
    "os_name": os.name,
    "platform_machine": __import__("platform").machine(),
    "platform_release": __import__("platform").release(),
    "platform_system": __import__("platform").system(),
    "platform_version": __import__("platform").version(),
    "python_full_version": __import__("platform").python_version(),
    "platform_python_implementation": __import__("platform").python_implementation(),
    "python_version": ".".join(__import__("platform").python_version_tuple()[:2]),
    "sys_platform": sys.platform,
}
paths = sysconfig.get_paths()
print(json.dumps({
    "executable": sys.executable,
    "prefix": sys.prefix,
    "base_prefix": sys.base_prefix,
    "path": [p for p in sys.path if p],
    "purelib": paths["purelib"],
    "platlib": paths["platlib"],
    "stdlib": paths["stdlib"],
    "marker_env": env,
    "platform": sysconfig.get_platform(),
    "version": list(sys.version_info[:3]),
}))
"""


@dataclass(frozen=True)
class Target:
    """An interpreter and its environment."""

    python: Path
    prefix: Path
    base_prefix: Path
    paths: tuple[Path, ...]
    """The interpreter's import path (``sys.path``), in order: where the probe looks."""
    purelib: Path
    platlib: Path
    stdlib: Path
    marker_env: Mapping[str, str]
    platform: str
    """``sysconfig.get_platform()``, e.g. ``linux-x86_64``."""
    version: tuple[int, int, int]

    @property
    def is_venv(self) -> bool:
        return self.prefix != self.base_prefix

    @property
    def externally_managed(self) -> bool:
        """PEP 668: an ``EXTERNALLY-MANAGED`` marker in the stdlib folder (only outside venvs)."""
        return not self.is_venv and (self.stdlib / "EXTERNALLY-MANAGED").is_file()

    @property
    def site_paths(self) -> tuple[Path, ...]:
        """The import-path folders that hold installed distributions (not the stdlib)."""
        stdlib = str(self.stdlib)
        return tuple(
            p for p in self.paths if (not str(p).startswith(stdlib) or "site-packages" in str(p)) and p.is_dir()
        )

    @cached_property
    def tags(self) -> frozenset[str]:
        """Wheel tags this interpreter accepts (computed on first use)."""
        from packaging import tags

        if Path(self.python).resolve() == Path(sys.executable).resolve():
            return frozenset(str(t) for t in tags.sys_tags())
        return frozenset(str(t) for t in _foreign_tags(self.python))


def current() -> Target:
    """The running interpreter, described in-process."""
    from packaging.markers import default_environment

    paths = sysconfig.get_paths()
    return Target(
        python=Path(sys.executable),
        prefix=Path(sys.prefix),
        base_prefix=Path(sys.base_prefix),
        paths=tuple(Path(p) for p in sys.path if p),
        purelib=Path(paths["purelib"]),
        platlib=Path(paths["platlib"]),
        stdlib=Path(paths["stdlib"]),
        marker_env={k: str(v) for k, v in default_environment().items()},
        platform=sysconfig.get_platform(),
        version=(sys.version_info[0], sys.version_info[1], sys.version_info[2]),
    )


def inspect(python: str | Path) -> Target:
    """Ask the interpreter at *python* once for its environment."""
    from tierlock import subproc

    exe = Path(python)
    if exe.is_dir():
        exe = exe / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    if not exe.exists():
        raise UsageError(f"no interpreter at {python}", remedy="pass --python PATH to a python executable")
    result = subproc.run([exe, "-I", "-c", _INSPECT], what=f"inspecting {exe}")
    data = json.loads(result.stdout)
    return Target(
        python=exe,
        prefix=Path(data["prefix"]),
        base_prefix=Path(data["base_prefix"]),
        paths=tuple(Path(p) for p in data["path"]),
        purelib=Path(data["purelib"]),
        platlib=Path(data["platlib"]),
        stdlib=Path(data["stdlib"]),
        marker_env=data["marker_env"],
        platform=data["platform"],
        version=tuple(data["version"]),
    )


def resolve(python: str | Path | None = None) -> Target:
    """The target: *python* when given, else the active virtual environment, else this interpreter."""
    if python is not None:
        return inspect(python)
    active = os.environ.get("VIRTUAL_ENV")
    if active and Path(active).resolve() != Path(sys.prefix).resolve():
        return inspect(Path(active))
    return current()


def _foreign_tags(python: Path) -> list[str]:
    from tierlock import subproc

    code = "import json\nfrom packaging import tags\nprint(json.dumps([str(t) for t in tags.sys_tags()]))"
    import packaging

    env = {**os.environ, "PYTHONPATH": str(Path(packaging.__path__[0]).parent)}
    result = subproc.run([python, "-c", code], what=f"asking {python} for its wheel tags", env=env)
    tags: list[str] = json.loads(result.stdout)
    return tags
