"""Arming a tier into a fresh environment from a warm cache: ``install-tier`` vs ``uv pip install --require-hashes``.

Offline (the default): the ``brain`` tier of the generated 3-tier project of ``bench_cli.py`` (13 packages,
some with compiled-extension files), from a local wheel folder. ``install-tier brain --backend uv`` (which
also verifies every installed file, writes its receipts and checks the lock's drift) against plain ``uv pip
install --no-deps --require-hashes -r brain.txt``, each into a fresh copy of an empty venv, the runs
interleaved; goal: at most uv + 100 ms. Both start warm: uv's cache holds the wheels, and tierlock's cache
(``$TIERLOCK_CACHE_DIR``) what it learnt of a venv made like these and the plan of the arming (two runs before
the timed ones: the first asks the venv's interpreter, the second keeps the plan that starts uv early).

``--registry dataframe`` and ``--registry compiled`` do the same on a real closure locked from the package
index: a data-frame tier (pandas, pyarrow) and a large compiled tier (scipy, scikit-learn, pyarrow, OpenCV);
goal for the large one: at most 1.15x uv. They need the network for the lock and the first download (then
they run from the warm cache); offline they say so and are skipped.

``--registry bigcompiled`` is the issue's own row, "a 46-package tier with a 350 MB compiled library": JAX
(CPU), Flax, Optax, pandas, scikit-learn, matplotlib and seaborn lock to 46 packages for Python 3.11 on Linux
x86_64, the largest file jaxlib's ``libjax_common.so`` (333 MiB); goal at most 1.15x uv.

Beside the ratio, each run reports tierlock's own time: the arming's wall time less the backend's as tierlock saw
it (``backend_s`` of ``--json``), its median and spread over the rounds (the rounds interleave the sides, each
into a fresh venv), and the backend inside tierlock against uv alone. uv's own time moves with the disk by more
than tierlock's whole own time; tierlock's own time does not.

``--baseline SRC`` also arms through another tierlock's sources (``git archive REV src | tar -x -C DIR``
gives ``DIR/src``) and through this checkout's, both by ``python -c`` on ``PYTHONPATH``, interleaved with
the rest: a before/after of tierlock's own cost in one run.

Run: ``.venv/bin/python benchmarks/bench_arm.py [--runs N] [--registry dataframe|compiled] [--baseline DIR/src]``.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._armtime import ENTRY, REGISTRY, arming_world, fresh, overhead_lines, own, timed
from benchmarks._cliworld import BIN, REPO, load, online, ratio_line, run


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--runs", type=int, default=5, help="fresh environments armed by each side")
    parser.add_argument("--registry", choices=sorted(REGISTRY), help="a real closure from the package index")
    parser.add_argument("--baseline", type=Path, help="another tierlock's src folder, armed through beside this one")
    args = parser.parse_args(argv)
    if args.registry and not online():
        print(
            f"skipped: --registry {args.registry} locks and downloads from the package index; pypi.org is not "
            "reachable from here (offline)"
        )
        return
    print(f"load average before: {load()}")
    with tempfile.TemporaryDirectory(prefix="tierlock-bench-arm-") as tmp:
        root = Path(tmp)
        world = arming_world(root, args.registry)  # uv's cache warmed once
        env, project = world.env, world.project
        if args.registry:
            what, goal = f"{args.registry} tier from the index ({', '.join(REGISTRY[args.registry])})", 1.15
        else:
            what, goal = "the generated brain tier, offline", 0.0
        tier: list[str | Path] = [BIN / "install-tier", "--project", project, "brain", "--backend", "uv", "--json"]
        for warm in ("warm-tier", "warm-tier-2"):  # and tierlock's: what it keeps of a venv, then of the arming
            run([*tier, "--python", world.fresh(root / warm)], env)
        sides: dict[str, list[str | Path]] = {"tierlock": tier, "uv": world.uv}
        if args.baseline is not None:
            for label, src in (("new", REPO / "src"), ("old", args.baseline)):
                sides[label] = [sys.executable, "-c", ENTRY, str(src), *tier[1:]]
                for warm in ("a", "b"):  # as the console script: its target known, and what it keeps kept
                    run([*sides[label], "--python", world.fresh(root / f"warm-{label}-{warm}")], env)
        times, backends = _interleaved(sides, world.empty, root, env, args.runs)
        ours, peer = times["tierlock"], times["uv"]
        from tierlock.lockfiles import load as load_lock

        packages = len(load_lock(world.lock).applicable())
    mine, theirs = sorted(ours)[len(ours) // 2], sorted(peer)[len(peer) // 2]
    print(f"arming {what}: {packages} packages, medians of {args.runs}; load average after: {load()}")
    if goal:
        print(
            ratio_line(
                "install-tier brain", mine, theirs, "uv pip install", f"<= {goal}x", within=mine <= goal * theirs
            )
        )
    else:
        line = ratio_line(
            "install-tier brain", mine, theirs, "uv pip install", "<= uv + 100 ms", within=mine <= theirs + 0.1
        )
        print(f"{line}; difference {(mine - theirs) * 1000:.0f} ms")
    for line in overhead_lines("install-tier brain", ours, backends["tierlock"], peer, "uv pip install"):
        print(line)
    if args.baseline is not None:
        _before_after(times, backends, peer)


def _before_after(times: dict[str, list[float]], backends: dict[str, list[float | None]], peer: list[float]) -> None:
    """This checkout's sources against the baseline's (both through ``python -c``), medians and paired."""
    ours, theirs = times["tierlock"], sorted(peer)[len(peer) // 2]
    new, old = (sorted(times[k])[len(times[k]) // 2] for k in ("new", "old"))
    print(
        f"before/after (both through python -c, PYTHONPATH to each src): this checkout {new * 1000:.1f} ms, "
        f"baseline {old * 1000:.1f} ms, {new / old:.2f}x; uv {theirs * 1000:.1f} ms"
    )
    print(
        "paired medians (each round's own difference, steadier under load): this checkout - baseline "
        f"{_paired(times['new'], times['old']):+.1f} ms; this checkout - uv {_paired(times['new'], peer):+.1f} ms; "
        f"baseline - uv {_paired(times['old'], peer):+.1f} ms; console script - uv {_paired(ours, peer):+.1f} ms"
    )
    mine, theirs_own = (own(times[k], backends[k]) for k in ("new", "old"))
    if len(mine) == len(theirs_own) == len(times["new"]):
        print(
            "tierlock's own time (wall less its backend's), paired: this checkout - baseline "
            f"{_paired([m / 1000 for m in mine], [t / 1000 for t in theirs_own]):+.1f} ms"
        )
    for label in ("new", "old"):
        name = "this checkout" if label == "new" else "baseline"
        for line in overhead_lines(name, times[label], backends[label], peer, "uv pip install"):
            print(line)


def _paired(ours: list[float], theirs: list[float]) -> float:
    """The median of the differences run by run (ms): the load shared by one round cancels out."""
    differences = sorted(a - b for a, b in zip(ours, theirs, strict=True))
    return differences[len(differences) // 2] * 1000


def _interleaved(
    sides: dict[str, list[str | Path]], empty: Path, root: Path, env: dict[str, str], runs: int
) -> tuple[dict[str, list[float]], dict[str, list[float | None]]]:
    """Seconds of each side arming a fresh copy of *empty*, run after run, the sides interleaved (their order turned
    by one each round, so no side always follows the same one); and the backend's seconds of each tierlock run."""
    times: dict[str, list[float]] = {name: [] for name in sides}
    backends: dict[str, list[float | None]] = {name: [] for name in sides}
    names = list(sides)
    for i in range(runs):
        for name in names[i % len(names) :] + names[: i % len(names)]:
            dest = root / f"{name}-{i}"
            elapsed, backend = timed([*sides[name], "--python", fresh(empty, dest)], env)
            times[name].append(elapsed)
            backends[name].append(backend)
            shutil.rmtree(dest)
    return times, backends


if __name__ == "__main__":
    main()
