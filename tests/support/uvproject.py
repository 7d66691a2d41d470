"""Real uv projects, offline: wheels built at test time, an in-tree build backend, ``uv lock`` by real uv.

The project has what a uv lock can hold: extras (one with an extra of its
own dependency, ``gamma[fast]``), dependency groups (one including another), a
marker that never holds on Linux (``winonly``), a fork by Python version
(``delta``), a workspace member installed editable, and a conflict declaration
between two extras that pin ``corelib`` differently. uv is the one installed
next to this interpreter; every uv and tierlock subprocess gets :func:`uv_env`:
no user configuration or cache, the wheel folder as the only index, offline.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from collections.abc import Mapping, Sequence
from pathlib import Path

from tests.support.env import bin_dir, clean_env
from tests.support.probe_env import BACKEND
from tests.support.wheels import build_wheel

UV = bin_dir() / "uv"

#: name -> [(version, requires, compiled extension)]
WHEELS: dict[str, list[tuple[str, Sequence[str], bool]]] = {
    "alpha": [("1.0", ["beta>=1"], False), ("1.1", ["beta>=1"], False)],
    "beta": [("1.0", [], False), ("2.0", [], False)],
    "gamma": [("1.0", ["beta>=1", "delta; extra == 'fast'"], False)],
    "delta": [("1.0", [], False), ("2.0", [], False)],
    "corelib": [("1.0", [], True), ("2.0", [], True)],
    "winonly": [("1.0", [], False)],
    "testkit": [("1.0", [], False)],
}

PYPROJECT = """\
[project]
name = "proj"
version = "0.1.0"
requires-python = ">=3.11"
dependencies = ["alpha>=1", "winonly; sys_platform == 'win32'", "member"]

[project.optional-dependencies]
brain = ["gamma[fast]>=1", "corelib>=2"]
old = ["corelib<2"]

[dependency-groups]
test = ["testkit", "delta<2; python_version < '3.12'", "delta>=2; python_version >= '3.12'"]
tools = ["beta", { include-group = "test" }]

[build-system]
requires = []
build-backend = "backend"
backend-path = ["."]

[tool.uv]
conflicts = [[{ extra = "brain" }, { extra = "old" }]]

[tool.uv.sources]
member = { workspace = true }

[tool.uv.workspace]
members = ["packages/member"]

[tool.tierlock]
lock = "uv.lock"

[tool.tierlock.tiers.brain]
tests = ["tests/brain/**"]

[tool.tierlock.tiers.old]

[tool.tierlock.tiers.test]

[tool.tierlock.tiers.tools]
"""

MEMBER = """\
[project]
name = "member"
version = "0.2.0"
requires-python = ">=3.11"
dependencies = ["beta<2"]

