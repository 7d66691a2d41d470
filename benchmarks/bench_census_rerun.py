"""A kept answer after an edit of a file other files rest on: the census worked out again from the kept facts.

On a real project (``--project DIR``, with ``[tool.tierlock]``), a line is appended to the last function of
``--file REL`` (a conftest, a helper module: only where that function ends moves, which no part of the census's
result rests on), or with ``--edit helper|fixture|import|skipper`` a helper function, a fixture, an import, a
helper calling ``importorskip`` (its facts change, the census's result does not), and the kept answer of
``--command`` (check or admit) is asked for right after, in a fresh process each time, with every module the check
loads imported by the check itself: what a hook or an editor pays after such a save. The file's bytes and modification
time are put back after every run. With ``--baseline SRC`` (another tierlock's ``src``,
e.g. ``git archive main src | tar -x -C DIR``), that code is timed in the same rounds, alternated, each side with
a cache folder of its own (``bench_cli.py --baseline`` shares the project's ``.pytest_cache``, which a full run of
either side rewrites after such an edit). Prints each side's times, the medians and their ratio.

Run: ``.venv/bin/python benchmarks/bench_census_rerun.py --project DIR [--python PY] --file tests/conftest.py
[--command check] [--runs 5] [--baseline DIR/src] [--edit body|helper|fixture|import|skipper|import-above]``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._cliworld import REPO, environ, load

#: One round in the measured process: the answer kept (recorded again until it is), the edit, the kept answer
#: timed, the file put back. Prints [milliseconds, whether the kept answer was given].
ROUND = r"""
import json, os, sys, time
target, EDIT, argv = sys.argv[1], sys.argv[2], sys.argv[3:]
from tierlock import keptrecord, keptrun
from tierlock._entry import _cli
original, before = open(target, "rb").read(), os.stat(target)
shown, sys.stdout = sys.stdout, open(os.devnull, "w")
try:
    for _attempt in range(4):
        if keptrun.replay(argv) is not None:
            break
        time.sleep(2.1)
        keptrecord.run(argv, lambda: _cli(argv))
    with open(target, "wb") as handle:  # (an edit starting with ^ goes above everything)
        handle.write(EDIT[1:].encode() + original if EDIT.startswith("^") else original + EDIT.encode())
    started = time.perf_counter()
    code = keptrun.replay(argv)
    took = time.perf_counter() - started
finally:
    with open(target, "wb") as handle:
        handle.write(original)
    os.utime(target, ns=(before.st_atime_ns, before.st_mtime_ns))
    sys.stdout = shown
print(json.dumps([took * 1000, code is not None]))
"""


#: What is appended to the file: a line in the body of its last function, a helper function of its own, a fixture
#: (named by nothing), an import of a module of the standard library (no tier's), a helper that calls
#: ``importorskip`` of a module (the census does not follow a call into another module's function), the import above
#: everything (every line of the file moves).
EDITS = {
    "body": "    assert 1 == 1\n",
    "helper": "\n\ndef _bench_helper():\n    return 1\n",
    "fixture": "\n\n@pytest.fixture\ndef _bench_fixture():\n    return 1\n",
    "import": "import colorsys\n",
    "skipper": "\n\ndef _bench_skipper():\n    return pytest.importorskip('colorsys')\n",
    "import-above": "^import colorsys\n",
}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--project", type=Path, required=True)
    parser.add_argument("--file", required=True, help="the file to edit, relative to the project")
    parser.add_argument("--command", choices=("check", "admit"), default="check")
    parser.add_argument("--python", type=Path, help="with admit: the interpreter of the armed environment")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--baseline", type=Path, help="another tierlock's src folder, timed in the same rounds")
    parser.add_argument(
        "--edit",
        choices=sorted(EDITS),
        default="body",
        help="body: a line added to the last function (only where it ends moves); helper: a helper function added "
        "at the end; fixture: a fixture nothing requests; import: a module of the standard library imported at the "
        "end; skipper: a helper calling importorskip; import-above: that import above everything, so every line moves "
        "(each: the file's facts change; the census's result does not when it names no line of the file)",
    )
    args = parser.parse_args(argv)
    command = ["--project", str(args.project), args.command]
    if args.command == "admit" and args.python is not None:
        command += ["--python", str(args.python)]
    sides = {"this checkout": REPO / "src", **({"baseline": args.baseline} if args.baseline else {})}
    print(f"load average before: {load()}")
    times: dict[str, list[float]] = {side: [] for side in sides}
    with tempfile.TemporaryDirectory(prefix="tierlock-bench-rerun-") as tmp:
        for _ in range(args.runs):
            for side, src in sides.items():
                env = environ(Path(tmp) / "uv-cache")
                env |= {"PYTHONPATH": str(src), "TIERLOCK_CACHE_DIR": str(Path(tmp) / side.replace(" ", "-"))}
                done = subprocess.run(
                    [sys.executable, "-c", ROUND, str(args.project / args.file), EDITS[args.edit], *command],
                    env=env,
                    capture_output=True,
                    text=True,
                    check=True,
                )
                took, kept = json.loads(done.stdout.strip().splitlines()[-1])
                times[side].append(took if kept else float("nan"))
    print(f"{args.command} after an edit ({args.edit}) of {args.file}, {args.runs} runs; load average after: {load()}")
    for side, found in times.items():
        shown = ", ".join(f"{t:.1f}" for t in found)
        print(f"  {side:<14} median {statistics.median(found):7.1f} ms   ({shown}; nan: not answered from kept)")
    if args.baseline is not None:
        ratio = statistics.median(times["this checkout"]) / statistics.median(times["baseline"])
        print(f"  this checkout / baseline: {ratio:.2f}x")


if __name__ == "__main__":
    main()
