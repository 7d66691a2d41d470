"""What tierlock adds around its backend, told apart from the backend's own time (the arming benchmarks share it).

A tierlock arming is run with ``--json``; its document gives ``backend_s``, the backend's wall time (from its start,
an early start included, to its own end, noted as it came even when tierlock's checks beside it ended later). The
arming's wall time less that is tierlock's own: its start, its checks, the verification and the receipt. The
backend's time moves with the disk and the load far more than tierlock's own does, and the peer's run (another
process, another moment) moves on its own: a ratio of medians mixes both noises, tierlock's own time does not.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import time
from collections.abc import Sequence
from pathlib import Path


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
