"""Receipts: what tierlock installed, recorded inside the target environment.

One small JSON file per tier, ``<prefix>/tierlock/receipts/<tier>.json``,
written atomically after a verified install. It records the tier, the digests
of the lockfiles it was armed from, every package with its RECORD files and
sizes, the backend, the tierlock version, the time and the interpreter.

The no-op fast path (:mod:`tierlock.installer.fastpath`) stats the recorded
files instead of re-planning; it reads JSON and calls ``os.stat``, nothing more.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tierlock.frozen import Frozen
from tierlock.installer import fastpath

if TYPE_CHECKING:
    from tierlock.environment import Target

SCHEMA = fastpath.SCHEMA  # (each defined once, where the no-op fast path reads the receipts)
STAMPED = fastpath.STAMPED
RECEIPTS_DIR = fastpath.RECEIPTS_DIR


def receipts_dir(prefix: Path) -> Path:
    return prefix.joinpath(*RECEIPTS_DIR)


def receipt_path(prefix: Path, tier: str) -> Path:
    return receipts_dir(prefix) / f"{tier}.json"


def file_digest(path: Path) -> str:
    """``sha256:<hex>`` of a file's bytes (how a receipt names the lockfile it came from)."""
    from tierlock.fsutil import kept_bytes
    from tierlock.installer.fastpath import _digest_of, digest  # the same bytes, without loading OpenSSL

    data = kept_bytes(path)  # the bytes this command already read (each lockfile is read once per command)
    return digest(os.fspath(path)) if data is None else _digest_of(data)


#: What the probe reads inside a file beyond its size (its ELF, Mach-O or PE headers and needs): a shared object.
_SHARED = (".so", ".pyd", ".dll", ".dylib")

Row = tuple[str, int] | tuple[str, int, int]
"""A recorded file: (path relative to the site folder, size), with its ``st_mtime_ns`` for a shared object."""


def shared_object(rel: str) -> bool:
    """Whether *rel* names a shared object (an extension module or a library: ``x.so``, ``libz-0a1b2c3d.so.1``)."""
    name = rel.rpartition("/")[2]
    return name.endswith(_SHARED) or ".so." in name


def file_rows(
    records: Iterable[tuple[str, str, int | None, Any]], written: Mapping[str, int] | None = None
) -> tuple[Row, ...]:
    """A receipt's rows of a probe's RECORD rows (full path, RECORD path, size, hash) that carry a size (*written*:
    full path -> ``st_mtime_ns`` the probe read already, for the shared objects it judged; the others are stat-ed).

    A shared object's row also carries the time it was last written: the probe reads what such a file needs and
    whether this machine can load it, which another build's file of the same size changes (``cp -p`` of another
    version's extension). The no-op fast path then sees that rewrite and goes the full way, whose probe finds it
    and whose repair mends it (a receipt of sizes alone answered the probe's own fix "already present")."""
    rows: list[Row] = []
    for full, rel, size, _hash in records:
        if size is None:
            continue
        if shared_object(rel):
            when = (written or {}).get(full)
            try:
                rows.append((rel, size, os.stat(full).st_mtime_ns if when is None else when))
                continue
            except OSError:
                pass
        rows.append((rel, size))
    return tuple(rows)


class InstalledDist(Frozen):
    """One installed distribution as a receipt records it (a :class:`~tierlock.frozen.Frozen` value: building a
    dataclass at import cost probe and status about a millisecond a class)."""

    _fields = ("name", "version", "site", "dist_info", "files", "project")

    name: str
    version: str
    site: str
    """The site folder holding the ``.dist-info`` (RECORD paths are relative to it), relative to the prefix."""
    dist_info: str
    files: tuple[Row, ...]
    """RECORD entries that carry a size (``.pyc`` left out: they are regenerated), a shared object's with its
    ``st_mtime_ns`` (:func:`file_rows`)."""
    project: bool = False
    """Installed from the project's tree (the project itself, a workspace member): no lock pins its version."""

    def __init__(  # noqa: PLR0917 (the signature it had as a dataclass)
        self,
        name: str,
        version: str,
        site: str,
        dist_info: str,
        files: tuple[Row, ...],
        project: bool = False,
    ) -> None:
        self._init(name, version, site, dist_info, files, project)

    def to_dict(self, *, as_read: bool = True) -> dict[str, Any]:
        """The package as a receipt holds it; *as_read*: its files as lists (as :func:`load` gives them back, for
        comparing), else as the tuples they are (what :func:`json.dumps` writes the same way, without a copy)."""
        out: dict[str, Any] = {
            "name": self.name,
            "version": self.version,
            "site": self.site,
            "dist_info": self.dist_info,
            "files": [list(f) for f in self.files] if as_read else self.files,
        }
        if self.project:
            out["project"] = True
        return out


