"""Wheels carrying real platform tags, sdists built at test time, and a local simple index serving them.

A wheel tagged ``cp311-cp311-musllinux_1_2_x86_64`` is a zip like any other
(:func:`tests.support.wheels.build_wheel`); what matters to the coverage check is
its file name. An sdist here is a real source distribution with static metadata
(``PKG-INFO`` 2.2 and a ``[project]`` table, so a lock reads it without building)
and an in-tree build backend that needs nothing from an index; its build can
compile a C file with gcc (and fail for a missing header) or import a module that
is not there. :func:`simple_index` serves a PEP 503 index (HTTP on 127.0.0.1) with a
sha256 on every link, as a registry serves them: locks made from it carry every
file's hash.
"""

from __future__ import annotations

import hashlib
import io
import re
import tarfile
from collections.abc import Sequence
from pathlib import Path

from packaging.utils import canonicalize_name

from tests.support.wheels import build_wheel

#: One wheel per platform kind a project declares, for CPython 3.11 and 3.12.
EVERY_PLATFORM = (
    "manylinux_2_17_x86_64.manylinux2014_x86_64",
    "musllinux_1_2_x86_64",
    "macosx_11_0_arm64",
    "win_amd64",
)

BACKEND = """\
import base64
import hashlib
import os
import subprocess
import zipfile

NAME, VERSION = {name!r}, {version!r}
C_SOURCE = {c_source!r}
IMPORTS = {imports!r}


def get_requires_for_build_wheel(config_settings=None):
    return []


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    for module in IMPORTS:
        __import__(module)
    if C_SOURCE:
        with open("ext.c", "w") as source:
            source.write(C_SOURCE)
        subprocess.run(["gcc", "-c", "ext.c", "-o", "ext.o"], check=True)
    dist = NAME.replace("-", "_")
    wheel = f"{{dist}}-{{VERSION}}-py3-none-any.whl"
    info = f"{{dist}}-{{VERSION}}.dist-info"
    contents = {{
        f"{{dist}}/__init__.py": "BUILT = True\\n",
        f"{{info}}/METADATA": f"Metadata-Version: 2.1\\nName: {{NAME}}\\nVersion: {{VERSION}}\\n",
        f"{{info}}/WHEEL": "Wheel-Version: 1.0\\nGenerator: tests\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n",
        f"{{info}}/top_level.txt": f"{{dist}}\\n",
    }}
    record = []
    for path, text in contents.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(text.encode()).digest()).rstrip(b"=").decode()
        record.append(f"{{path}},sha256={{digest}},{{len(text.encode())}}")
    contents[f"{{info}}/RECORD"] = "\\n".join([*record, f"{{info}}/RECORD,,"]) + "\\n"
    with zipfile.ZipFile(os.path.join(wheel_directory, wheel), "w") as archive:
        for path, text in contents.items():
            archive.writestr(path, text)
    return wheel
"""


def native_wheels(
    dest: Path, name: str, version: str, platforms: Sequence[str] = EVERY_PLATFORM, pythons: Sequence[str] = ("311",)
) -> list[Path]:
    """One ``cp3X-cp3X-PLATFORM`` wheel of *name* per platform tag and Python (bytes that only look compiled)."""
    return [
        build_wheel(dest, name, version, tag=f"cp{py}-cp{py}-{platform}", extension=True)
        for platform in platforms
        for py in pythons
    ]


def build_sdist(
    dest: Path, name: str, version: str, *, header: str | None = None, imports: Sequence[str] = (), salt: str = ""
) -> Path:
    """``{name}-{version}.tar.gz``: static metadata, an in-tree backend; its build compiles a C file including
    *header* (when given) and imports *imports* (when given). *salt* makes its hash unique (uv caches what it
    built by the sdist's hash: a test that watches a build needs one no other test built)."""
    dest.mkdir(parents=True, exist_ok=True)
    stem = f"{canonicalize_name(name).replace('-', '_')}-{version}"
    c_source = f"#include <{header}>\nint tierlock_test_value;\n" if header else ""
    files = {
        "PKG-INFO": f"Metadata-Version: 2.2\nName: {name}\nVersion: {version}\n",
        "pyproject.toml": (
            '[build-system]\nrequires = []\nbuild-backend = "backend"\nbackend-path = ["."]\n\n'
            f'[project]\nname = "{name}"\nversion = "{version}"\n'
        ),
        "backend.py": BACKEND.format(name=name, version=version, c_source=c_source, imports=tuple(imports))
        + f"# {salt}\n",
    }
    path = dest / f"{stem}.tar.gz"
    with tarfile.open(path, "w:gz") as archive:
        for relative, text in files.items():
            data = text.encode()
            info = tarfile.TarInfo(f"{stem}/{relative}")
            info.size = len(data)
            info.mtime = 1_700_000_000
            archive.addfile(info, io.BytesIO(data))
    return path


def simple_index(files: Path, dest: Path) -> str:
    """A PEP 503 simple index over every wheel and sdist in *files*, served over HTTP on 127.0.0.1; its URL.

    Served, not ``file://``: a lock names registry distributions and files inside the project, and a
    registry is reached over HTTP (the server is a daemon thread that lives as long as the test process).
    """
    import shutil
    import threading
    from functools import partial
    from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

    class Quiet(SimpleHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:
            del format, args

    by_name: dict[str, list[Path]] = {}
    (dest / "files").mkdir(parents=True, exist_ok=True)
    for path in sorted(files.iterdir()):
        if path.name.endswith((".whl", ".tar.gz")):
            project = re.split(r"-\d", path.name, maxsplit=1)[0]
            by_name.setdefault(canonicalize_name(project), []).append(path)
            shutil.copyfile(path, dest / "files" / path.name)
    simple = dest / "simple"
    simple.mkdir(exist_ok=True)
    for name, paths in by_name.items():
        links = "".join(
            f'<a href="/files/{p.name}#sha256={hashlib.sha256(p.read_bytes()).hexdigest()}">{p.name}</a>\n'
            for p in paths
        )
        (simple / name).mkdir(exist_ok=True)
        (simple / name / "index.html").write_text(f"<html><body>\n{links}</body></html>\n", encoding="utf-8")
    listing = "".join(f'<a href="{n}/">{n}</a>\n' for n in sorted(by_name))
    (simple / "index.html").write_text(f"<html><body>\n{listing}</body></html>\n", encoding="utf-8")
    server = ThreadingHTTPServer(("127.0.0.1", 0), partial(Quiet, directory=str(dest)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return f"http://127.0.0.1:{server.server_address[1]}/simple"
