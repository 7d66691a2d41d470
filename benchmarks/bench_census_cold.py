"""A census worked out from nothing on a real project, this checkout's sources beside another's, paired.

Each round starts one fresh process per side (``python -c`` with the side's ``src`` first on the path, the sides
alternating which runs first); the process loads the project, then times one :func:`tierlock.census.survey` with an
empty per-file memory and nothing kept (every test file and module read, parsed and followed), wall and CPU, and
prints a digest of the census's result and of every file's facts: the two sides must print the same digests.

Run: ``.venv/bin/python benchmarks/bench_census_cold.py --project CHECKOUT --baseline DIR/src [--runs 9]``
(``git -C REPO archive REV src | tar -x -C DIR`` gives ``DIR/src``; the project needs a ``[tool.tierlock]`` table:
``tierlock init``).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._cliworld import REPO, load

ONE = """
import hashlib, json, sys, time
from tierlock.census import DiskTree, Memo, survey
from tierlock.census.projectcensus import (
    _census_table, _gates_by_markers, accept_table, census_tiers, import_paths, pytest_settings)
from tierlock.census.summary import canonical
from tierlock.tiers import load_project
project = load_project(sys.argv[1] + "/pyproject.toml")
accept = accept_table(project.pyproject, project.tiers)
declared = _census_table(project.pyproject)[1]
required = [str(t.name) for t in project.tiers.values() if declared and _gates_by_markers(project, t)]
tiers = census_tiers(project, accept, required)
folders, patterns = pytest_settings(project.root)
memo = Memo()
wall, cpu = time.perf_counter(), time.process_time()
result = survey(DiskTree(project.root), tiers, folders=folders, patterns=patterns,
                paths=import_paths(project.root), memo=memo)
wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
digest = lambda value: hashlib.sha256(json.dumps(value, sort_keys=True, default=str).encode()).hexdigest()[:16]
print(json.dumps({"wall": wall, "cpu": cpu, "census": digest(canonical(result)), "facts": digest(memo.entry()),
                  "parsed": len(memo.parsed)}))
"""


def one(src: str, project: Path) -> dict[str, object]:
    env = {"PYTHONPATH": src, "PATH": "/usr/bin:/bin", "TIERLOCK_CACHE_DIR": ""}
    done = subprocess.run(
        [sys.executable, "-c", ONE, str(project)], env=env, capture_output=True, text=True, check=True
    )
    return dict(json.loads(done.stdout))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--project", type=Path, required=True, help="a checkout with a [tool.tierlock] table")
    parser.add_argument("--baseline", type=Path, required=True, help="another tierlock's src folder")
    parser.add_argument("--runs", type=int, default=9, help="rounds (each side once per round)")
    args = parser.parse_args()
    sides = {"this": str(REPO / "src"), "baseline": str(args.baseline.resolve())}
    print(f"{time.strftime('%Y-%m-%d %H:%M:%S', time.gmtime())} UTC, load average before: {load()}")
    seen: dict[str, list[dict[str, object]]] = {label: [] for label in sides}
    for round_ in range(args.runs):
        order = list(sides.items()) if round_ % 2 == 0 else list(reversed(sides.items()))
        for label, src in order:
            seen[label].append(one(src, args.project.resolve()))
    for label, runs in seen.items():
        wall = statistics.median(float(str(r["wall"])) for r in runs) * 1000
        cpu = statistics.median(float(str(r["cpu"])) for r in runs) * 1000
        digests = sorted({f"census {r['census']} facts {r['facts']} parsed {r['parsed']}" for r in runs})
        print(f"{label:8} wall {wall:7.1f} ms  CPU {cpu:7.1f} ms  ({'; '.join(digests)})")
    ratio = [float(str(a["cpu"])) / float(str(b["cpu"])) for a, b in zip(seen["this"], seen["baseline"], strict=True)]
    print(f"CPU this / baseline, median of the rounds' ratios: {statistics.median(ratio):.3f}x")
    print(f"load average after: {load()}")


if __name__ == "__main__":
    main()
