"""What checking the closure's compiled artifacts costs: the default probe against roots only and ``closure=True``.

Uses the same generated tier as ``bench_probe.py`` (90 distributions of 10
modules and one extension-named file each, installed for real with uv; a
``big`` tier with 30 roots and a lockfile pinning all 90). In one process, the
three variants alternate, so that they see the same machine load:

* roots only: the 30 roots probed in full (what the default probe did before
  it reached the closure);
* the default probe: the roots in full and, for the other 60 packages of the
  closure, installed, locked version, METADATA, RECORD and their compiled
  artifacts (one ``Prober`` per call, as ``tierlock probe`` makes one);
* ``closure=True``: every file of the closure.

Run: ``.venv/bin/python benchmarks/bench_probe_closure.py``.
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from benchmarks.bench_probe import generate  # noqa: E402

RUNS = 300


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="tierlock-bench-closure-") as tmp:
        site, project = generate(Path(tmp))
        sys.path.insert(0, str(site))
        from tierlock import environment
        from tierlock.probing import Prober, SiteIndex, probe_parts
        from tierlock.tiers import load_project

        loaded = load_project(project)
        tier = loaded.tier("big")
        target = environment.current()
        result = Prober(loaded, target).probe(tier)
        assert result.state == "present", [d.reasons for d in result.broken]
        roots = [(d.name, d.locked_text, ()) for d in result.roots]

        def roots_only() -> None:
            probe_parts(SiteIndex.scan(target.site_paths), roots, [])

        def default() -> None:
            Prober(loaded, target).probe(tier)

        def closure() -> None:
            Prober(loaded, target).probe(tier, closure=True)

        variants: dict[str, Callable[[], None]] = {
            "roots only": roots_only,
            "default (roots + closure's compiled artifacts)": default,
            "closure=True (every file)": closure,
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
            f"files checked by default {result.files_checked}"
        )
        for name, values in samples.items():
            print(f"{name:48s} median {statistics.median(values):7.2f} ms (min {min(values):.2f}), {RUNS} runs")
        ratio = statistics.median(samples[list(variants)[1]]) / statistics.median(samples["roots only"])
        print(f"default / roots only: {ratio:.2f}x   (python {sys.version.split()[0]})")


if __name__ == "__main__":
    main()
