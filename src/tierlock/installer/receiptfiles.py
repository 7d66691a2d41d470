"""What a receipt's files are on disk now: each one stat-ed, a compiled file rewritten in place, a second
metadata folder beside a package's own (:mod:`tierlock.installer.fastpath`'s check, and the receipt's rewrite in
:mod:`tierlock.installer.receiptrecord`).

On the start-up path of the console scripts with the fast path: it imports only ``os`` (already loaded), and
:mod:`tierlock.compiledname` and ``time`` only when a file changed or a receipt is dated.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import Any


def canonical(name: str) -> str:
    """PEP 503 normalization (as :func:`packaging.utils.canonicalize_name`), without ``re``."""
    out = []
    run = False
    for ch in name.lower():
        if ch in "-_.":
            if not run:
                out.append("-")
            run = True
        else:
            out.append(ch)
            run = False
    return "".join(out)


def written_at(path: str) -> int | None:
    """When the receipt at *path* was written (its modification time, ns); None when it cannot be looked up or is
    dated later than this machine's clock says it is now (the clock was set back since: nothing can be dated
    against it)."""
    try:
        written = os.stat(path).st_mtime_ns
    except OSError:
        return None
    import time  # (built in: no file read)

    return written if written <= time.time_ns() else None


def verify_files(packages: Iterable[dict[str, Any]], prefix: str, written: int | None = None) -> tuple[int, str]:
    """Stat every recorded file; (files checked, the first difference or ""). With *written* (the receipt's
    :func:`written_at`), a compiled file (extension module or shared library) whose status changed after it is a
    difference: rewritten in place, its size and modification time put back (``cp -p``), it is another file for
    the probe, which reads its header and what it needs. A shared object's row carries the time it was written
    (:func:`tierlock.installer.receipts.file_rows`): one rewritten since, at its size, is a difference too."""
    stat = os.stat
    files = 0
    for package in packages:
        site = os.path.join(prefix, str(package.get("site", ""))) + os.sep
        for row in package.get("files", ()):
            files += 1
            try:
                found = stat(site + row[0])
            except OSError:
                return files, f"{package.get('name')}: {row[0]} is missing"
            if found.st_size != row[1]:
                return files, f"{package.get('name')}: {row[0]} changed size"
            if len(row) > 2 and found.st_mtime_ns != row[2]:
                return files, f"{package.get('name')}: {row[0]} was written again since it was armed"
            if written is not None and found.st_ctime_ns > written and _compiled(row[0]):
                return files, f"{package.get('name')}: {row[0]} changed since the receipt was written"
    return files, ""


def compiled_changed(packages: Iterable[dict[str, Any]], prefix: str, written: int) -> bool:
    """Whether a compiled file the receipt's *packages* list is there with its status changed after *written*
    (what :func:`verify_files` steps aside for; one missing or resized the probe says)."""
    from tierlock.compiledname import is_compiled

    for package in packages:
        site = os.path.join(prefix, str(package.get("site", ""))) + os.sep
        for row in package.get("files", ()):
            if is_compiled(row[0]):
                try:
                    if os.stat(site + row[0]).st_ctime_ns > written:
                        return True
                except OSError:
                    continue
    return False


def _compiled(rel: str) -> bool:
    """:func:`tierlock.compiledname.is_compiled` (loaded only for a file that changed since its receipt)."""
    from tierlock.compiledname import is_compiled

    return is_compiled(rel)


def beside(packages: Iterable[dict[str, Any]], prefix: str, listed: dict[str, dict[str, list[str]]]) -> str:
    """Why a recorded package has another metadata folder of its name beside its own ("" when none): a second
    ``.dist-info`` (another version's, left by a tool that installed over it, or copied in) is what
    ``importlib.metadata`` may read first, and the probe finds the package partial for it; its files alone do not
    tell. *listed*: site folder -> its metadata folders by name, each folder listed once per check."""
    for package in packages:
        site = os.path.join(prefix, str(package.get("site", "")))
        folders = listed.get(site)
        if folders is None:
            folders = listed[site] = metadata_folders(site)
        own = str(package.get("dist_info", ""))
        others = [f for f in folders.get(canonical(str(package.get("name", ""))), ()) if f != own]
        if others:
            return f"{package.get('name')}: {', '.join(sorted(others))} beside {own}"
    return ""


def metadata_folders(site: str) -> dict[str, list[str]]:
    """The ``.dist-info`` and ``.egg-info`` entries of *site* by the name they carry (``name-version.dist-info``)."""
    out: dict[str, list[str]] = {}
    try:
        entries = os.listdir(site)
    except OSError:
        return out
    for entry in entries:
        if entry.endswith((".dist-info", ".egg-info")):
            out.setdefault(canonical(entry.rpartition(".")[0].partition("-")[0]), []).append(entry)
    return out
