"""Build real wheel files (zip archives with a correct RECORD) at test time."""

from __future__ import annotations

import base64
import hashlib
import importlib.machinery
import zipfile
from collections.abc import Mapping, Sequence
from pathlib import Path

from packaging.utils import canonicalize_name

from tests.support.binaries import loadable_stub

#: The suffix of a compiled extension module on this interpreter.
EXT_SUFFIX = importlib.machinery.EXTENSION_SUFFIXES[0]


def _record_hash(data: bytes) -> str:
    digest = hashlib.sha256(data).digest()
    return "sha256=" + base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


def file_sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def build_wheel(
    dest: Path,
    name: str,
    version: str,
    *,
    requires: Sequence[str] = (),
    files: Mapping[str, bytes | str] | None = None,
    extension: bool = False,
    tag: str = "py3-none-any",
    top_level: str | None = None,
) -> Path:
    """Write ``{name}-{version}-{tag}.whl`` into *dest* and return its path.

    By default the wheel holds one package (``import_name/__init__.py``); with
    *extension* it also carries a compiled-extension-named file
    ``import_name/_core{EXT_SUFFIX}`` (bytes that only look like a .so: the
    probe never imports, so the name and size are what matter).
    """
    dest.mkdir(parents=True, exist_ok=True)
    dist = canonicalize_name(name).replace("-", "_")
    pkg = top_level or dist
    contents: dict[str, bytes] = {}
    if files is None:
        contents[f"{pkg}/__init__.py"] = f'__version__ = "{version}"\n'.encode()
        if extension:
            contents[f"{pkg}/_core{EXT_SUFFIX}"] = loadable_stub(260)
    else:
        for path, data in files.items():
            contents[path] = data.encode() if isinstance(data, str) else data
    dist_info = f"{dist}-{version}.dist-info"
    metadata = ["Metadata-Version: 2.1", f"Name: {name}", f"Version: {version}"]
    metadata += [f"Requires-Dist: {r}" for r in requires]
    contents[f"{dist_info}/METADATA"] = ("\n".join(metadata) + "\n").encode()
    contents[f"{dist_info}/WHEEL"] = (
        f"Wheel-Version: 1.0\nGenerator: tierlock-tests\nRoot-Is-Purelib: {'false' if extension else 'true'}\n"
        f"Tag: {tag}\n"
    ).encode()
    contents[f"{dist_info}/top_level.txt"] = f"{pkg}\n".encode()
    record_lines = [f"{path},{_record_hash(data)},{len(data)}" for path, data in contents.items()]
    record_lines.append(f"{dist_info}/RECORD,,")
    contents[f"{dist_info}/RECORD"] = ("\n".join(record_lines) + "\n").encode()
    wheel = dest / f"{dist}-{version}-{tag}.whl"
    with zipfile.ZipFile(wheel, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for path, data in contents.items():
            zf.writestr(path, data)
    return wheel
