"""Measure ``tierlock verify`` against a shell script running the same 20 commands, and ``tierlock verified``.

A git repository in a temporary folder holds a runtime config of 20 trivial
verification commands (``/bin/true`` and ``/bin/echo``, each a real process).
The peer is a ``sh`` script that runs the same 20 commands, each with its
output sent to its own log file, as tierlock does. Both run side by side,
interleaved (median of --repeat runs). Targets: verify at most 1.1x the
script plus a fixed 150 ms (the interpreter, validation, git binding, the
receipt); ``tierlock verified`` alone at most 60 ms. The start-up of a bare
interpreter (``python -c pass``) is printed as the floor.

    .venv/bin/python benchmarks/bench_verify.py [--repeat N]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BIN = Path(sys.executable).parent
COMMANDS = 20
ENV = {
    # Bytecode is written as a normal install does (this machine sets PYTHONDONTWRITEBYTECODE).
    **{k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE" and not k.startswith(("PIP_", "UV_"))},
    "GIT_AUTHOR_NAME": "bench",
    "GIT_AUTHOR_EMAIL": "bench@example.invalid",
    "GIT_COMMITTER_NAME": "bench",
    "GIT_COMMITTER_EMAIL": "bench@example.invalid",
}


def make_repo(folder: Path) -> tuple[Path, Path]:
    """The repository with its runtime config, and the equivalent shell script (outside it)."""
    repo = folder / "repo"
    repo.mkdir()
    commands = [["/bin/true"] if i % 2 else ["/bin/echo", f"check {i} ran"] for i in range(COMMANDS)]
    config = {
        "schemaVersion": 1,
        "verification": [
            {"key": f"check-{i}", "command": c[0], "args": c[1:], "timeoutMs": 60_000} for i, c in enumerate(commands)
        ],
    }
    (repo / "tierlock.runtime.json").write_text(json.dumps(config, indent=1), encoding="utf-8")
    for argv in (("init", "-q"), ("add", "-A"), ("commit", "-q", "-m", "bench")):
        subprocess.run(["git", "-C", str(repo), *argv], check=True, env=ENV)
    logs = folder / "logs"
    logs.mkdir()
    lines = ["set -e"] + [f"{' '.join(c)} > {logs}/{i:02d}.log 2>&1" for i, c in enumerate(commands)]
    script = folder / "checks.sh"
    script.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return repo, script


def timed(argv: list[str], expect: int = 0) -> tuple[float, float]:
    """Wall time and CPU time (user + system, with every process it started) of one run."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(argv, capture_output=True, text=True, env=ENV, check=False)
    elapsed = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != expect:
        raise SystemExit(f"{argv} exited {proc.returncode}:\n{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}")
    return elapsed, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--repeat", type=int, default=9)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="tierlock-bench-verify-") as tmp:
        repo, script = make_repo(Path(tmp))
        verify = [str(BIN / "tierlock"), "--project", str(repo), "-q", "verify"]
        verified = [str(BIN / "tierlock"), "--project", str(repo), "verified"]
        floor = [sys.executable, "-c", "pass"]
        timed(verify)  # warm the bytecode caches once
        ours, peer, gate, bare = [], [], [], []
        for _ in range(args.repeat):  # interleaved, so machine load hits all alike
            ours.append(timed(verify))
            peer.append(timed(["sh", str(script)]))
            gate.append(timed(verified))
            bare.append(timed(floor))
        o, p, g, b = (statistics.median(t[0] for t in x) for x in (ours, peer, gate, bare))
        oc, pc, gc, bc = (statistics.median(t[1] for t in x) for x in (ours, peer, gate, bare))
        budget = 1.1 * p + 0.150
        print(f"{COMMANDS} trivial commands, median of {args.repeat} runs each (wall; CPU = user + system)")
        print(f"tierlock verify:   {o * 1000:8.1f} ms wall, {oc * 1000:7.1f} ms CPU")
        print(f"sh script:         {p * 1000:8.1f} ms wall, {pc * 1000:7.1f} ms CPU")
        print(
            f"ratio {o / p:.2f}x; overhead {(o - p) * 1000:.0f} ms; target <= 1.1x + 150 ms = {budget * 1000:.0f} ms "
            f"({'met' if o <= budget else 'missed'}); in CPU time overhead {(oc - pc) * 1000:.0f} ms"
        )
        print(
            f"tierlock verified: {g * 1000:8.1f} ms wall, {gc * 1000:7.1f} ms CPU "
            f"(target <= 60 ms: {'met' if g <= 0.060 else 'missed'})"
        )
        print(f"python -c pass:    {b * 1000:8.1f} ms wall, {bc * 1000:7.1f} ms CPU (the floor of any Python command)")


if __name__ == "__main__":
    main()
