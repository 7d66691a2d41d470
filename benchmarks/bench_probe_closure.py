"""The default probe verdict against its floor: one ``stat`` of every file the tier's locked closure installs.

Uses the same generated tier as ``bench_probe.py`` (90 distributions of 10
modules and one extension-named file each, installed for real with uv; a
``big`` tier with 30 roots and a lockfile pinning all 90). Since every
verdict covers every file of the closure, the least any files-based probe can
do is one ``os.stat`` of each of those files; the probe also reads what each
``.dist-info`` says, once, and keeps it while the folder is unchanged (one
``stat`` of the folder per package says so). In one process, the variants
alternate, so that they see the same machine load:

* the floor: ``os.stat`` of each file the probe checks;
* the default probe (one ``Prober`` per call, as ``tierlock probe`` makes one,
  the site folders scanned each time);
* the roots only (what the default probe covered before it reached the closure).

Those are rounds of a warm process (a long-lived caller, a command probing many
tiers). The pytest plugin and a command probe once per process: so the script
also starts fresh processes (``--fresh N``, default 15) that each time the
plugin's first round (the site scanned, every root and closure package probed,
with what earlier processes kept on disk in a cache folder of the benchmark's
own) and then the floor, in that process.

It prints the medians, the minimums and the ratio of the probe to the floor
(aim: within 1.5x). Run: ``.venv/bin/python benchmarks/bench_probe_closure.py``.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from benchmarks.bench_probe import generate  # noqa: E402

RUNS = 300
FRESH = int(sys.argv[sys.argv.index("--fresh") + 1]) if "--fresh" in sys.argv else 15

#: One fresh process: the plugin's first probe round (tierlock.probing.facts.probe_facts does the same), then the
#: floor; prints both in milliseconds.
FIRST_ROUND = """
import json, os, sys, time
site, roots, others = json.loads(sys.argv[1])
from tierlock.probing.site import SiteIndex
from tierlock.probing.verdict import probe_parts
start = time.perf_counter()
probed = probe_parts(SiteIndex.scan([site]), [tuple(r) for r in roots], [tuple(o) for o in others])
probe = time.perf_counter() - start
paths = [f.path for part in probed for d in part for f in d.files]
assert all(d.present for part in probed for d in part)
start = time.perf_counter()
for path in paths:
    os.stat(path)
print(json.dumps([probe * 1000, (time.perf_counter() - start) * 1000]))
"""


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="tierlock-bench-closure-") as tmp:
        os.environ["TIERLOCK_CACHE_DIR"] = str(Path(tmp) / "kept")  # this machine's own cache left alone
        site, project = generate(Path(tmp))
        time.sleep(1.5)  # installed files older than the file system's clock tick: what the probe may remember
        from tierlock import environment
        from tierlock.probing import Prober, SiteIndex, probe_parts
        from tierlock.tiers import load_project

        loaded = load_project(project)
        tier = loaded.tier("big")
        # The target: this interpreter with the generated site folder first on its path (as a venv's would be).
        target = environment.current()
        target = type(target)(**{**target.__dict__, "paths": (site,)})
        result = Prober(loaded, target).probe(tier)
        assert result.state == "present", [d.reasons for d in result.broken]
        roots = [(d.name, d.locked_text, ()) for d in result.roots]
        paths = [f.path for d in result.checked for f in d.files]

        def floor() -> None:
            stat = os.stat
            for path in paths:
                stat(path)

        def default() -> None:
            Prober(loaded, target).probe(tier)

        def roots_only() -> None:
            probe_parts(SiteIndex.scan(target.site_paths, target.ext_suffixes), roots, [])

        variants: dict[str, Callable[[], None]] = {
            "floor: one os.stat of each file": floor,
            "default probe (every file of the closure)": default,
            "roots only": roots_only,
        }
        samples: dict[str, list[float]] = {name: [] for name in variants}
        for fn in variants.values():
            fn()  # warm the file cache and the imports
        for _ in range(RUNS):
            for name, fn in variants.items():
                start = time.perf_counter()
                fn()
                samples[name].append((time.perf_counter() - start) * 1000)
        print(
            f"tier: {len(result.roots)} roots, {len(result.closure)} other closure packages; "
            f"files checked by default {result.files_checked} ({len(paths)} stat-ed by the floor)"
        )
        for name, values in samples.items():
            print(f"{name:44s} median {statistics.median(values):7.2f} ms (min {min(values):.2f}), {RUNS} runs")
        probe, base = samples["default probe (every file of the closure)"], samples["floor: one os.stat of each file"]
        print(
            f"default probe / floor: medians {statistics.median(probe) / statistics.median(base):.2f}x, "
            f"minimums {min(probe) / min(base):.2f}x (aim <= 1.5x)   (python {sys.version.split()[0]}, "
            f"{os.cpu_count()} cpus, load {os.getloadavg()[0]:.1f})"
        )
        if FRESH:
            members = [str(site), roots, [(d.name, d.locked_text) for d in result.closure]]
            first_rounds(json.dumps(members), Path(tmp) / "cache")


def first_rounds(members: str, cache: Path) -> None:
    """The first probe round of fresh processes against their floor (what the pytest plugin pays per run)."""
    from tests.support.env import clean_env

    import tierlock

    # The same tierlock as this process (its sources first on the path), a cache folder of the benchmark's own.
    env = clean_env({"TIERLOCK_CACHE_DIR": str(cache), "PYTHONPATH": str(Path(tierlock.__file__).parents[1])})
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    run = [sys.executable, "-c", FIRST_ROUND, members]
    for _ in range(2):  # the first writes what a process keeps (the facts, the library verdicts), as a first run does
        subprocess.run(run, env=env, check=True, capture_output=True)
    pairs = [
        json.loads(subprocess.run(run, env=env, check=True, capture_output=True, text=True).stdout)
        for _ in range(FRESH)
    ]
    probe, floor = [p for p, _ in pairs], [f for _, f in pairs]
    ratios = [p / f for p, f in pairs]
    print(
        f"first round of a fresh process (the plugin's): median {statistics.median(probe):.2f} ms "
        f"(min {min(probe):.2f}), its floor median {statistics.median(floor):.2f} ms (min {min(floor):.2f}); "
        f"ratio median {statistics.median(ratios):.2f}x, minimums {min(probe) / min(floor):.2f}x, "
        f"{FRESH} processes (load {os.getloadavg()[0]:.1f})"
    )


if __name__ == "__main__":
    main()
