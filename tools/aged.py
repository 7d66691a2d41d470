"""Run a test command as on a tree at rest: the mutated sources dated back, their byte code dropped.

``make mutate`` writes each mutant into its module just before the tests run. tierlock never keeps an answer
(a read-only command's, a lock's, an arming's plan) that rests on a file modified in the last two seconds,
so a test that expects an answer to be kept would fail on *every* freshly written mutant, whatever the
mutation: a mutant killed for the wrong reason. This moves the modification time of each source given ten
seconds back and removes its cached byte code (a dated-back source could otherwise meet a ``.pyc`` of the
same size and second and run stale code), then runs the rest of the command line with this interpreter.

Run: ``python tools/aged.py SOURCE... -- -m pytest ...``.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path

#: How far back each source is dated: past the two seconds within which nothing is kept.
BACK_S = 10.0


def age(sources: Sequence[str], now: float) -> None:
    """Date each of *sources* back by :data:`BACK_S` from *now* and drop its cached byte code."""
    for source in sources:
        path = Path(source)
        then = now - BACK_S
        os.utime(path, (then, then))
        for cached in (path.parent / "__pycache__").glob(f"{path.stem}.*.pyc"):
            cached.unlink(missing_ok=True)


def main(argv: Sequence[str]) -> int:
    if "--" not in argv:
        print("usage: aged.py SOURCE... -- PYTHON-ARGUMENTS...", file=sys.stderr)
        return 2
    split = list(argv).index("--")
    age(argv[:split], time.time())
    os.execv(sys.executable, [sys.executable, *argv[split + 1 :]])
    return 0  # pragma: no cover (execv does not return)


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
