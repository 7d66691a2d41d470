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
    """Wheels of tierlock's dependencies (and of its *extras*, ``tierlock[cli]`` inside one expanded), repacked
    from this environment."""
    from importlib.metadata import requires

    from packaging.requirements import Requirement
    from packaging.utils import canonicalize_name

    roots: list[str] = []
    wanted, seen = list(extras), set[str]()
    lines = requires("tierlock") or []
    while True:
        for line in lines:
            req = Requirement(line)
            if req.marker is not None and not any(req.marker.evaluate({"extra": e}) for e in wanted):
                continue
            if canonicalize_name(req.name) == "tierlock":  # a self-reference: tierlock[cli]
                wanted.extend(e for e in req.extras if e not in wanted)
            elif req.name not in roots:
                roots.append(req.name)
        if set(wanted) == seen:
            break
        seen = set(wanted)
    return repack_closure(roots, dest)
