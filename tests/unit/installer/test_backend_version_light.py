"""uv's version, asked in a thread while the backend installs, loads no lock resolver module.

The version is read from the RECORD of the distribution that put uv beside tierlock's interpreter
(:func:`tierlock.distversion.installed_version`), on the cores the backend uses: the lock backends'
module (:mod:`tierlock.lockfiles.resolvers`, its dataclasses and its platform module) is not loaded for it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

from tests.support.env import bin_dir, clean_env
from tierlock.distversion import installed_version

CHILD = """
import json, sys
from pathlib import Path
from tierlock.installer.backends import UvBackend
before = set(sys.modules)
version = UvBackend(Path(sys.argv[1])).version()
print(json.dumps([version, sorted(m for m in set(sys.modules) - before if m.startswith("tierlock"))]))
"""


def test_uvs_version_is_read_from_its_record_without_loading_the_lock_resolvers() -> None:
    uv = bin_dir() / "uv"
    env = clean_env({"PYTHONPATH": os.environ["PYTHONPATH"]} if "PYTHONPATH" in os.environ else {})
    proc = subprocess.run([sys.executable, "-c", CHILD, str(uv)], env=env, capture_output=True, text=True, check=True)
    version, loaded = json.loads(proc.stdout.strip().splitlines()[-1])
    assert version == installed_version(str(uv), "uv")
    assert version is not None
    assert version[0].isdigit()
    assert "tierlock.lockfiles.resolvers" not in loaded