class Receipt(Frozen):
    """A receipt as read: where it is and its document."""

    _fields = ("path", "data")

    path: Path
    data: Mapping[str, Any]

    def __init__(self, path: Path, data: Mapping[str, Any]) -> None:
        self._init(path, data)

    @property
    def tier(self) -> str:
        return str(self.data.get("tier", ""))

    @property
    def lockfiles(self) -> dict[str, str]:
        """Tier name -> lockfile digest for the tier and every tier it is layered on."""
        raw = self.data.get("lockfiles", {})
        return {str(k): str(v.get("digest", "")) for k, v in raw.items() if isinstance(v, dict)}

    @property
    def lockfile_paths(self) -> dict[str, tuple[str, str]]:
        """Tier name -> (lockfile path, digest)."""
        raw = self.data.get("lockfiles", {})
        return {
            str(k): (str(v.get("path", "")), str(v.get("digest", ""))) for k, v in raw.items() if isinstance(v, dict)
        }

    @property
    def pyproject(self) -> tuple[str, str]:
        raw = self.data.get("pyproject", {})
        return (str(raw.get("path", "")), str(raw.get("digest", ""))) if isinstance(raw, dict) else ("", "")

    @property
    def packages(self) -> list[dict[str, Any]]:
        raw = self.data.get("packages", [])
        return [p for p in raw if isinstance(p, dict)]

    @property
    def package_names(self) -> set[str]:
        return {str(p.get("name")) for p in self.packages}

    @property
    def backend(self) -> tuple[str, str]:
        """(name, version) of the backend that installed the packages (``none`` when none ran)."""
        raw = self.data.get("backend", {})
        return (str(raw.get("name", "none")), str(raw.get("version", ""))) if isinstance(raw, dict) else ("none", "")

    @property
    def installed_at(self) -> str:
        return str(self.data.get("installed_at", ""))


def build(
    *,
    tier: str,
    pyproject: tuple[str, str],
    lockfiles: Mapping[str, tuple[str, str]],
    packages: Sequence[InstalledDist],
    backend: str,
    backend_version: str,
    interpreter: Mapping[str, Any],
    project: str,
    tierlock_version: str,
    now: float | None = None,
    left_out: Sequence[str] = (),
    without_project: bool = False,
) -> dict[str, Any]:
    """The receipt document (pure). *pyproject* and *lockfiles* (tier -> ...): (path, digest), bottom tier first.
    *left_out*: the names the tier's lockfile pins that were not installed here (markers that do not hold, a
    wheel the target's tags do not select, the project itself), so that the packages and *left_out* are
    exactly the lockfile's pins (the no-op fast path checks it). *without_project*: the tier was armed without the
    project itself (``--no-install-project``) while a plain arming installs it (the fast path then answers only a
    request without it)."""
    stamp = time.gmtime(time.time() if now is None else now)
    document = {
        "schema": SCHEMA,
        "tier": tier,
        "lockfiles": {name: {"path": path, "digest": digest} for name, (path, digest) in lockfiles.items()},
        "project": project,
        "pyproject": {"path": pyproject[0], "digest": pyproject[1]},
        "backend": {"name": backend, "version": backend_version},
        "tierlock_version": tierlock_version,
        "installed_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", stamp),
        "interpreter": dict(interpreter),
        "package_count": len(packages),
        "file_count": sum(len(p.files) for p in packages),
        "packages": [p.to_dict(as_read=False) for p in sorted(packages, key=lambda p: p.name)],
        "left_out": sorted(left_out),
        STAMPED: True,
    }
    if without_project:
        document["without_project"] = True
    return document


def write(prefix: Path, document: Mapping[str, Any]) -> Path:
    """Write *document* atomically; never creates *prefix* itself.

    A write the system refuses (a disk full, a file-size limit, a vanished environment) is a
    :class:`~tierlock.errors.BackendError` (exit 3) naming the receipt: the packages are installed and
    verified, only the receipt is missing, and the same command again writes it.
    """
    from tierlock.scratch import write_atomic

    path = receipt_path(prefix, str(document["tier"]))
    try:
        path.parent.parent.mkdir(exist_ok=True)
        path.parent.mkdir(exist_ok=True)
        # A new receipt gets 0666 less the umask from write_atomic, readable like the packages beside it.
        # Not flushed to the disk (an fsync right after a backend's thousands of files waits for the file
        # system's journal to take them all): the rename keeps it whole after any interrupt, and one that a
        # crash of the machine leaves empty or gone is no receipt (:func:`load`), as are files that lost
        # their sizes (the no-op fast path compares every one): the full install looks again and writes it.
        # (no check for cycles: a document of plain values built here; it visits every one of the thousands of rows)
        text = json.dumps(document, separators=(",", ":"), check_circular=False)
        write_atomic(path, (text + "\n").encode(), sync=False)
    except OSError as exc:
        from tierlock.errors import BackendError

        raise BackendError(
            f"could not write the receipt {path} ({exc.strerror or exc}); the packages of tier "
            f"{document['tier']} are installed and verified, but without a receipt the no-op fast path and "
            "status cannot vouch for them",
            tier=str(document["tier"]),
            file=str(path),
        ) from None
    return path


