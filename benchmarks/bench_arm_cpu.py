"""CPU, not wall: what an arming from the index costs in CPU, tierlock's own and its backend's, against uv alone.

On a machine of two cores uv installing a large tier is CPU-bound (its user + sys time is about its wall time),
so every millisecond of CPU tierlock spends while uv runs is taken from uv: the wall-time ratio of
``bench_arm.py`` then moves with tierlock's CPU beside the backend, not only with its own time after it. This
script arms the tier of ``bench_arm.py --registry NAME`` into fresh copies of an empty venv, interleaving
``install-tier`` (through ``python -c``, which reads ``resource.getrusage`` at exit: its own process and threads,
``RUSAGE_SELF``, and its backend, ``RUSAGE_CHILDREN``) and ``uv pip install --no-deps --require-hashes -r``
alone (its CPU from this process's ``RUSAGE_CHILDREN``), and prints the medians and the paired differences. CPU
figures move far less with the load than wall figures.

tierlock's own CPU is also told apart at the backend's end (an early backend's, as its watcher sees it end): what
it spent until then (its start, its checks and the read-ahead, beside the backend: taken from it on a busy
machine) and after (the verification, the receipt, the answer: the arming waits for it).

``--offline`` arms ``bench_arm.py``'s generated 13-package tier from a local wheel folder instead (no network).
``--baseline SRC`` also arms through another tierlock's sources (``git archive REV src | tar -x -C DIR`` gives
``DIR/src``), interleaved with this checkout's and uv's: a before/after of tierlock's own CPU in one run.

Run: ``.venv/bin/python benchmarks/bench_arm_cpu.py [--runs N] [--registry NAME | --offline] [--baseline DIR/src]``
(``--registry`` needs the network for the lock and the first download, as ``bench_arm.py --registry`` does).
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
from typing import NamedTuple

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._armtime import REGISTRY, arming_world
from benchmarks._cliworld import REPO, load, online, run

#: ``install-tier`` in a child that writes its own CPU and its children's (seconds) to stderr at exit, and its own
#: CPU when the early backend's watcher saw the backend end (``-1``: no early backend).
_ENTRY = (
    "import sys, resource, atexit\n"
    "sys.path.insert(0, sys.argv.pop(1))\n"
    "def used():\n"
    "    own = resource.getrusage(resource.RUSAGE_SELF)\n"
    "    return own.ru_utime + own.ru_stime\n"
    "ended = []\n"
    "def said():\n"
    "    kids = resource.getrusage(resource.RUSAGE_CHILDREN)\n"
    "    sys.stderr.write(f'CPU {used()} {kids.ru_utime + kids.ru_stime} {(ended or [-1])[0]}\\n')\n"
    "atexit.register(said)\n"
    "from tierlock import _entry, earlyarm\n"
    "restore = earlyarm.Yielded.restore\n"
    "def restored(self):\n"
    "    ended.append(used())\n"
    "    return restore(self)\n"
    "earlyarm.Yielded.restore = restored\n"
    "_entry._exit = sys.exit\n"
    "sys.argv[0] = 'install-tier'\n"
    "_entry.install_tier()\n"
)


class Armed(NamedTuple):
    """One arming through :data:`_ENTRY` (seconds)."""

    own: float
    """tierlock's own CPU (its process and threads)."""
    backend: float
    """Its backend's CPU."""
    backend_wall: float
    """The backend's wall time as tierlock saw it (``backend_s``)."""
    wall: float
    beside: float | None
    """tierlock's own CPU when the early backend ended (None: no early backend)."""