[build-system]
requires = []
build-backend = "backend"
backend-path = ["."]
"""


def build_uv_wheelhouse(dest: Path) -> Path:
    for name, versions in WHEELS.items():
        for version, requires, extension in versions:
            files = None
            if name == "gamma":
                files = {"gamma/__init__.py": "X = 1\n"}
            build_wheel(dest, name, version, requires=requires, extension=extension, files=files)
    _provide_extra(dest / "gamma-1.0-py3-none-any.whl", "fast")
    return dest


def _provide_extra(wheel: Path, extra: str) -> None:
    """Add ``Provides-Extra`` to a wheel's METADATA (and its RECORD row), so uv knows the extra exists."""
    import base64
    import hashlib
    import zipfile

    with zipfile.ZipFile(wheel) as zf:
        contents = {name: zf.read(name) for name in zf.namelist()}
    meta = next(n for n in contents if n.endswith(".dist-info/METADATA"))
    contents[meta] = contents[meta].replace(b"Version: 1.0\n", f"Version: 1.0\nProvides-Extra: {extra}\n".encode())
    record = meta.replace("METADATA", "RECORD")
    rows = []
    for name, data in contents.items():
        if name == record:
            continue
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        rows.append(f"{name},sha256={digest},{len(data)}")
    contents[record] = ("\n".join([*rows, f"{record},,"]) + "\n").encode()
    with zipfile.ZipFile(wheel, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for name, data in contents.items():
            zf.writestr(name, data)


def uv_env(wheels: Path, cache: Path, extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """A subprocess environment for uv and tierlock: *wheels* the only index, offline, a cache of the test's own."""
    env = clean_env(
        {
            "UV_FIND_LINKS": str(wheels),
            "UV_NO_INDEX": "1",
            "UV_OFFLINE": "1",
            "UV_CACHE_DIR": str(cache),
            "UV_PYTHON": sys.executable,
            "UV_PYTHON_DOWNLOADS": "never",
            "PIP_NO_INDEX": "1",
            "PIP_FIND_LINKS": str(wheels),
            "NO_COLOR": "1",
        }
    )
    env.pop("UV_NO_CONFIG", None)
    env["PATH"] = os.pathsep.join([str(bin_dir()), env.get("PATH", "")])
    env.update(extra or {})
    return env


def uv(
    args: Sequence[str], cwd: Path, env: Mapping[str, str], *, check: bool = True
) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run([str(UV), *args], cwd=cwd, env=dict(env), capture_output=True, text=True, check=False)
    if check and proc.returncode != 0:
        raise AssertionError(f"uv {' '.join(args)} exited {proc.returncode}:\n{proc.stdout}\n{proc.stderr}")
    return proc


def tool(name: str, args: Sequence[str], cwd: Path, env: Mapping[str, str]) -> subprocess.CompletedProcess[str]:
    """Run this checkout's ``tierlock`` or ``install-tier`` console script as a user would."""
    return subprocess.run(
        [str(bin_dir() / name), *args], cwd=cwd, env=dict(env), capture_output=True, text=True, check=False
    )


def write_project(root: Path, pyproject: str = PYPROJECT, member: str = MEMBER) -> Path:
    """The project's files (no lock yet): pyproject.toml, its in-tree build backend, its package, its member."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "pyproject.toml").write_text(pyproject, encoding="utf-8")
    (root / "backend.py").write_text(BACKEND.format(name="proj", version="0.1.0"), encoding="utf-8")
    (root / "src" / "proj").mkdir(parents=True, exist_ok=True)
    (root / "src" / "proj" / "__init__.py").write_text("VALUE = 1\n", encoding="utf-8")
    (root / "tests" / "brain").mkdir(parents=True, exist_ok=True)  # what brain's tests glob gates
    (root / "tests" / "brain" / "test_gamma.py").write_text(
        "import gamma\n\n\ndef test_gamma():\n    assert gamma.X == 1\n", encoding="utf-8"
    )
    folder = root / "packages" / "member"
    (folder / "src" / "member").mkdir(parents=True, exist_ok=True)
    (folder / "pyproject.toml").write_text(member, encoding="utf-8")
    (folder / "backend.py").write_text(BACKEND.format(name="member", version="0.2.0"), encoding="utf-8")
    (folder / "src" / "member" / "__init__.py").write_text("NAME = 'member'\n", encoding="utf-8")
    return root


def locked_project(root: Path, env: Mapping[str, str], pyproject: str = PYPROJECT) -> Path:
    """:func:`write_project`, then ``uv lock`` (offline, from the wheel folder)."""
    write_project(root, pyproject)
    uv(["lock"], root, env)
    return root


def copy_project(source: Path, dest: Path) -> Path:
    shutil.copytree(source, dest, ignore=shutil.ignore_patterns(".venv", "__pycache__"))
    return dest


def installed(venv: Path) -> dict[str, str]:
    """Every distribution in *venv*'s site-packages: normalized name -> version (from the .dist-info name)."""
    from packaging.utils import canonicalize_name

    site = next((venv / "lib").glob("python3*/site-packages"))
    out: dict[str, str] = {}
    for info in site.glob("*.dist-info"):
        name, _, version = info.name[: -len(".dist-info")].partition("-")
        out[canonicalize_name(name)] = version
    return out


def editable_source(venv: Path, name: str) -> str | None:
    """The folder URL *name* is installed editable from (direct_url.json), else None."""
    import json

    from packaging.utils import canonicalize_name

    site = next((venv / "lib").glob("python3*/site-packages"))
    for info in site.glob("*.dist-info"):
        if canonicalize_name(info.name.partition("-")[0]) == canonicalize_name(name):
            path = info / "direct_url.json"
            if not path.is_file():
                return None
            data = json.loads(path.read_text())
            return str(data["url"]) if data.get("dir_info", {}).get("editable") else None
    return None


def dedent(text: str) -> str:
    return textwrap.dedent(text)
