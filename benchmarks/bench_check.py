"""Measure ``tierlock check`` against ``uv lock --check`` on the same ~90-package project.

Generates 180 small wheels (two versions of 90 packages) and a project whose
base and brain tiers hold about 90 locked entries together, locks it with
tierlock (uv backend) and with ``uv lock``, then times the two offline checks
side by side (median of 15 runs each, after a warm-up) and prints the ratio.
Target: tierlock check within 2x of uv lock --check.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._lockbench import BIN, make_project, run, timed


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="tierlock-bench-check-") as tmp:
        project, wheels, count = make_project(Path(tmp))
        run([BIN / "tierlock", "--project", project, "-q", "lock", "--backend", "uv", "--no-index", "-f", wheels])
        run([BIN / "uv", "lock", "--offline", "--quiet"], cwd=project)
        from tierlock.lockfiles import load

        entries = sum(len(load(project / "lockfiles" / f"{t}.txt").entries) for t in ("base", "brain"))
        ours = timed([BIN / "tierlock", "--project", project, "check"])
        peer = timed([BIN / "uv", "lock", "--check", "--offline", "--quiet"], cwd=project)
        print(f"packages generated: {count}; locked entries checked by tierlock: {entries}")
        print(f"tierlock check:       {ours * 1000:7.1f} ms (median)")
        print(f"uv lock --check:      {peer * 1000:7.1f} ms (median)")
        print(f"ratio tierlock/uv:    {ours / peer:7.2f}x (target <= 2x)")


if __name__ == "__main__":
    main()
