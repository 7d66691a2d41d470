"""A target venv replaced while a command's early inspection of it runs: no answer of the interpreter that was there
is kept for the one there now.

``probe``, ``status`` and ``install`` start the target's interpreter early (:class:`tierlock.environment.Pending`) and
read its answer later; that answer is kept (:mod:`tierlock.targetcache`) under what the target's files are at the
read. A venv removed and made again with another Python meanwhile (a hostile or unlucky user, a CI step beside it)
must not get the old interpreter's answer kept for it: the next command, with the same cache folder, answers as one
that keeps nothing (``TIERLOCK_CACHE_DIR`` empty). The old interpreter is held at its start (a ``.pth`` file of its
site folder waits for a file of the test's) until the venv was made again.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.support.env import clean_env
from tests.support.interpreters import PYENV
from tests.support.kept import ENTRY, World

pytestmark = pytest.mark.slow

#: The ``.pth`` line that holds the interpreter at its start (one line: a ``.pth`` runs lines that begin with import).
HOLD = "import os, time; open({started!r}, 'w').close(); exec(\"while not os.path.exists({go!r}): time.sleep(0.02)\")\n"


def _wait_for(path: Path) -> None:
    deadline = time.monotonic() + 60
    while not path.exists() and time.monotonic() < deadline:
        time.sleep(0.02)
    assert path.exists(), f"never reached {path.name}"


@pytest.mark.parametrize("command", ["probe", "status"])
def test_a_venv_made_again_with_another_python_while_it_was_inspected_gets_no_kept_answer_of_the_old_one(
    tmp_path: Path, command: str
) -> None:
    other = PYENV / "3.12.1" / "bin" / "python3.12"
    if not other.exists():
        pytest.skip("Python 3.12.1 is not installed here")
    world = World(tmp_path / "world")
    venv = world.venv
    site = next(venv.glob("lib/python3.*/site-packages"))
    started, go = tmp_path / "started", tmp_path / "go"
    (site / "zz_hold.pth").write_text(HOLD.format(started=str(started), go=str(go)))
    argv = [*world.argv(command), "--json"]
    env = {**clean_env(), "TIERLOCK_CACHE_DIR": str(world.cache)}
    first = subprocess.Popen(
        [sys.executable, "-c", ENTRY.format(argv=argv)], env=env, cwd=world.root, stdout=subprocess.PIPE, text=True
    )
    _wait_for(started)  # the old interpreter runs, asked early
    shutil.rmtree(venv)
    subprocess.run([str(other), "-m", "venv", "--without-pip", str(venv)], check=True, env=clean_env())
    time.sleep(1.1)  # (what is kept rests on files not modified within the last second: these are older now)
    go.touch()
    first.communicate(timeout=120)
    kept, _ = world.run(argv)
    full, _ = world.run(argv, TIERLOCK_CACHE_DIR="")
    assert (kept.returncode, json.loads(kept.stdout or "null")) == (full.returncode, json.loads(full.stdout or "null"))
