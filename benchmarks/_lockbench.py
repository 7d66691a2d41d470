"""Shared set-up of the lock benchmarks: a ~90-package project and its wheels, generated offline."""

from __future__ import annotations

import atexit
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.support.wheels import build_wheel  # noqa: E402

BIN = Path(sys.executable).parent
BASE_ROOTS = 9
BRAIN_ROOTS = 9
PER_ROOT = 5  # each root pulls in a chain of dependencies
_CACHE = tempfile.mkdtemp(prefix="tierlock-bench-uv-cache-")
atexit.register(shutil.rmtree, _CACHE, True)
_OWN_CACHE = tempfile.mkdtemp(prefix="tierlock-bench-cache-")
atexit.register(shutil.rmtree, _OWN_CACHE, True)


def env() -> dict[str, str]:
    # As installed for real: bytecode caches are written and used (this machine sets PYTHONDONTWRITEBYTECODE).
    clean = {
        k: v for k, v in os.environ.items() if not k.startswith(("PIP_", "UV_")) and k != "PYTHONDONTWRITEBYTECODE"
    }
    clean.update({"PIP_CONFIG_FILE": os.devnull, "UV_NO_PROGRESS": "1"})  # [tool.uv] in the project is read
    clean["UV_CACHE_DIR"] = _CACHE  # the benchmark's own uv cache, not this machine's
    clean["TIERLOCK_CACHE_DIR"] = _OWN_CACHE  # and tierlock's own (what lock remembers of its last run)
    return clean


def make_project(root: Path) -> tuple[Path, Path, int]:
    """Write the wheels and the project; return (project folder, wheel folder, package count)."""
    wheels = root / "wheels"
    names: list[str] = []
    roots: list[str] = []
    for r in range(BASE_ROOTS + BRAIN_ROOTS):
        chain = [f"pkg{r:02d}-{d}" for d in range(PER_ROOT)]
        for depth, name in enumerate(chain):
            requires = [f"{chain[depth + 1]}>=1"] if depth + 1 < len(chain) else []
            if depth == 0 and r >= BASE_ROOTS:
                requires.append(f"pkg{r - BASE_ROOTS:02d}-0>=1")  # brain roots share packages with base
            for version in ("1.0", "1.1"):
                build_wheel(wheels, name, version, requires=requires)
            names.append(name)
        roots.append(chain[0])
    base = ", ".join(f'"{n}>=1"' for n in roots[:BASE_ROOTS])
    brain = ", ".join(f'"{n}>=1"' for n in roots[BASE_ROOTS:])
    project = root / "proj"
    project.mkdir(parents=True, exist_ok=True)
    (project / "pyproject.toml").write_text(
        f"""[project]
name = "bench"
version = "0.1.0"
requires-python = ">=3.11"
dependencies = [{base}]

[project.optional-dependencies]
brain = [{brain}]

[tool.uv]
no-index = true
find-links = ["{wheels}"]

[tool.tierlock.tiers.brain]
source = "extra:brain"
""",
        encoding="utf-8",
    )
    return project, wheels, len(names)


def run(argv: Sequence[str | Path], cwd: Path | None = None, expect: int = 0) -> None:
    proc = subprocess.run([str(a) for a in argv], cwd=cwd, env=env(), capture_output=True, text=True, check=False)
    if proc.returncode != expect:
        raise SystemExit(f"{' '.join(map(str, argv))} exited {proc.returncode}:\n{proc.stdout}\n{proc.stderr}")


def timed(argv: Sequence[str | Path], cwd: Path | None = None, repeat: int = 15) -> float:
    """Median wall time in seconds over *repeat* runs (after one warm-up)."""
    return interleaved([argv], cwd, repeat)[0]


def interleaved(argvs: Sequence[Sequence[str | Path]], cwd: Path | None = None, repeat: int = 15) -> list[float]:
    """The median wall time in seconds of each command, run in turn *repeat* times (after one warm-up each).

    Taking turns, a change in the machine's load hits every command alike.
    """
    return [statistics.median(taken) for taken in interleaved_samples(argvs, cwd, repeat)]


def interleaved_samples(
    argvs: Sequence[Sequence[str | Path]], cwd: Path | None = None, repeat: int = 15
) -> list[list[float]]:
    """Every wall time in seconds of each command, run in turn *repeat* times (after one warm-up each)."""
    for argv in argvs:
        run(argv, cwd)
    samples: list[list[float]] = [[] for _ in argvs]
    for _ in range(repeat):
        for argv, taken in zip(argvs, samples, strict=True):
            start = time.perf_counter()
            run(argv, cwd)
            taken.append(time.perf_counter() - start)
    return samples


def load() -> str:
    """The machine's load averages (1, 5, 15 minutes), as the figures are recorded with them."""
    return " ".join(f"{x:.2f}" for x in os.getloadavg())