def load(path: Path) -> Receipt | None:
    """The receipt at *path*, or None when it is missing or unreadable (treated as no receipt).

    Read once while its identity (device, inode, size, times) holds: a command asks for the receipts once per
    tier it probes. A receipt changed in place within :data:`_RACY_NS` of its last change could keep its
    identity (the clock's tick), so one that recent is read every time.
    """
    try:
        info = os.stat(path)
    except OSError:
        return None
    identity = (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns)
    kept = _LOADED.get(path)
    if kept is not None and kept[0] == identity:
        return kept[1]
    try:
        data = json.loads(path.read_bytes())
    except (OSError, ValueError):
        return None
    receipt = Receipt(path, data) if isinstance(data, dict) and data.get("schema") == SCHEMA and shaped(data) else None
    if time.time_ns() - max(info.st_mtime_ns, info.st_ctime_ns) > _RACY_NS:
        if len(_LOADED) >= _KEPT:  # a long-lived process (a test session) meets many environments
            _LOADED.clear()
        _LOADED[path] = (identity, receipt)
    return receipt


def shaped(data: Mapping[str, Any]) -> bool:
    """Whether each part of a receipt document that the readers take apart has the shape :func:`build` writes
    (a receipt edited by hand, or another tool's file of that name, is read as none: the tier then arms again).
    Each package's files (thousands of rows) are read only by the no-op fast path, which checks them as it
    stats them (:func:`tierlock.installer.fastpath.check`)."""
    tables = ("lockfiles", "pyproject", "backend", "interpreter")
    if not isinstance(data.get("tier", ""), str) or not all(isinstance(data.get(k, {}), dict) for k in tables):
        return False
    if not all(isinstance(v, dict) for v in data.get("lockfiles", {}).values()):
        return False
    packages = data.get("packages", [])
    if not isinstance(packages, list) or not isinstance(data.get("left_out", []), list):
        return False
    return all(isinstance(p, dict) and isinstance(p.get("files", []), list) for p in packages)


#: :func:`load`'s receipts by path, with the identity each was read at.
_LOADED: dict[Path, tuple[tuple[int, ...], Receipt | None]] = {}
#: How recent a change may be for a receipt to be read again every time (nanoseconds).
_RACY_NS = 2_000_000_000
_KEPT = 64


def load_tier(prefix: Path, tier: str) -> Receipt | None:
    """The receipt of *tier* in the environment at *prefix*, or None."""
    return load(receipt_path(prefix, tier))


def load_all(prefix: Path) -> dict[str, Receipt]:
    """Every readable receipt in the environment at *prefix*, by tier name."""
    folder = receipts_dir(prefix)
    out: dict[str, Receipt] = {}
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return out
    for name in names:
        if name.endswith(".json") and not name.startswith("."):
            receipt = load(folder / name)
            if receipt is not None:
                out[receipt.tier or name[:-5]] = receipt
    return out


def clean_temporary(prefix: Path) -> list[str]:
    """Delete the temporary files an earlier, killed receipt write left (``.<tier>.json.*.tmp``).

    Called under the environment lock, where no other process is writing a receipt.
    """
    folder = receipts_dir(prefix)
    removed: list[str] = []
    try:
        names = os.listdir(folder)
    except OSError:
        return removed
    for name in names:
        if name.startswith(".") and name.endswith(".tmp"):
            try:
                os.unlink(folder / name)
            except OSError:
                continue
            removed.append(name)
    return removed


def executable_of(target: Target) -> str:
    """The interpreter as a receipt records it."""
    return os.path.abspath(target.python)


def remove(prefix: Path, tier: str) -> bool:
    path = receipt_path(prefix, tier)
    try:
        path.unlink()
    except FileNotFoundError:
        return False
    return True


def recorded_paths(prefix: Path, receipts: Iterable[Receipt]) -> set[str]:
    """Every file any of *receipts* records (absolute paths; a row of another shape than ``[path, size]`` or
    ``[path, size, mtime_ns]`` left out)."""
    out: set[str] = set()
    for receipt in receipts:
        for package in receipt.packages:
            site = os.path.join(prefix, str(package.get("site", "")))
            for row in package.get("files", []):
                if isinstance(row, list) and len(row) in {2, 3} and isinstance(row[0], str) and "\0" not in row[0]:
                    out.add(os.path.normpath(os.path.join(site, row[0])))
    return out
