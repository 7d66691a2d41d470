"""The no-op fast path loads no module beyond tierlock's own and the C parts of ``json`` and ``sha256``.

It runs on every ``install-tier`` start-up before ``argparse``: ``typing``, ``re``, ``json``,
``hashlib`` (which loads OpenSSL) would each cost milliseconds. A child interpreter proves a real
no-op over a folder laid out like a venv and lists the modules that proof loaded.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.support.env import clean_env
from tests.support.venvshape import armed, project

CHILD = """
import json, sys
before = set(sys.modules)
from tierlock.installer import fastpath
noop, why = fastpath.try_noop(["brain"], project_arg=sys.argv[1], python=sys.argv[2], system=False)
loaded = sorted(m for m in set(sys.modules) - before if not m.startswith("tierlock"))
print(json.dumps([noop is not None, why, loaded]))
"""


def test_a_noop_proof_loads_only_the_c_parts_of_json_and_sha256(tmp_path: Path) -> None:
    root = project(tmp_path / "proj")
    armed(tmp_path / "venv", root)
    env = clean_env({"PYTHONPATH": os.environ["PYTHONPATH"]} if "PYTHONPATH" in os.environ else {})
    proc = subprocess.run(
        [sys.executable, "-c", CHILD, str(root), str(tmp_path / "venv")],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    noop, why, loaded = json.loads(proc.stdout.strip().splitlines()[-1])
    assert noop, why
    assert set(loaded) <= {"__future__", "_sha256", "_json"}, loaded
