"""Measure ``tierlock lock base`` (uv backend) against ``uv pip compile`` on the same inputs.

Uses the generated ~90-package project of bench_check (offline wheels). Both
sides compile the base tier's roots universally with hashes from the same
find-links folder with ``--upgrade`` (tierlock relocks over the lockfile its
previous run wrote, as uv over its previous output); the medians of 9 runs
each (after a warm-up) are printed with the ratio. Target: within 1.2x.

For scale it also prints the floor no Python front end can go below: starting
the interpreter and importing what any lock needs before uv can start (the CLI
frame, ``tomllib``, ``subprocess``, ``tempfile`` and ``packaging.requirements``,
which the tier model parses requirements with).
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._lockbench import BIN, make_project, timed

FLOOR_IMPORTS = "import tierlock.cli, tomllib, subprocess, tempfile, packaging.requirements"


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="tierlock-bench-lock-") as tmp:
        project, wheels, _ = make_project(Path(tmp))
        from tierlock.tiers import load_project

        roots = [str(r) for r in load_project(project).tier("base").requirements]
        inputs = Path(tmp) / "base.in"
        inputs.write_text("".join(f"{r}\n" for r in roots), encoding="utf-8")
        out = Path(tmp) / "out.txt"
        lockdir = project / "lockfiles"

        ours_argv: list[str | Path] = [
            BIN / "tierlock",
            "--project",
            project,
            "-q",
            "lock",
            "base",
            "--no-index",
            "-f",
            wheels,
        ]
        ours_argv += ["--backend", "uv", "--upgrade"]
        peer_argv: list[str | Path] = [
            BIN / "uv",
            "pip",
            "compile",
            inputs,
            "-o",
            out,
            "--universal",
            "--generate-hashes",
        ]
        peer_argv += ["--python-version", "3.11", "--no-index", "--find-links", wheels, "--quiet", "--upgrade"]
        ours = timed(ours_argv, repeat=9)
        shutil.rmtree(lockdir, ignore_errors=True)
        peer = timed(peer_argv, repeat=9)
        floor = timed([sys.executable, "-c", FLOOR_IMPORTS], repeat=9)
        print(f"base tier roots: {len(roots)}")
        print(f"tierlock lock base:   {ours * 1000:7.1f} ms (median)")
        print(f"uv pip compile:       {peer * 1000:7.1f} ms (median)")
        print(f"ratio tierlock/uv:    {ours / peer:7.2f}x (target <= 1.2x)")
        print(f"floor (python + imports a lock needs): {floor * 1000:.1f} ms = {floor / peer:.2f}x of uv pip compile")


if __name__ == "__main__":
    main()
