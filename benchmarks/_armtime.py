"""The arming benchmarks' one set-up, and what tierlock adds around its backend, told apart from the backend's own time.

:func:`arming_world` builds what ``bench_arm.py``, ``bench_arm_cpu.py`` and ``bench_arm_instructions.py`` arm: the
``brain`` tier of a project (the generated 13-package one from local wheels, or a :data:`REGISTRY` closure locked
from the package index), an empty venv each run copies (:func:`fresh`), and uv's cache warmed by one install.

A tierlock arming is run with ``--json``; its document gives ``backend_s``, the backend's wall time (from its start,
an early start included, to its own end, noted as it came even when tierlock's checks beside it ended later). The
arming's wall time less that is tierlock's own: its start, its checks, the verification and the receipt. The
backend's time moves with the disk and the load far more than tierlock's own does, and the peer's run (another
process, another moment) moves on its own: a ratio of medians mixes both noises, tierlock's own time does not.
"""

from __future__ import annotations

import json
import shutil
import statistics
import subprocess
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from benchmarks._cliworld import BIN, environ, make_project, make_venv, run

#: The tiers ``--registry NAME`` locks from the package index.
REGISTRY = {
    "dataframe": ["pandas>=2.2", "pyarrow>=17"],
    "compiled": ["scipy>=1.13", "scikit-learn>=1.5", "pyarrow>=17", "opencv-python-headless>=4.10"],
    # The issue's own row: 46 packages (December 2026) around jaxlib's 333 MiB (349 MB) libjax_common.so.
    "bigcompiled": [
        "jax[cpu]>=0.4.30",
        "flax>=0.10",
        "optax>=0.2",
        "pandas>=2.2",
        "scikit-learn>=1.5",
        "matplotlib>=3.9",
        "seaborn>=0.13",
    ],
}

#: Seconds a file must be old for an arming to keep a plan resting on it (``tierlock.armrecord``): the project and
#: the venv are made just before the warm-ups.
SETTLE = 2.1

#: ``install-tier`` through ``python -c``: the first argument is the src folder to import tierlock from.
ENTRY = "import sys; sys.path.insert(0, sys.argv.pop(1)); from tierlock._entry import install_tier; install_tier()"


@dataclass(frozen=True)
class ArmingWorld:
    """What an arming benchmark arms: the project, the environment to run in, the tier's lock, the empty venv."""

    project: Path
    env: dict[str, str]
    lock: Path
    empty: Path

    @property
    def uv(self) -> list[str | Path]:
        """The peer: ``uv pip install --no-deps --require-hashes -r LOCK`` (``--python`` to add)."""
        return [BIN / "uv", "pip", "install", "--no-deps", "--require-hashes", "-r", self.lock]

    def fresh(self, dest: Path) -> Path:
        """A fresh copy of the empty venv at *dest*; its python."""
        return fresh(self.empty, dest)


def registry_project(root: Path, roots: list[str], env: dict[str, str]) -> Path:
    """A project whose ``brain`` extra is *roots*, locked with uv from the package index."""
    project = root / "proj"
    project.mkdir(parents=True)
    quoted = ", ".join(f'"{r}"' for r in roots)
    (project / "pyproject.toml").write_text(
        f'[project]\nname = "app"\nversion = "0.1.0"\nrequires-python = ">=3.11"\ndependencies = []\n\n'
        f"[project.optional-dependencies]\nbrain = [{quoted}]\n\n[tool.tierlock.tiers.brain]\n"
        'source = "extra:brain"\n',
        encoding="utf-8",
    )
    run([BIN / "tierlock", "--project", project, "-q", "lock", "--backend", "uv"], env)
    return project


def fresh(empty: Path, dest: Path) -> Path:
    """A copy of the venv *empty* at *dest* (whatever was there removed); its python."""
    shutil.rmtree(dest, ignore_errors=True)
    shutil.copytree(empty, dest, symlinks=True)
    return dest / "bin" / "python"


def arming_world(root: Path, registry: str | None = None) -> ArmingWorld:
    """Below *root*: the :data:`REGISTRY` tier *registry* locked from the package index, or (None) the generated
    project of ``_cliworld`` from its local wheels; an empty venv; uv's cache warmed by one install of the lock; then
    :data:`SETTLE` seconds, so that the warm-ups that follow keep their plans."""
    if registry:
        env = environ(root / "uv-cache")
        project = registry_project(root, REGISTRY[registry], env)
    else:
        project, wheels = make_project(root)
        env = environ(root / "uv-cache", wheels)
    world = ArmingWorld(project, env, project / "lockfiles" / "brain.txt", root / "empty")
    make_venv(world.empty)
    run([*world.uv, "--python", world.fresh(root / "warm")], env)  # uv's cache warmed once
    time.sleep(SETTLE)  # an arming keeps no plan resting on a file modified within two seconds (just made)
    return world


def timed(argv: Sequence[str | Path], env: dict[str, str]) -> tuple[float, float | None]:
    """Run *argv* (an ``install-tier ... --json``); its wall time and the backend's (None when it says none)."""
    started = time.perf_counter()
    proc = subprocess.run([str(a) for a in argv], env=env, capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - started
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(map(str, argv))} exited {proc.returncode}:\n{proc.stdout}\n{proc.stderr}")
    try:
        backend = json.loads(proc.stdout).get("backend_s")
    except ValueError:
        backend = None
    return elapsed, backend if isinstance(backend, (int, float)) else None


def paired(ours: Sequence[float], theirs: Sequence[float]) -> float:
    """The median of the round-by-round differences, in ms (what one round's load does to both cancels out)."""
    return statistics.median(a - b for a, b in zip(ours, theirs, strict=True)) * 1000


def own(wholes: Sequence[float], backends: Sequence[float | None]) -> list[float]:
    """tierlock's own time of each run, in ms: its wall time less its backend's (runs without one left out)."""
    return [(w - b) * 1000 for w, b in zip(wholes, backends, strict=True) if b is not None]


def overhead_lines(
    label: str, wholes: Sequence[float], backends: Sequence[float | None], peers: Sequence[float], peer_name: str
) -> list[str]:
    """Beside the ratio: tierlock's own time (median, its spread), the backend inside tierlock against the peer."""
    mine = own(wholes, backends)
    if not mine:
        return [f"  {label}: no backend time reported (a tierlock without backend_s in --json)"]
    quartiles = statistics.quantiles(mine, n=4) if len(mine) > 1 else [mine[0]] * 3
    inside = [b for b in backends if b is not None]
    lines = [
        f"  {label}: tierlock's own time (wall less its backend's) median {statistics.median(mine):.1f} ms, "
        f"quartiles {quartiles[0]:.1f}-{quartiles[2]:.1f} ms, range {min(mine):.1f}-{max(mine):.1f} ms "
        f"over {len(mine)} runs"
    ]
    if len(inside) == len(peers):
        alone = statistics.median(peers) * 1000
        lines.append(
            f"  {label}: its backend {statistics.median(inside) * 1000:.1f} ms, {peer_name} alone {alone:.1f} ms "
            f"(paired {paired(inside, peers):+.1f} ms: the backend's own noise, and what tierlock's start beside an "
            f"early backend costs it); ({peer_name} alone + tierlock's own) / {peer_name} alone: "
            f"{(alone + statistics.median(mine)) / alone:.2f}x"
        )
    return lines
