"""A folder laid out like a venv with one distribution installed and its receipt: the fast path's world.

The no-op fast path only reads files (``pyvenv.cfg``, ``bin/``, the receipts, the recorded files'
sizes); it never runs the interpreter, so no real venv is needed to test it.
"""

from __future__ import annotations

import sys
from pathlib import Path

import tierlock
from tierlock.installer import receipts
from tierlock.installer.location import environment_key


def venv_shaped(prefix: Path) -> receipts.InstalledDist:
    """A folder laid out like a venv with pkg 1.0 installed; what a receipt records of pkg."""
    (prefix / "bin").mkdir(parents=True)
    (prefix / "pyvenv.cfg").write_text("home = /usr/bin\n", encoding="utf-8")
    (prefix / "bin" / "python").symlink_to(sys.executable)  # like a venv's: a link to the base interpreter
    (prefix / "bin" / "python3").symlink_to("python")
    (prefix / "bin" / "install-tier").write_text("#!/bin/sh\n", encoding="utf-8")
    site = prefix / "lib" / "python3.11" / "site-packages"
    (site / "pkg").mkdir(parents=True)
    (site / "pkg" / "__init__.py").write_text("x = 1\n", encoding="utf-8")
    (site / "pkg" / "_core.so").write_bytes(b"\0" * 64)
    (site / "pkg-1.0.dist-info").mkdir()
    (site / "pkg-1.0.dist-info" / "METADATA").write_text("Name: pkg\nVersion: 1.0\n", encoding="utf-8")
    files = ("pkg/__init__.py", "pkg/_core.so", "pkg-1.0.dist-info/METADATA")
    rows = receipts.file_rows((str(site / rel), rel, (site / rel).stat().st_size, None) for rel in files)
    return receipts.InstalledDist("pkg", "1.0", "lib/python3.11/site-packages", "pkg-1.0.dist-info", rows)


def project(root: Path, table: str = "") -> Path:
    (root / "lockfiles").mkdir(parents=True)
    (root / "pyproject.toml").write_text(f'[project]\nname = "p"\n{table}', encoding="utf-8")
    (root / "lockfiles" / "brain.txt").write_text(f"pkg==1.0 --hash=sha256:{'a' * 64}\n", encoding="utf-8")
    return root


def armed(prefix: Path, root: Path, tier: str = "brain") -> Path:
    """Write the receipt an install of *tier* into *prefix* from the project at *root* leaves."""
    dist = venv_shaped(prefix)
    lockfile = root / "lockfiles" / "brain.txt"
    doc = receipts.build(
        tier=tier,
        pyproject=(str(root / "pyproject.toml"), receipts.file_digest(root / "pyproject.toml")),
        lockfiles={tier: (str(lockfile), receipts.file_digest(lockfile))},
        packages=[dist],
        backend="uv",
        backend_version="0.4.1",
        interpreter={"executable": str(prefix / "bin" / "python"), "environment": environment_key(prefix)},
        project=str(root),
        tierlock_version=tierlock.__version__,
    )
    return receipts.write(prefix, doc)