def armed(argv: list[str | Path], env: dict[str, str]) -> Armed:
    """One arming of *argv* (an ``install-tier ... --json`` through :data:`_ENTRY`)."""
    started = time.perf_counter()
    proc = subprocess.run([str(a) for a in argv], env=env, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - started
    said = [line.split() for line in proc.stderr.splitlines() if line.startswith("CPU ")]
    if proc.returncode != 0 or not said:
        raise SystemExit(f"install-tier exited {proc.returncode}:\n{proc.stdout}\n{proc.stderr}")
    own, backend, beside = (float(v) for v in said[-1][1:4])
    backend_wall = float(json.loads(proc.stdout)["backend_s"])
    return Armed(own, backend, backend_wall, wall, beside if beside >= 0 else None)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--runs", type=int, default=9, help="fresh environments armed by each side")
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--registry", choices=sorted(REGISTRY), default="bigcompiled")
    where.add_argument("--offline", action="store_true", help="the generated 13-package tier, from local wheels")
    parser.add_argument("--baseline", type=Path, help="another tierlock's src folder, armed through beside this one")
    args = parser.parse_args(argv)
    if not args.offline and not online():
        print(f"skipped: --registry {args.registry} needs the package index; pypi.org is not reachable (offline)")
        return
    what = "the generated tier (offline)" if args.offline else f"the {args.registry} tier"
    print(f"load average before: {load()}")
    with tempfile.TemporaryDirectory(prefix="tierlock-bench-arm-cpu-") as tmp:
        root = Path(tmp)
        world = arming_world(root, None if args.offline else args.registry)  # uv's cache warmed, the files settled
        env, uv = world.env, world.uv
        sources = {"tierlock": REPO / "src"} if args.baseline is None else {"new": REPO / "src", "old": args.baseline}
        tail: list[str | Path] = ["--project", world.project, "brain", "--backend", "uv", "--json"]
        sides = {name: [sys.executable, "-c", _ENTRY, src, *tail] for name, src in sources.items()}
        for name, command in sides.items():  # tierlock's: what it keeps of a venv, the arming's plan, a bundle
            for warm in ("a", "b", "c"):
                armed([*command, "--python", world.fresh(root / f"warm-{name}-{warm}")], env)
        ours: dict[str, list[Armed]] = {name: [] for name in sides}
        theirs: list[tuple[float, float]] = []
        names: list[str] = [*sides, "uv"]
        for i in range(args.runs):
            for side in names[i % len(names) :] + names[: i % len(names)]:  # the order turned by one each round
                dest = root / f"{side}-{i}"
                python = world.fresh(dest)
                if side == "uv":
                    theirs.append(alone([*uv, "--python", python], env))
                else:
                    ours[side].append(armed([*sides[side], "--python", python], env))
                shutil.rmtree(dest)
    print(f"arming {what}, {args.runs} runs each, medians; load average after: {load()}")
    for name, runs in ours.items():
        label = {"tierlock": "install-tier", "new": "this checkout", "old": "baseline"}[name]
        print(report(label, runs, theirs))
    if args.baseline is not None:
        print(compared(ours["new"], ours["old"]))


def alone(argv: list[str | Path], env: dict[str, str]) -> tuple[float, float]:
    """(uv's CPU, its wall), seconds."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    run(argv, env)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime), wall


def _ms(values: Sequence[float]) -> str:
    return f"{statistics.median(values) * 1000:.1f} ms" if values else "-"


def _paired(ours: Sequence[float], theirs: Sequence[float]) -> str:
    """The median of the run-by-run differences (what one round's load does to both cancels out)."""
    return f"{statistics.median(a - b for a, b in zip(ours, theirs, strict=True)) * 1000:+.1f} ms"


def _split(runs: Sequence[Armed]) -> tuple[list[float], list[float]]:
    """tierlock's own CPU until its early backend ended and after, of the runs that had one."""
    beside = [r.beside for r in runs if r.beside is not None]
    after = [r.own - r.beside for r in runs if r.beside is not None]
    return beside, after


def report(label: str, ours: Sequence[Armed], theirs: Sequence[tuple[float, float]]) -> str:
    beside, after = _split(ours)
    return "\n".join(
        [
            f"  {label}: its own CPU {_ms([o.own for o in ours])} (until the early backend's end {_ms(beside)}, "
            f"after it {_ms(after)}; {len(beside)} of {len(ours)} runs started early); its children's CPU (the "
            f"backend) {_ms([o.backend for o in ours])}, the backend's wall {_ms([o.backend_wall for o in ours])}; "
            f"the whole wall {_ms([o.wall for o in ours])}",
            f"  uv pip install alone: CPU {_ms([t[0] for t in theirs])}, wall {_ms([t[1] for t in theirs])}",
            f"  paired ({label}): the backend's CPU inside tierlock - uv alone "
            f"{_paired([o.backend for o in ours], [t[0] for t in theirs])}; its wall inside tierlock - uv alone "
            f"{_paired([o.backend_wall for o in ours], [t[1] for t in theirs])}",
        ]
    )


def compared(new: Sequence[Armed], old: Sequence[Armed]) -> str:
    """This checkout against the baseline, paired run by run."""
    both = [(n, o) for n, o in zip(new, old, strict=True) if n.beside is not None and o.beside is not None]
    beside = _paired([n.beside or 0.0 for n, _ in both], [o.beside or 0.0 for _, o in both]) if both else "-"
    after = _paired([n.own - (n.beside or 0.0) for n, _ in both], [o.own - (o.beside or 0.0) for _, o in both])
    return (
        f"  this checkout - baseline, paired: own CPU {_paired([n.own for n in new], [o.own for o in old])} "
        f"(until the early backend's end {beside}, after it {after if both else '-'}); "
        f"the backend's CPU {_paired([n.backend for n in new], [o.backend for o in old])}; "
        f"the whole wall {_paired([n.wall for n in new], [o.wall for o in old])}; "
        f"tierlock's own wall (wall - backend's) "
        f"{_paired([n.wall - n.backend_wall for n in new], [o.wall - o.backend_wall for o in old])}"
    )


if __name__ == "__main__":
    main()
