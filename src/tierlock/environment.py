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
from typing import TYPE_CHECKING

from tierlock.errors import UsageError

if TYPE_CHECKING:
    from tierlock import subproc

#: What :func:`inspect` runs in the target: only ``os``, ``sys`` and ``sysconfig`` (no ``json``, no
#: ``platform``, no ``importlib.metadata``: each costs milliseconds of the target's start-up). It prints
#: NUL-separated fields - paths cannot hold a NUL - then the interpreter's ``sys.path``.
_INSPECT = r"""
import os, sys, sysconfig
i = sys.implementation
v = i.version
iv = "%d.%d.%d" % (v.major, v.minor, v.micro)
if v.releaselevel != "final":
    iv += v.releaselevel[0] + str(v.serial)
impl = {"cpython": "CPython", "pypy": "PyPy"}.get(i.name)
if impl is not None and hasattr(os, "uname"):
    u = os.uname()
    system, release, version, machine = u.sysname, u.release, u.version, u.machine
    full = sys.version.split()[0]
else:
    import platform
    impl, full = platform.python_implementation(), platform.python_version()
    system, release, version, machine = platform.system(), platform.release(), platform.version(), platform.machine()
p = sysconfig.get_paths()
fields = [
    sys.executable, sys.prefix, sys.base_prefix, p["purelib"], p["platlib"], p["stdlib"], sysconfig.get_platform(),
    "%d.%d.%d" % sys.version_info[:3],
    i.name, iv, os.name, machine, release, system, version, full, impl, "%d.%d" % sys.version_info[:2], sys.platform,
]
sys.stdout.write("\0".join(fields + [x for x in sys.path if x]))
"""
_MARKERS = (
    "implementation_name",
    "implementation_version",
    "os_name",
    "platform_machine",
    "platform_release",
    "platform_system",
    "platform_version",
    "python_full_version",
    "platform_python_implementation",
    "python_version",
    "sys_platform",
)


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
        from tierlock.probing.site import site_folders

        return site_folders(str(self.stdlib), [str(p) for p in self.paths])

    @cached_property
    def ordered_tags(self) -> tuple[str, ...]:
        """Wheel tags this interpreter accepts, most preferred first (computed on first use)."""
        from packaging import tags

        if Path(self.python).resolve() == Path(sys.executable).resolve():
            return tuple(str(t) for t in tags.sys_tags())
        return tuple(_foreign_tags(self.python))

    @property
    def tags(self) -> frozenset[str]:
        """Wheel tags this interpreter accepts, as a set."""
        return frozenset(self.ordered_tags)


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


def interpreter(python: str | Path) -> Path:
    """The executable *python* names (an environment folder means its ``bin/python``)."""
    exe = Path(python)
    own = "Scripts/python.exe" if os.name == "nt" else "bin/python"
    if exe.is_dir():
        exe = exe / own
    elif not exe.name.startswith("python") and (exe.parent.parent / "pyvenv.cfg").is_file():
        exe = exe.parent.parent / own  # one of the environment's console scripts: its interpreter
    return exe


class Pending:
    """An inspection started in the background (:func:`start`); :meth:`target` waits for it."""

    def __init__(self, exe: Path) -> None:
        import threading

        self.exe = exe
        self._outcome: list[subproc.Result | BaseException] = []
        self._thread = threading.Thread(target=self._ask, name="tierlock-inspect", daemon=True)
        self._thread.start()

    def _ask(self) -> None:
        try:
            self._outcome.append(_ask(self.exe))
        except BaseException as exc:  # handed to the thread that waits for it
            self._outcome.append(exc)

    def target(self) -> Target:
        self._thread.join()
        outcome = self._outcome[0]
        if isinstance(outcome, BaseException):
            raise outcome
        return _parse(self.exe, outcome.stdout)


def start(python: str | Path | None) -> Pending | None:
    """Start asking the interpreter :func:`resolve` would ask, in the background; None when none is asked.

    The caller does other work (loading the project, the drift check) while
    the target starts, then passes the result to :func:`resolve`.
    """
    foreign = _foreign(python)
    if foreign is None or not foreign.exists():
        return None  # the running interpreter, or a missing one (resolve reports it)
    return Pending(foreign)


def inspect(python: str | Path, *, pending: Pending | None = None) -> Target:
    """Ask the interpreter at *python* once for its environment (or collect what *pending* asked)."""
    exe = interpreter(python)
    if pending is not None and pending.exe == exe:
        return pending.target()
    if not exe.exists():
        raise UsageError(f"no interpreter at {python}", remedy="pass --python PATH to a python executable")
    return _parse(exe, _ask(exe).stdout)


def _ask(exe: Path) -> subproc.Result:
    from tierlock import subproc

    return subproc.run([exe, "-I", "-c", _INSPECT], what=f"inspecting {exe}")


def _parse(exe: Path, stdout: str) -> Target:
    fields = stdout.split("\0")
    if len(fields) < 8 + len(_MARKERS):
        raise UsageError(f"{exe} did not describe its environment (it printed {stdout[:200]!r})")
    _executable, prefix, base_prefix, purelib, platlib, stdlib, platform, version = fields[:8]
    markers = fields[8 : 8 + len(_MARKERS)]
    major, minor, micro = (int(v) for v in version.split("."))
    return Target(
        python=exe,
        prefix=Path(prefix),
        base_prefix=Path(base_prefix),
        paths=tuple(Path(p) for p in fields[8 + len(_MARKERS) :]),
        purelib=Path(purelib),
        platlib=Path(platlib),
        stdlib=Path(stdlib),
        marker_env=dict(zip(_MARKERS, markers, strict=True)),
        platform=platform,
        version=(major, minor, micro),
    )


def _foreign(python: str | Path | None) -> Path | None:
    """The interpreter :func:`resolve` asks in a subprocess, or None when it describes this one in-process."""
    if python is not None:
        return interpreter(python)
    active = os.environ.get("VIRTUAL_ENV")
    if active and Path(active).resolve() != Path(sys.prefix).resolve():
        return interpreter(Path(active))
    return None


def resolve(python: str | Path | None = None, *, pending: Pending | None = None) -> Target:
    """The target: *python* when given, else the active virtual environment, else this interpreter."""
    foreign = _foreign(python)
    if foreign is None:
        return current()
    return inspect(foreign, pending=pending)


def _foreign_tags(python: Path) -> list[str]:
    from tierlock import subproc

    code = "import json\nfrom packaging import tags\nprint(json.dumps([str(t) for t in tags.sys_tags()]))"
    import packaging

    env = {**os.environ, "PYTHONPATH": str(Path(packaging.__path__[0]).parent)}
    result = subproc.run([python, "-c", code], what=f"asking {python} for its wheel tags", env=env)
    tags: list[str] = json.loads(result.stdout)
    return tags
