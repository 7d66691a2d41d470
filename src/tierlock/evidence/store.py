"""Where evidence lives, and the receipts in it: ids, atomic writes, reading, retention.

Each run gets a folder ``<evidence dir>/<run id>/`` (mode 0700) holding one log per
command and ``receipt.json``, every file readable by its owner only (0600). The run id sorts by start time
(``20261130T143000.123456Z-<pid>-<random>``), so the newest run is the last
name. A receipt is written when the run starts (``"result": "running"``) and
replaced atomically when it ends. Only the standard library is imported:
``tierlock verified`` reads receipts on its fast path.
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from tierlock.evidence import IN_GIT_DIR, RECEIPT, RECEIPT_VERSION
from tierlock.scratch import write_atomic

#: How many runs an evidence folder keeps by default (``--keep`` / ``TIERLOCK_EVIDENCE_KEEP``).
DEFAULT_KEEP = 20
KEEP_ENV = "TIERLOCK_EVIDENCE_KEEP"
#: A folder of a run that never finished (no process left) is removed after this long, in seconds.
ABANDONED_AFTER = 24 * 3600


def default_dir(git_dir: Path | None, root: Path) -> Path:
    """``<git dir>/tierlock/evidence``; outside git, ``<root>/.tierlock/evidence``."""
    if git_dir is not None:
        return git_dir.joinpath(*IN_GIT_DIR)
    return root / ".tierlock" / "evidence"


def ignore_outside_git(evidence_dir: Path) -> None:
    """Outside git, the default folder lies in the tree: a ``.gitignore`` of ``*`` keeps it out of a later commit."""
    if evidence_dir.parent.name == ".tierlock":
        marker = evidence_dir.parent / ".gitignore"
        if not marker.exists():
            evidence_dir.parent.mkdir(parents=True, exist_ok=True)
            marker.write_text("# tierlock evidence of unbound runs: never committed\n*\n", encoding="utf-8")


def new_run(evidence_dir: Path) -> tuple[str, Path]:
    """Create a fresh run folder; return (run id, folder). Concurrent runs never share one."""
    evidence_dir.mkdir(parents=True, exist_ok=True)
    while True:
        now = time.time()
        stamp = time.strftime("%Y%m%dT%H%M%S", time.gmtime(now)) + f".{int(now % 1 * 1e6):06d}Z"
        run_id = f"{stamp}-{os.getpid()}-{os.urandom(3).hex()}"
        folder = evidence_dir / run_id
        try:
            folder.mkdir(mode=0o700)
        except FileExistsError:  # pragma: no cover - same microsecond, pid and random bytes
            continue
        return run_id, folder


def write(folder: Path, document: dict[str, Any], *, durable: bool = True) -> Path:
    """Write *document* as ``receipt.json`` in *folder*, atomically (*durable*: synced to disk first)."""
    path = folder / RECEIPT
    data = (json.dumps(document, indent=2, sort_keys=False) + "\n").encode()
    tmp = folder / f".{RECEIPT}.{os.getpid()}.{os.urandom(3).hex()}.tmp"
    try:
        with os.fdopen(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600), "wb") as handle:
            os.fchmod(handle.fileno(), 0o600)
            handle.write(data)
            if durable:
                handle.flush()
                os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return path


def write_json(path: Path, document: dict[str, Any], *, private: bool = False) -> None:
    """Write *document* atomically (*private*: readable by its owner only)."""

    write_atomic(path, json.dumps(document, separators=(",", ":")).encode())
    if private:
        os.chmod(path, 0o600)


def write_private(path: Path, text: str) -> None:
    """Write *text* to a new (or emptied) file readable by its owner only."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        os.fchmod(fd, 0o600)
        handle.write(text)


def read_json(path: Path) -> dict[str, Any] | None:
    try:
        document = json.loads(path.read_bytes())
    except (OSError, ValueError):
        return None
    return document if isinstance(document, dict) else None


def read(path: Path) -> dict[str, Any] | None:
    """The receipt at *path*, or None when it is missing or not a receipt."""
    try:
        document = json.loads(path.read_bytes())
    except (OSError, ValueError):
        return None
    return document if isinstance(document, dict) and document.get("receiptVersion") == RECEIPT_VERSION else None


def runs(evidence_dir: Path) -> list[Path]:
    """The run folders, newest first."""
    try:
        names = [e.name for e in os.scandir(evidence_dir) if e.is_dir() and not e.name.startswith(".")]
    except OSError:
        return []
    return [evidence_dir / name for name in sorted(names, reverse=True)]


def receipts(evidence_dir: Path) -> Iterator[tuple[Path, dict[str, Any]]]:
    """(path, receipt) of every finished run, newest first."""
    for folder in runs(evidence_dir):
        document = read(folder / RECEIPT)
        if document is not None and document.get("result") != "running":
            yield folder / RECEIPT, document


def _running(document: dict[str, Any] | None, folder: Path) -> bool:
    """Whether the run in *folder* may still be going (its process lives, or it is recent)."""
    if document is not None and document.get("result") != "running":
        return False
    pid = document.get("pid") if document else None
    if isinstance(pid, int) and pid > 0:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:  # pragma: no cover - another user's process
            return True
        return True
    try:
        return time.time() - folder.stat().st_mtime < ABANDONED_AFTER
    except OSError:
        return False


def prune(evidence_dir: Path, keep: int) -> list[Path]:
    """Delete all but the newest *keep* finished runs; never a run that may still be going."""
    removed: list[Path] = []
    finished = 0
    folders = runs(evidence_dir)
    if len(folders) <= keep:
        return removed  # no more runs than kept: no receipt needs reading
    for folder in folders:
        document = read(folder / RECEIPT)
        if _running(document, folder):
            continue
        finished += 1
        if finished > keep:
            _remove(folder)
            removed.append(folder)
    return removed


def _remove(folder: Path) -> None:
    """Delete a run folder (logs and the receipt: plain files; anything else is left alone)."""
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return
    for entry in entries:
        if entry.is_file(follow_symlinks=False) or entry.is_symlink():
            with contextlib.suppress(OSError):
                os.unlink(entry.path)
    with contextlib.suppress(OSError):
        os.rmdir(folder)


def keep_from_env(default: int = DEFAULT_KEEP) -> int:
    """``TIERLOCK_EVIDENCE_KEEP`` when it is a positive integer, else *default*."""
    value = os.environ.get(KEEP_ENV, "").strip()
    return int(value) if value.isdigit() and int(value) >= 1 else default
