"""The no-op fast path of ``install-tier``: prove from receipts that there is nothing to do.

A receipt records the digests of ``pyproject.toml`` and of every lockfile the
tier was armed from (the tier and what it is layered on), the interpreter,
the tierlock version and the size of every installed file. When all of them
still match, and no compiled file's status changed after the receipt was written (a rewrite in place that
put its size and modification time back is another file for the probe, which reads its header), the
offline drift check would give the verdict it gave at install
time (it is a function of exactly those files and of tierlock's own code), the
plan would be all ``satisfied``, and the probe would find every file - so
nothing is loaded, planned or started.

This module is on the start-up path of the console scripts
(:mod:`tierlock._entry`), before ``argparse`` and before :mod:`tierlock.cli`:
it imports only ``os`` and ``sys`` (already loaded by the interpreter) and, on
first use, the C parts of ``json`` and ``sha256``. Whenever anything differs,
or anything is unexpected, the caller goes the full way.
"""

from __future__ import annotations

import os
import sys
from stat import S_ISREG

from tierlock.installer.receiptfiles import beside, canonical, verify_files, written_at

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

#: Where receipts live inside the target environment (:mod:`tierlock.installer.receipts` writes them there).
RECEIPTS_DIR = ("tierlock", "receipts")
#: Where a failed install is recorded (:mod:`tierlock.installer.failures` writes there; json is not loaded here).
FAILURES_DIR = ("tierlock", "failures")
#: The receipts' format (:mod:`tierlock.installer.receipts` writes it; a receipt of another is not read).
SCHEMA = 1
#: A receipt whose shared objects' rows carry the time each was written (a receipt without it vouches for their
#: sizes only: the first install-tier after the upgrade goes the full way, and writes it again with them).
STAMPED = "shared_objects_dated"
#: The most a config, pyproject.toml or lockfile may hold (:data:`tierlock.fsutil.MAX_BYTES`).
MAX_BYTES = 64 * 1024 * 1024


class NoOp:
    """What the receipts vouch for: the tiers are present, nothing to do."""

    __slots__ = ("files", "packages", "pins", "prefix", "tiers")

    def __init__(self, tiers: list[str], prefix: str, packages: int, files: int, pins: list[tuple[str, str]]) -> None:
        self.tiers = tiers
        self.prefix = prefix
        self.packages = packages
        self.files = files
        self.pins = pins
        """(name, version) of every package the receipts vouch for."""


def find_pyproject(project_arg: str | None) -> str | None:
    """The nearest ``pyproject.toml`` at or above the project argument (as the tier loader finds it)."""
    start = os.path.realpath(project_arg or ".")
    if os.path.isfile(start):
        return start
    if not os.path.isdir(start):
        return None  # no such folder, or a special file: the full path says which
    folder = start
    while True:
        candidate = os.path.join(folder, "pyproject.toml")
        if os.path.isfile(candidate):
            return candidate
        if os.path.lexists(candidate):
            return None  # a FIFO, a folder: the full path refuses it, never a parent folder's
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent


def quick_target(python: str | None, system: bool) -> tuple[str, str] | None:
    """The target's prefix and environment key without asking the interpreter, when that is safe to guess.

    Only for virtual environments (a ``pyvenv.cfg`` beside ``bin/``, whatever spelling of its interpreter,
    folder or scripts named it) or this interpreter; anything else goes the full way through
    :func:`tierlock.environment.resolve`. The key is :func:`tierlock.installer.location.environment_key`.
    """
    from tierlock.installer.location import OWN_PYTHON, environment_key, prefix_of

    if python is not None:
        found = prefix_of(python)
        if found is None or not os.path.exists(_interpreter(python, found)):
            return None  # no venv's interpreter (or a deleted one): the full path says which
        return found, environment_key(found)
    active = os.environ.get("VIRTUAL_ENV")
    if active and os.path.realpath(active) != os.path.realpath(sys.prefix):
        prefix = os.path.abspath(active)
        whole = os.path.isfile(os.path.join(prefix, "pyvenv.cfg")) and os.path.exists(os.path.join(prefix, OWN_PYTHON))
        return (prefix, environment_key(prefix)) if whole else None
    if sys.prefix == sys.base_prefix and not system:
        return None
    return sys.prefix, environment_key(sys.prefix)


