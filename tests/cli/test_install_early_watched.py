# ruff: noqa: F811  (pytest fixtures imported from the installer's end-to-end tests are redefined as parameters)
"""An early backend watched by its thread (``backend_s``) is stopped at once by an interrupt and a kill of it is
a failed backend, on the early path as on the slow one.

The backend started early is watched by a thread waiting on it (``waitid`` with ``WNOWAIT``,
:func:`tierlock.spawning.watch`). Attacked with real ``install-tier`` runs behind the uv wrapper of
``tests/cli/test_install_early_hostile.py``: a SIGINT while the thread waits on a
backend that holds for 30 seconds (the install must stop it, not wait for its end: the wrapper never gets to
write that it ended), and the backend killed (SIGKILL) under the install. Each leaves no receipt, ``probe`` saying
what is there, and the same command completes it; the early path's answer is the slow path's.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from tests.cli.test_install_cli import Kit, empty_venv, index_env, kit, uv_cache, wheel_dir, wheels  # noqa: F401
from tests.cli.test_install_early_hostile import Hostile, _wait_for
from tests.support.kept import backdate

pytestmark = pytest.mark.slow


@pytest.fixture
def hostile(tmp_path: Path, kit: Kit) -> Hostile:
    backdate(kit.empty_venv)
    return Hostile(tmp_path, kit)


def _started(hostile: Hostile, venv: Path, env: dict[str, str]) -> subprocess.Popen[str]:
    for name in ("uv.log.done", "uv.log.waiting", "uv.log.pid"):
        (hostile.root / name).unlink(missing_ok=True)
    hostile.flag("hold")
    proc = subprocess.Popen(hostile.argv(venv), env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    _wait_for(hostile.root / "uv.log.waiting")
    time.sleep(0.3)
    return proc


def _completes(hostile: Hostile, venv: Path, env: dict[str, str]) -> None:
    hostile.flag("hold", on=False)
    code, doc, _runs = hostile.arm(venv, env=env)
    assert code == 0, doc
    assert hostile.present(venv) == "present"
    assert (venv / "tierlock" / "receipts" / "brain.json").is_file()


@pytest.mark.parametrize("early", [True, False], ids=["early", "slow-path"])
def test_an_interrupt_while_the_watcher_waits_stops_the_backend_without_waiting_for_its_end(
    hostile: Hostile, early: bool
) -> None:
    env = hostile.ready(early)
    venv = hostile.venv("second")
    before = len(hostile.runs())
    proc = _started(hostile, venv, env)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert json.loads(out)["error"]["exit_code"] == 130
    assert hostile.runs()[before:] == ["early" if early else "own"]
    assert not (hostile.root / "uv.log.done").exists(), "the install waited for the backend's own end"
    assert not (venv / "tierlock" / "receipts" / "brain.json").exists()
    assert hostile.present(venv) == "absent"
    _completes(hostile, venv, env)


@pytest.mark.parametrize("early", [True, False], ids=["early", "slow-path"])
def test_the_backend_killed_under_a_watched_install_is_a_failed_backend_and_the_same_command_completes_it(
    hostile: Hostile, early: bool
) -> None:
    env = hostile.ready(early)
    venv = hostile.venv("second")
    proc = _started(hostile, venv, env)
    os.kill(int((hostile.root / "uv.log.pid").read_text()), signal.SIGKILL)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 3, (out, err)
    doc = json.loads(out)
    assert doc["error"]["exit_code"] == 3
    assert not (venv / "tierlock" / "receipts" / "brain.json").exists()
    assert hostile.present(venv) == "absent"
    _completes(hostile, venv, env)
