"""Narrate tierlock's main job on examples/demo (run by `make demo`).

Every step runs the real command line, shown as `$ ...`, in a scratch folder
(.demo/) so the committed example is never modified.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "examples" / "demo"
BIN = Path(sys.executable).parent


def say(text: str) -> None:
    print(f"\n== {text}", flush=True)


def run(*argv: str, expect: int | None = 0, env: dict[str, str] | None = None) -> int:
    shown = " ".join(shlex.quote(a) for a in argv)
    print(f"$ {shown}", flush=True)
    exe = BIN / argv[0] if (BIN / argv[0]).exists() else Path(argv[0])
    proc = subprocess.run([str(exe), *argv[1:]], cwd=REPO, env={**os.environ, **(env or {})}, check=False)
    if expect is not None and proc.returncode != expect:
        print(f"demo: expected exit {expect}, got {proc.returncode}", file=sys.stderr)
        sys.exit(1)
    return proc.returncode


def main() -> None:
    say("The demo project declares a pure-Python base tier and a `brain` tier (numpy, compiled).")
    run("tierlock", "--project", "examples/demo", "tiers")


if __name__ == "__main__":
    main()