def _interpreter(python: str, prefix: str) -> str:
    """The interpreter *python* names in the environment at *prefix* (as :func:`tierlock.environment.interpreter`:
    the folder or one of its console scripts means its ``bin/python``)."""
    from tierlock.installer.location import OWN_PYTHON

    if os.path.isdir(python) or not os.path.basename(python).startswith("python"):
        return os.path.join(prefix, OWN_PYTHON)
    return python


# -- reading without the heavy parts of the standard library ------------------------


def digest(path: str) -> str:
    """``sha256:<hex>`` of a file's bytes, as :func:`tierlock.installer.receipts.file_digest` spells it.

    Only a regular file of at most :data:`MAX_BYTES` is read (a FIFO is never waited on)."""
    return _digest_of(_read_regular(path))


def _read_regular(path: str) -> bytes:
    """The bytes of *path*, a regular file of at most :data:`MAX_BYTES` (OSError otherwise, never a wait)."""
    with open(os.open(path, os.O_RDONLY | os.O_NONBLOCK), "rb") as handle:
        info = os.fstat(handle.fileno())
        if not S_ISREG(info.st_mode) or info.st_size > MAX_BYTES:
            raise OSError(f"{path} is not a regular file of at most {MAX_BYTES} bytes")
        return handle.read()


def _digest_of(data: bytes) -> str:
    from tierlock.fasthash import sha256

    return "sha256:" + str(sha256(data).hexdigest())


class _ScanContext:
    """What ``_json.make_scanner`` reads from a decoder: plain JSON, nothing hooked."""

    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int

    @staticmethod
    def parse_constant(name: str) -> float:
        raise ValueError(f"non-standard JSON constant {name}")


def loads(text: str) -> Any:
    """``json.loads`` through the C scanner alone (``json`` itself imports ``re``: milliseconds at start-up)."""
    try:
        from _json import make_scanner
    except ImportError:
        import json

        return json.loads(text)
    start = len(text) - len(text.lstrip(" \t\n\r"))
    try:
        value, end = make_scanner(_ScanContext())(text, start)  # type: ignore[arg-type]
    except StopIteration as exc:
        raise ValueError(f"no JSON value at offset {exc.value}") from None
    if text[end:].strip(" \t\n\r"):
        raise ValueError("extra data after the JSON document")
    return value


def load_receipt(path: str) -> dict[str, Any] | None:
    """The receipt document at *path*, or None when missing, unreadable or of another schema."""
    try:
        with open(path, encoding="utf-8") as handle:
            data = loads(handle.read())
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("schema") != SCHEMA:
        return None
    return data


# -- the check -----------------------------------------------------------------


