"""CPU, not wall: what an arming from the index costs in CPU, tierlock's own and its backend's, against uv alone.

On a machine of two cores uv installing a large tier is CPU-bound (its user + sys time is about its wall time),
so every millisecond of CPU tierlock spends while uv runs is taken from uv: the wall-time ratio of
``bench_arm.py`` then moves with tierlock's CPU beside the backend, not only with its own time after it. This
script arms the tier of ``bench_arm.py --registry NAME`` into fresh copies of an empty venv, interleaving
``install-tier`` (through ``python -c``, which reads ``resource.getrusage`` at exit: its own process and threads,
``RUSAGE_SELF``, and its backend, ``RUSAGE_CHILDREN``) and ``uv pip install --no-deps --require-hashes -r``
alone (its CPU from this process's ``RUSAGE_CHILDREN``), and prints the medians and the paired differences. CPU
figures move far less with the load than wall figures.

Run: ``.venv/bin/python benchmarks/bench_arm_cpu.py [--runs N] [--registry NAME]`` (needs the network for the
lock and the first download, as ``bench_arm.py --registry`` does).
"""

from __future__ import annotations

import argparse
import json
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._cliworld import BIN, REPO, environ, load, make_venv, online, run
from benchmarks.bench_arm import REGISTRY, SETTLE, fresh, registry_project

#: ``install-tier`` in a child that writes its own CPU and its children's (seconds) to stderr at exit.
_ENTRY = (
    "import sys, resource, atexit\n"
    "sys.path.insert(0, sys.argv.pop(1))\n"
    "def said():\n"
    "    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)\n"
    "    sys.stderr.write(f'CPU {own.ru_utime + own.ru_stime} {kids.ru_utime + kids.ru_stime}\\n')\n"
    "atexit.register(said)\n"
    "from tierlock import _entry\n"
    "_entry._exit = sys.exit\n"
    "sys.argv[0] = 'install-tier'\n"
    "_entry.install_tier()\n"
)


def armed(argv: list[str | Path], env: dict[str, str]) -> tuple[float, float, float, float]:
    """(tierlock's own CPU, its backend's CPU, the backend's wall as tierlock saw it, the whole wall), seconds."""
    started = time.perf_counter()
    proc = subprocess.run([str(a) for a in argv], env=env, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - started
    said = [line.split() for line in proc.stderr.splitlines() if line.startswith("CPU ")]
    if proc.returncode != 0 or not said:
        raise SystemExit(f"install-tier exited {proc.returncode}:\n{proc.stdout}\n{proc.stderr}")
    return float(said[-1][1]), float(said[-1][2]), float(json.loads(proc.stdout)["backend_s"]), wall


def alone(argv: list[str | Path], env: dict[str, str]) -> tuple[float, float]:
    """(uv's CPU, its wall), seconds."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    run(argv, env)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime), wall


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--runs", type=int, default=9, help="fresh environments armed by each side")
    parser.add_argument("--registry", choices=sorted(REGISTRY), default="bigcompiled")
    args = parser.parse_args(argv)
    if not online():
        print(f"skipped: --registry {args.registry} needs the package index; pypi.org is not reachable (offline)")
        return
    print(f"load average before: {load()}")
    with tempfile.TemporaryDirectory(prefix="tierlock-bench-arm-cpu-") as tmp:
        root = Path(tmp)
        env = environ(root / "uv-cache")
        project = registry_project(root, REGISTRY[args.registry], env)
        lock = project / "lockfiles" / "brain.txt"
        empty = root / "empty"
        make_venv(empty)
        tier: list[str | Path] = [sys.executable, "-c", _ENTRY, REPO / "src", "--project", project, "brain"]
        tier += ["--backend", "uv", "--json"]
        uv: list[str | Path] = [BIN / "uv", "pip", "install", "--no-deps", "--require-hashes", "-r", lock]
        run([*uv, "--python", fresh(empty, root / "warm")], env)  # uv's cache warmed
        time.sleep(SETTLE)
        for warm in ("warm-a", "warm-b"):  # tierlock's: what it keeps of a venv, then the arming's plan
            armed([*tier, "--python", fresh(empty, root / warm)], env)
        ours: list[tuple[float, float, float, float]] = []
        theirs: list[tuple[float, float]] = []
        for i in range(args.runs):
            for side in ("tierlock", "uv") if i % 2 == 0 else ("uv", "tierlock"):
                dest = root / f"{side}-{i}"
                python = fresh(empty, dest)
                if side == "tierlock":
                    ours.append(armed([*tier, "--python", python], env))
                else:
                    theirs.append(alone([*uv, "--python", python], env))
                shutil.rmtree(dest)
    print(f"arming the {args.registry} tier, {args.runs} runs each, medians; load average after: {load()}")
    print(report(ours, theirs))


def report(ours: Sequence[tuple[float, float, float, float]], theirs: Sequence[tuple[float, float]]) -> str:
    def ms(values: Sequence[float]) -> str:
        return f"{statistics.median(values) * 1000:.1f} ms"

    paired_cpu = [a[1] - b[0] for a, b in zip(ours, theirs, strict=True)]
    paired_wall = [a[2] - b[1] for a, b in zip(ours, theirs, strict=True)]
    return "\n".join(
        [
            f"  install-tier: its own CPU {ms([o[0] for o in ours])}; its children's CPU (the backend) "
            f"{ms([o[1] for o in ours])}, the backend's wall {ms([o[2] for o in ours])}; "
            f"the whole wall {ms([o[3] for o in ours])}",
            f"  uv pip install alone: CPU {ms([t[0] for t in theirs])}, wall {ms([t[1] for t in theirs])}",
            f"  paired: the backend's CPU inside tierlock - uv alone {ms(paired_cpu)}; "
            f"its wall inside tierlock - uv alone {ms(paired_wall)}",
        ]
    )


if __name__ == "__main__":
    main()
