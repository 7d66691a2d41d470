"""The read-only commands' instruction counts, this checkout's sources beside another's (``--baseline``), paired.

On the generated 3-tier project of :mod:`benchmarks.bench_cli` (:func:`benchmarks._cliworld.make_world`), each of
``check``, ``probe``, ``status`` and ``admit`` runs under valgrind's cachegrind (``--cache-sim=no``: instructions
only, what the machine's load does not move) through ``python -c`` with ``PYTHONPATH`` set to each side's ``src``,
each side with a cache folder of its own:

* ``kept``: the third run of the command (the first two record it): the kept answer given again;
* ``edited``: the run after the first ``>=`` of ``[project.optional-dependencies]`` was lowered (``--edited
  pyproject-deps`` of bench_cli: the lock no longer matches and the command runs in full), the same edit on both
  sides, after one such run that rebuilt what it keeps;
* ``cold``: the run after the side's cache folder was emptied (``--cold`` of bench_cli): nothing kept, the target
  interpreter asked (its own process is not counted: valgrind follows no child), the modules read from their files.

The sides alternate which runs first, ``--runs`` rounds each. A full run's count moves by ~5% between two states of
what it keeps (a bundle written or not): compare the rows whose two sides are in the same state. Under valgrind
only ``check``'s kept answer is given again: probe, status and admit read ``LD_LIBRARY_PATH`` (the shared
libraries' check), which valgrind sets (``/usr/lib/debug``), so their ``kept`` rows are full runs too (recorded
again each time), alike on both sides.

Run: ``.venv/bin/python benchmarks/bench_cli_instructions.py --baseline DIR/src [--runs 3] [--mode kept|edited|cold]``
(``git -C REPO archive REV src | tar -x -C DIR`` gives ``DIR/src``).
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.support.kept import backdate

from benchmarks._cliworld import REPO, load, make_world
from benchmarks.bench_cli import ENTRY, Editor

COMMANDS = ("check", "probe", "status", "admit")
MODES = ("kept", "edited", "cold")


def instructions(argv: list[str], env: dict[str, str]) -> tuple[int, int]:
    """The instructions *argv* ran (its children's too), and its exit code."""
    done = subprocess.run(
        ["valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null", *argv],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    found = re.search(r"I\s+refs:\s+([\d,]+)", done.stderr)
    if found is None:
        raise SystemExit(f"valgrind printed no count:\n{done.stderr[-2000:]}")
    return int(found.group(1).replace(",", "")), done.returncode


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--baseline", type=Path, required=True, help="another tierlock's src folder")
    parser.add_argument("--runs", type=int, default=3, help="rounds of each command and mode")
    parser.add_argument("--mode", choices=MODES, action="append", help="default: kept and edited")
    parser.add_argument("--command", choices=COMMANDS, action="append", help="default: all four")
    args = parser.parse_args()
    if shutil.which("valgrind") is None:
        raise SystemExit("valgrind is not installed")
    sides = {"this": str(REPO / "src"), "baseline": str(args.baseline.resolve())}
    print(f"{time.strftime('%Y-%m-%d %H:%M:%S', time.gmtime())} UTC, load average before: {load()}")
    with tempfile.TemporaryDirectory(prefix="tierlock-bench-instructions-") as tmp:
        project, _wheels, python, env = make_world(Path(tmp))
        backdate(project, python.parent.parent)
        for mode in args.mode or ("kept", "edited"):
            for command in args.command or COMMANDS:
                for round_ in range(args.runs):
                    order = list(sides.items()) if round_ % 2 == 0 else list(reversed(sides.items()))
                    counts: dict[str, tuple[int, int]] = {}
                    for label, src in order:
                        side = {**env, "PYTHONPATH": src, "TIERLOCK_CACHE_DIR": f"{tmp}/cache-{label}"}
                        target = [] if command == "check" else ["--python", str(python)]  # (check takes none)
                        argv = [sys.executable, "-c", ENTRY, "--project", str(project), command, *target]
                        counts[label] = _counted(mode, argv, side, project)
                    this, base = counts["this"][0], counts["baseline"][0]
                    codes = f"exit {counts['this'][1]} / {counts['baseline'][1]}"
                    print(
                        f"{mode:6} {command:6} this {this / 1e6:8.2f} M   baseline {base / 1e6:8.2f} M   "
                        f"{this / base:.4f}x   {codes}",
                        flush=True,
                    )
    print(f"load average after: {load()}")


def _counted(mode: str, argv: list[str], env: dict[str, str], project: Path) -> tuple[int, int]:
    if mode == "cold":
        shutil.rmtree(env["TIERLOCK_CACHE_DIR"], ignore_errors=True)
        return instructions(argv, env)
    if mode == "kept":
        for _ in range(2):
            subprocess.run(argv, env=env, capture_output=True, check=False)
        return instructions(argv, env)
    editor = Editor("pyproject-deps", project / "tests" / "brain" / "test_brain.py", project / "pyproject.toml")
    editor.count = 100  # (the same edits on both sides)
    try:
        editor()
        subprocess.run(argv, env=env, capture_output=True, check=False)
        editor()
        return instructions(argv, env)
    finally:
        editor.restore()
        backdate(project / "pyproject.toml")


if __name__ == "__main__":
    main()