def check(
    tiers: Sequence[str],
    prefix: str | os.PathLike[str],
    environment: str,
    pyproject: str | os.PathLike[str],
    *,
    install_project: bool = True,
) -> tuple[NoOp | None, str]:
    """A :class:`NoOp` when every tier's receipt still holds, else None and the first difference.

    *environment* is the target's :func:`tierlock.installer.location.environment_key`. *install_project*: the
    request arms the project itself from its tree (a receipt written without it then proves nothing). A tier
    whose last install failed goes the full way (that way records its success and forgets the failure).
    """
    if not tiers:
        return None, "no tier named"
    prefix = os.fspath(prefix)
    pyproject = os.fspath(pyproject)
    try:
        pyproject_digest = digest(pyproject)
    except OSError:
        return None, f"cannot read {pyproject}"
    files = 0
    names: list[str] = []
    pins: dict[str, str] = {}
    listed: dict[str, dict[str, list[str]]] = {}
    for raw in dict.fromkeys(canonical(t) for t in tiers):
        path = os.path.join(prefix, *RECEIPTS_DIR, f"{raw}.json")
        receipt = load_receipt(path)
        if receipt is None:
            return None, f"no receipt for {raw} in {prefix}"
        written = written_at(path)
        if written is None:
            return None, f"the receipt of {raw} is dated later than this machine's clock (set back since?)"
        why = _holds(raw, receipt, environment, (pyproject, pyproject_digest))
        if not why and not receipt.get(STAMPED):
            why = f"the receipt of {raw} does not date its shared objects (written by an older tierlock)"
        if not why and install_project and receipt.get("without_project"):
            why = f"{raw} was armed without the project itself (--no-install-project)"
        if not why and os.path.lexists(os.path.join(prefix, *FAILURES_DIR, f"{raw}.json")):
            why = f"the last install-tier of {raw} failed"
        packages = [p for p in receipt.get("packages", ()) if isinstance(p, dict)]
        why = why or _lock_matches(raw, receipt, packages)
        if why:
            return None, why
        checked, why = verify_files(packages, prefix, written)
        why = why or beside(packages, prefix, listed)
        if why:
            return None, why
        files += checked
        names.append(raw)
        pins.update((str(p.get("name")), str(p.get("version"))) for p in packages)
    return NoOp(names, prefix, len(pins), files, sorted(pins.items())), ""


def _holds(raw: str, receipt: dict[str, Any], environment: str, pyproject: tuple[str, str]) -> str:
    """Why the receipt of tier *raw* does not vouch for this project, tierlock and environment ("" when it does)."""
    from tierlock._version import __version__

    if receipt.get("tier") != raw:
        return f"the receipt {raw}.json is tier {receipt.get('tier')!r}'s"
    recorded = receipt.get("pyproject")
    if not isinstance(recorded, dict) or (recorded.get("path"), recorded.get("digest")) != pyproject:
        return f"{pyproject[0]} changed since {raw} was installed"
    if receipt.get("tierlock_version") != __version__:
        return f"{raw} was installed by tierlock {receipt.get('tierlock_version')}, this is {__version__}"
    interpreter = receipt.get("interpreter")
    written_for = interpreter.get("environment") if isinstance(interpreter, dict) else None
    if written_for != environment:
        return f"the receipt was written for {written_for}"
    from tierlock.installer.location import machine_of

    kept = interpreter if isinstance(interpreter, dict) else {}
    executable = kept.get("executable")
    if "machine" in kept and kept["machine"] != machine_of(str(executable)):  # (a receipt older than it has none)
        return f"the receipt was written by an interpreter of another machine than {executable}"
    real = kept.get("real")  # (the interpreter the venv's link led to: replaced by another version, the venv breaks)
    if real is not None and real != os.path.realpath(str(executable)):  # (a receipt older than it has none)
        return f"{executable} led to {real} when {raw} was installed; it leads to another interpreter now"
    if receipt.get("stale"):
        return f"{raw} was marked stale: another tier replaced its packages"
    return ""


def _lock_matches(raw: str, receipt: dict[str, Any], packages: list[dict[str, Any]]) -> str:
    """Why the lockfiles do not match the receipt ("" when every digest holds and its packages are exactly what
    the tier's own lockfile pins, less what the install left out for this environment)."""
    lockfiles = receipt.get("lockfiles")
    if not isinstance(lockfiles, dict) or not isinstance(lockfiles.get(raw), dict):
        return f"the receipt of {raw} names no lockfile of {raw}"
    own = ""
    for tier, entry in lockfiles.items():
        if not isinstance(entry, dict):
            return f"the lockfile of {tier} changed since {raw} was installed"
        path = str(entry.get("path"))
        try:
            data = _read_regular(path)
        except OSError:
            return f"cannot read {path}"
        if _digest_of(data) != entry.get("digest"):
            return f"the lockfile of {tier} changed since {raw} was installed"
        if tier == raw:
            own = data.decode("utf-8", "replace")
    return _packages_match(raw, str(lockfiles[raw].get("path")), own, receipt, packages)


