"""Turn distributions installed in the running environment back into wheel files (offline stand-ins for an index).

A fresh venv that installs tierlock's built wheel needs tierlock's own
dependencies (and uv for the ``uv`` extra) from somewhere; the suite stays
offline, so they are repacked from this environment, file for file, with their
real metadata. Files outside site-packages (``../../../bin/uv``) go into the
wheel's ``.data/scripts``; console scripts are left out (the installer writes
them again from ``entry_points.txt``).
"""

from __future__ import annotations

import base64
import hashlib
import importlib.metadata
import re
import zipfile
from collections.abc import Iterable
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name


def _hash(data: bytes) -> str:
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def repack(name: str, dest: Path) -> Path:
    """A wheel of the installed distribution *name*, written into *dest*."""
    dist = importlib.metadata.distribution(name)
    meta_name = dist.metadata["Name"]
    version = dist.version
    stem = re.sub(r"[-_.]+", "_", canonicalize_name(meta_name))
    info_dir = f"{stem}-{version}.dist-info"
    data_dir = f"{stem}-{version}.data"
    scripts = {ep.name for ep in dist.entry_points if ep.group in ("console_scripts", "gui_scripts")}
    contents: dict[str, tuple[bytes, int]] = {}
    for file in dist.files or ():
        posix = file.as_posix()
        if "__pycache__" in posix or posix.endswith(("/RECORD", "/INSTALLER", "/REQUESTED", "/direct_url.json")):
            continue
        source = Path(str(file.locate()))
        if not source.is_file():
            continue
        mode = source.stat().st_mode & 0o777
        if posix.startswith("../"):
            if "/bin/" not in posix or source.name in scripts:
                continue
            arcname = f"{data_dir}/scripts/{source.name}"
        elif posix.split("/", 1)[0].endswith(".dist-info"):
            arcname = f"{info_dir}/{posix.split('/', 1)[1]}"
        else:
            arcname = posix
        contents[arcname] = (source.read_bytes(), mode)
    contents[f"{info_dir}/WHEEL"] = (
        b"Wheel-Version: 1.0\nGenerator: tierlock-tests-repack\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
        0o644,
    )
    record = [f"{path},{_hash(data)},{len(data)}" for path, (data, _) in contents.items()]
    record.append(f"{info_dir}/RECORD,,")
    contents[f"{info_dir}/RECORD"] = (("\n".join(record) + "\n").encode(), 0o644)
    dest.mkdir(parents=True, exist_ok=True)
    wheel = dest / f"{stem}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for path, (data, mode) in contents.items():
            info = zipfile.ZipInfo(path, date_time=(2020, 1, 1, 0, 0, 0))
            info.external_attr = (0o100000 | mode) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            zf.writestr(info, data)
    return wheel


def closure(roots: Iterable[str], extras: Iterable[str] = ()) -> list[str]:
    """The installed distributions *roots* need (with *extras* of the roots), following Requires-Dist markers."""
    wanted = set(extras)
    seen: dict[str, str] = {}
    todo = [(r, True) for r in roots]
    while todo:
        name, is_root = todo.pop()
        key = canonicalize_name(name)
        if key in seen:
            continue
        try:
            dist = importlib.metadata.distribution(name)
        except importlib.metadata.PackageNotFoundError:
            continue
        seen[key] = dist.metadata["Name"]
        for line in dist.requires or ():
            req = Requirement(line)
            env_extras = wanted if is_root else set()
            if req.marker is None or any(req.marker.evaluate({"extra": e}) for e in (env_extras or {""})):
                todo.append((req.name, False))
    return sorted(seen.values())


def repack_closure(roots: Iterable[str], dest: Path, extras: Iterable[str] = ()) -> list[Path]:
    """Wheels of *roots* and everything they need, as installed here."""
    return [repack(name, dest) for name in closure(roots, extras)]
