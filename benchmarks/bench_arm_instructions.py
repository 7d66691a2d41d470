"""An arming's own instructions, this checkout's sources beside another's (``--baseline``), paired: what the load does
not move.

Each side arms the tier into a fresh copy of an empty venv (``install-tier brain --backend uv --json``) through
``python -c`` with the side's ``src`` first on ``sys.path``, under valgrind's cachegrind (``--cache-sim=no``:
instructions only). valgrind follows no child (``--trace-children=no``, its default): the count is tierlock's own
process, its main thread and its threads (the read-ahead, the readers of the backend's output), not uv's. Each side
has a cache folder of its own and is armed twice before the counted rounds, so every counted arming is one whose
backend started early from a kept plan, as on a workstation (the first records the plan, the second keeps what it
learns of the venv). The sides alternate which runs first.

What the count includes besides the work itself: the read-ahead thread looks at the site folders every 10 ms while
the backend runs, and under valgrind tierlock runs ~50x slower beside an unslowed uv, so it makes fewer looks than
it would; the count is what the main thread's start, the verification, the receipt and the exit cost, less a few
looks. Compare rows of the same tier.

Offline (the default): the generated 13-package ``brain`` tier of ``bench_arm.py`` from local wheels. ``--registry
compiled|bigcompiled|dataframe``: the tiers of ``bench_arm.py --registry`` from the package index (network for the
lock and the first download).

Run: ``.venv/bin/python benchmarks/bench_arm_instructions.py --baseline DIR/src [--runs 3] [--registry compiled]``
(``git -C REPO archive REV src | tar -x -C DIR`` gives ``DIR/src``).
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._armtime import ENTRY, REGISTRY, arming_world
from benchmarks._cliworld import REPO, load, online, run
from benchmarks.bench_cli_instructions import instructions


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--baseline", type=Path, required=True, help="another tierlock's src folder")
    parser.add_argument("--runs", type=int, default=3, help="counted rounds")
    parser.add_argument("--registry", choices=sorted(REGISTRY), help="a real closure from the package index")
    args = parser.parse_args()
    if shutil.which("valgrind") is None:
        raise SystemExit("valgrind is not installed")
    if args.registry and not online():
        print(f"skipped: --registry {args.registry} locks and downloads from the package index (offline here)")
        return
    sides = {"this": str(REPO / "src"), "baseline": str(args.baseline.resolve())}
    print(f"{time.strftime('%Y-%m-%d %H:%M:%S', time.gmtime())} UTC, load average before: {load()}")
    with tempfile.TemporaryDirectory(prefix="tierlock-bench-arm-instructions-") as tmp:
        root = Path(tmp)
        world = arming_world(root, args.registry)  # uv's cache warmed once, the files settled
        env = world.env
        arm = ["--project", str(world.project), "brain", "--backend", "uv", "--json"]
        for label, src in sides.items():
            side = {**env, "TIERLOCK_CACHE_DIR": f"{tmp}/cache-{label}"}
            for warm in ("a", "b"):  # the first records the plan, the second keeps what it learns of the venv
                venv = world.fresh(root / f"w-{label}-{warm}")
                run([sys.executable, "-c", ENTRY, src, *arm, "--python", venv], side)
        print(f"arming {args.registry or 'the generated brain tier, offline'}: tierlock's own process, millions")
        for round_ in range(args.runs):
            order = list(sides.items()) if round_ % 2 == 0 else list(reversed(sides.items()))
            counts: dict[str, int] = {}
            for label, src in order:
                side = {**env, "TIERLOCK_CACHE_DIR": f"{tmp}/cache-{label}"}
                dest = root / f"{label}-{round_}"
                argv = [sys.executable, "-c", ENTRY, src, *arm, "--python", str(world.fresh(dest))]
                counts[label], code = instructions(argv, side)
                if code != 0:
                    raise SystemExit(f"the {label} side's arming exited {code}")
                shutil.rmtree(dest)
            this, base = counts["this"], counts["baseline"]
            print(f"  this {this / 1e6:9.2f} M   baseline {base / 1e6:9.2f} M   {this / base:.4f}x", flush=True)
    print(f"load average after: {load()}")


if __name__ == "__main__":
    main()