def _packages_match(raw: str, path: str, text: str, receipt: dict[str, Any], packages: list[dict[str, Any]]) -> str:
    """Why the receipt's packages are not the tier's pins ("" when they are).

    A uv.lock pins every extra and group of the workspace: the receipt's packages must be among its pins, and
    that the tier's part of it is exactly them rests on the digests (the same uv.lock and pyproject.toml, read by
    the same tierlock, select the same part).
    """
    from tierlock.installer.pinscan import scan, whole_lock

    pins = scan(path, text, canonical)
    left_out = receipt.get("left_out")
    if pins is None or not isinstance(left_out, list):
        return f"the receipt of {raw} cannot be compared with {path} here"
    vouched = {canonical(str(name)) for name in left_out}
    for package in packages:
        name = canonical(str(package.get("name")))
        vouched.add(name)
        if package.get("project"):
            continue  # the project itself: installed from its source, at its source's version
        versions = pins.get(name)
        if versions is None or (None not in versions and str(package.get("version")) not in versions):
            return f"the receipt of {raw} vouches for {name} {package.get('version')}, which {path} does not pin"
    if set(pins) - vouched and not whole_lock(path):
        return f"{path} pins {', '.join(sorted(set(pins) - vouched))}, which the receipt of {raw} does not vouch for"
    return ""


def try_noop(
    tiers: Sequence[str], *, project_arg: str | None, python: str | None, system: bool, install_project: bool = True
) -> tuple[NoOp | None, str]:
    """The whole fast path: find the project and the target cheaply, then :func:`check` (*install_project*: the
    request arms the project itself, no ``--no-install-project``)."""
    pyproject = find_pyproject(project_arg)
    if pyproject is None:
        return None, "no pyproject.toml"
    if python is None and not os.environ.get("VIRTUAL_ENV"):
        from tierlock.installer.location import quick_project_environment

        python = quick_project_environment(pyproject)  # like the full path: the project's environment
        if python is None:
            return None, "the project environment needs locating"
    target = quick_target(python, system)
    if target is None:
        return None, "the target needs inspecting"
    try:
        return check(tiers, target[0], target[1], pyproject, install_project=install_project)
    except (TypeError, ValueError, AttributeError, IndexError, KeyError) as exc:  # a receipt of an unexpected shape
        return None, f"a receipt could not be read: {exc}"


# -- what it prints ------------------------------------------------------------


def summary(noop: NoOp) -> str:
    """The line people see (the full path prints the same one)."""
    return (
        f"{', '.join(noop.tiers)}: already present ({noop.packages} package(s), "
        f"{noop.files} file(s) checked against the receipt); nothing to do"
    )


def to_json(noop: NoOp, duration: float) -> dict[str, Any]:
    """The ``--json`` document of a no-op (the same shape as a full install's)."""
    return {
        "ok": True,
        "tier": " ".join(noop.tiers),
        "tiers": noop.tiers,
        "result": "unchanged",
        "target": noop.prefix,
        "package_count": noop.packages,
        "counts": {"install": 0, "replace": 0, "repair": 0, "satisfied": noop.packages},
        "packages": {
            "install": [],
            "replace": [],
            "repair": [],
            "satisfied": [
                {"name": n, "version": v, "installed_version": v, "reason": "receipt verified"} for n, v in noop.pins
            ],
        },
        "files_checked": noop.files,
        "backend": None,
        "backend_version": None,
        "backend_s": None,
        "waited_for_lock": False,
        "receipts": [],
        "leftovers_cleared": [],
        "local_packages": [],
        "duration_s": round(duration, 4),
    }
