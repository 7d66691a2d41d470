"""tierlock's own sdist and wheel, built by ``make dist``, and an offline folder of what they need."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.support.env import clean_env
from tests.support.repack import repack_closure

ROOT = Path(__file__).resolve().parents[2]


def make_dist(dest: Path) -> list[Path]:
    """Run ``make dist`` into *dest* with this interpreter's tools (never re-bootstraps .venv)."""
    bin_dir = Path(sys.executable).parent
    stamp = ".venv/.tierlock-dev-installed"
    subprocess.run(
        ["make", "--no-print-directory", "-o", stamp, "dist", f"DIST={dest}", f"BIN={bin_dir}"],
        cwd=ROOT,
        check=True,
        env=clean_env(),
        capture_output=True,
        text=True,
    )
    return sorted(dest.iterdir())


def dependency_wheels(dest: Path, *, extras: tuple[str, ...] = ("uv",)) -> list[Path]:
    """Wheels of tierlock's dependencies (and of its *extras*), repacked from this environment."""
    from importlib.metadata import requires

    from packaging.requirements import Requirement

    roots: list[str] = []
    for line in requires("tierlock") or ():
        req = Requirement(line)
        if req.marker is None or any(req.marker.evaluate({"extra": e}) for e in extras):
            roots.append(req.name)
    return repack_closure(roots, dest)
