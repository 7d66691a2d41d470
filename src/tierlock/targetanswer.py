"""What a target interpreter is asked about itself, and its answer read into a :class:`~tierlock.targetmodel.Target`.

:mod:`tierlock.environment` starts the interpreter with :func:`inspection` (or takes an answer kept from an earlier
command, :mod:`tierlock.targetcache`) and reads the answer with :func:`parse`.
"""

from __future__ import annotations

import os
from pathlib import Path

from tierlock.errors import UsageError
from tierlock.targetmodel import Target
from tierlock.venvbase import made_by_other, remedy_for_none, remedy_for_other

#: What :func:`tierlock.environment.inspect` runs in the target: only ``os``, ``sys``, ``sysconfig`` and ``_imp``
#: (no ``json``, no ``platform``, no ``importlib.metadata``: each costs milliseconds of the target's start-up), on
#: every Python tierlock supports as a target (3.8+). It prints NUL-separated fields - paths cannot hold a NUL -
#: then the interpreter's ``sys.path``.
INSPECT = r"""
import os, sys, sysconfig, _imp
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
try:
    libc = os.confstr("CS_GNU_LIBC_VERSION") or ""
except (AttributeError, ValueError, OSError):
    libc = ""
p = sysconfig.get_paths()
fields = [
    sys.executable, sys.prefix, sys.base_prefix, p["purelib"], p["platlib"], p["stdlib"], sysconfig.get_platform(),
    "%d.%d.%d" % sys.version_info[:3],
    i.name, iv, os.name, machine, release, system, version, full, impl, "%d.%d" % sys.version_info[:2], sys.platform,
    "\1".join(_imp.extension_suffixes()), sysconfig.get_config_var("EXT_SUFFIX") or "", libc,
    "64" if sys.maxsize > 2 ** 32 else "32",
]
sys.stdout.write("\0".join(fields + [x for x in sys.path if x]))
"""
MARKERS = (
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
HEAD = 8
"""The fields before the marker values; the target's own facts follow the markers."""
FACTS = 4
"""Extension suffixes, ``EXT_SUFFIX``, the C library, the pointer width."""


def inspection(exe: Path) -> tuple[str, ...]:
    """The command that asks the interpreter at *exe* (isolated: no user site, no environment variables read)."""
    return (str(exe), "-I", "-c", INSPECT)


def unrunnable(exe: Path, exc: OSError) -> UsageError:
    """The error of an interpreter at *exe* that is there but cannot be run (*exc*: not executable, not a program
    this system runs), with the command that makes a venv's interpreter again
    (:func:`tierlock.venvbase.remedy_for_none`)."""
    why = exc.strerror or type(exc).__name__
    return UsageError(f"cannot run the interpreter at {exe} ({why})", remedy=remedy_for_none(exe))


def parse(exe: Path, stdout: str) -> Target:
    """The target the interpreter at *exe* described in *stdout* (:data:`INSPECT`'s fields, then its path)."""
    fields = stdout.split("\0")
    fixed = HEAD + len(MARKERS) + FACTS
    if len(fields) < fixed:
        raise UsageError(f"{exe} did not describe its environment (it printed {stdout[:200]!r})")
    _executable, prefix, base_prefix, purelib, platlib, stdlib, platform, version = fields[:HEAD]
    markers = fields[HEAD : HEAD + len(MARKERS)]
    suffixes, ext_suffix, libc, bits = fields[HEAD + len(MARKERS) : fixed]
    major, minor, micro = (int(v) for v in version.split("."))
    if prefix != base_prefix and not os.path.isdir(purelib):
        _refuse_made_by_other(exe, prefix, purelib, (major, minor, micro))
    return Target(
        python=exe,
        prefix=Path(prefix),
        base_prefix=Path(base_prefix),
        paths=tuple(Path(p) for p in fields[fixed:]),
        purelib=Path(purelib),
        platlib=Path(platlib),
        stdlib=Path(stdlib),
        marker_env=dict(zip(MARKERS, markers, strict=True)),
        platform=platform,
        version=(major, minor, micro),
        ext_suffixes=tuple(s for s in suffixes.split("\1") if s),
        ext_suffix=ext_suffix,
        libc=libc,
        bits=int(bits),
    )


#: Where the receipts of the tiers armed in a target are (:data:`tierlock.installer.fastpath.RECEIPTS_DIR`, which
#: this module cannot import: the installer's location module imports this one).
_RECEIPTS = ("tierlock", "receipts")


def _refuse_made_by_other(exe: Path, prefix: str, purelib: str, runs: tuple[int, int, int]) -> None:
    """Refuse a venv whose interpreter runs another Python than the one that made it (:func:`made_by_other`; only
    asked when the site-packages it would read is missing, one stat on every other answer): nothing it holds is on
    that interpreter's path, so every package would be absent, and an install would start a second site-packages
    beside the first. The fix makes it whole (:func:`remedy_for_other`)."""
    made = made_by_other(prefix, runs)
    if made is None:
        return
    now = ".".join(map(str, runs))
    real = os.path.realpath(exe)
    try:
        names = os.listdir(os.path.join(prefix, *_RECEIPTS))
        armed = sorted(n[: -len(".json")] for n in names if n.endswith(".json"))
    except OSError:
        armed = []
    raise UsageError(
        f"the environment {prefix} was made by Python {made} (its pyvenv.cfg), but its interpreter {exe} now runs "
        f"Python {now} ({real}: the interpreter it was made from was replaced, as an upgrade of the system's python3 "
        f"does); {purelib} does not exist, and what the environment holds is not on that interpreter's path",
        remedy=remedy_for_other(exe, prefix, made, armed),
    )
