# ruff: noqa: F811  (pytest fixtures imported from the installer's end-to-end tests are redefined as parameters)
"""An early backend watched by its thread (``backend_s``) is stopped at once by an interrupt and a kill of it is
a failed backend, on the early path as on the slow one.

The backend started early is watched by a thread waiting on it (``waitid`` with ``WNOWAIT``,
:func:`tierlock.spawning.watch`). Attacked with real ``install-tier`` runs behind the uv wrapper of
``tests/cli/test_install_early_hostile.py``: one signal, or two back to back (SIGINT and SIGTERM in every pair,
the second from 0 to 50 ms after the first: it lands inside the cleanup of the first), while the thread waits on a
backend that holds for 30 seconds (the install must stop it, not wait for its end: the wrapper never gets to
write that it ended), and the backend killed (SIGKILL) under the install. Each leaves no receipt, no process of
the backend's group, ``probe`` saying what is there, and the command the install printed, run exactly as printed,
completes it; the early path's answer is the slow path's.
The cases share a world per path and backend (``tests/cli/test_install_early_hostile.py``'s ``worlds``: the
plan kept once), each arming a fresh copy of the empty venv of its own.
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
from tests.cli.test_install_early import venv_told  # noqa: F401
from tests.cli.test_install_early_hostile import Hostile, Worlds, _wait_for, cases, worlds  # noqa: F401
from tests.support.env import bin_dir

pytestmark = pytest.mark.slow


#: Two signals back to back: every pair of SIGINT (Ctrl-C) and SIGTERM (a CI runner's cancel, ``kill``).
PAIRS = {
    "int-int": (signal.SIGINT, signal.SIGINT),
    "int-term": (signal.SIGINT, signal.SIGTERM),
    "term-int": (signal.SIGTERM, signal.SIGINT),
    "term-term": (signal.SIGTERM, signal.SIGTERM),
}
#: Seconds between the two: at once, inside the first one's handling, inside the backend's grace period.
GAPS = (0.0, 0.01, 0.05)


def _started(hostile: Hostile, venv: Path, env: dict[str, str], point: str = "hold") -> subprocess.Popen[str]:
    for name in ("uv.log.done", "uv.log.waiting", "uv.log.pid"):
        (hostile.root / name).unlink(missing_ok=True)
    hostile.flag(point)
    proc = subprocess.Popen(hostile.argv(venv), env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    _wait_for(hostile.root / ("uv.log.waiting" if point == "hold" else "uv.log.done"))
    time.sleep(0.3)
    return proc


def _slept(hostile: Hostile) -> list[str]:
    """The backends (by process id) that held on to their end (the install did not stop them)."""
    path = hostile.root / "uv.log.slept"
    return path.read_text(encoding="utf-8").split() if path.exists() else []


def _group(pgid: int) -> list[int]:
    """The live processes (zombies aside) of the process group *pgid*."""
    members = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rpartition(")")[2].split()
        except OSError:  # ended meanwhile
            continue
        if int(fields[2]) == pgid and fields[0] != "Z":
            members.append(int(entry.name))
    return members


def _rerun_as_printed(hostile: Hostile, venv: Path, env: dict[str, str], document: dict[str, object]) -> None:
    """The rerun command of the interrupted install's JSON document, run exactly as printed from the project's
    folder (where remedies are run, as the remedy walker runs them), completes it."""
    error = document["error"]
    assert isinstance(error, dict)
    commands = error["remedy_argv"]
    assert commands, "an interrupted install prints the command that completes it"
    path = {**env, "PATH": f"{bin_dir()}{os.pathsep}{env.get('PATH', '')}"}
    for argv in commands:
        done = subprocess.run(
            argv, cwd=hostile.project, env=path, capture_output=True, text=True, check=False, timeout=120
        )
        assert done.returncode == 0, (argv, done.stdout, done.stderr)
    assert hostile.present(venv) == "present"
    assert (venv / "tierlock" / "receipts" / "brain.json").is_file()


def _completes(hostile: Hostile, venv: Path, env: dict[str, str]) -> None:
    hostile.flag("hold", on=False)
    code, doc, _runs = hostile.arm(venv, env=env)
    assert code == 0, doc
    assert hostile.present(venv) == "present"
    assert (venv / "tierlock" / "receipts" / "brain.json").is_file()


@pytest.mark.parametrize("early", [True, False], ids=["early", "slow-path"])
@pytest.mark.parametrize(
    "signals",
    [(signal.SIGINT,), (signal.SIGTERM,), *PAIRS.values()],
    ids=["sigint", "sigterm", *(f"{name}-back-to-back" for name in PAIRS)],
)
def test_an_interrupt_while_the_watcher_waits_stops_the_backend_without_waiting_for_its_end(
    cases: Worlds, early: bool, signals: tuple[signal.Signals, ...]
) -> None:
    hostile, env = cases[early]
    venv = hostile.next_case(early)
    before = len(hostile.runs())
    proc = _started(hostile, venv, env)
    pgid = int((hostile.root / "uv.log.pid").read_text())
    for signum in signals:
        proc.send_signal(signum)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert json.loads(out)["error"]["exit_code"] == 130
    assert hostile.runs()[before:] == ["early" if early else "own"]
    assert not (hostile.root / "uv.log.done").exists(), "the install waited for the backend's own end"
    assert _group(pgid) == [], "the backend's process group outlived the install"
    assert not (venv / "tierlock" / "receipts" / "brain.json").exists()
    assert hostile.present(venv) == "absent"
    _completes(hostile, venv, env)


@pytest.mark.parametrize("gap", GAPS, ids=[f"{int(g * 1000)}ms" for g in GAPS])
@pytest.mark.parametrize("pair", list(PAIRS), ids=list(PAIRS))
@pytest.mark.parametrize("early", [True, False], ids=["early", "slow-path"])
def test_a_second_signal_during_the_cleanup_of_the_first_leaves_no_backend_and_the_printed_rerun_completes_it(
    cases: Worlds, early: bool, pair: str, gap: float
) -> None:
    hostile, env = cases[early]
    venv = hostile.next_case(early)
    before = len(hostile.runs())
    proc = _started(hostile, venv, env, point="half")  # one root of the tier installed, the backend holding on
    pgid = int((hostile.root / "uv.log.pid").read_text())
    first, second = PAIRS[pair]
    proc.send_signal(first)
    time.sleep(gap)
    proc.send_signal(second)
    out, err = proc.communicate(timeout=60)
    hostile.flag("half", on=False)
    assert proc.returncode == 130, err
    document = json.loads(out)
    assert document["error"]["exit_code"] == 130, err
    assert hostile.runs()[before:] == ["early" if early else "own"]
    assert str(pgid) not in _slept(hostile), "the install waited for the backend's own end"
    assert _group(pgid) == [], "the backend's process group outlived the install"
    assert not (venv / "tierlock" / "receipts" / "brain.json").exists()
    assert hostile.present(venv) == "partial"
    _rerun_as_printed(hostile, venv, env, document)


@pytest.mark.parametrize("early", [True, False], ids=["early", "slow-path"])
def test_the_backend_killed_under_a_watched_install_is_a_failed_backend_and_the_same_command_completes_it(
    cases: Worlds, early: bool
) -> None:
    hostile, env = cases[early]
    venv = hostile.next_case(early)
    proc = _started(hostile, venv, env)
    os.kill(int((hostile.root / "uv.log.pid").read_text()), signal.SIGKILL)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 3, (out, err)
    doc = json.loads(out)
    assert doc["error"]["exit_code"] == 3
    assert not (venv / "tierlock" / "receipts" / "brain.json").exists()
    assert hostile.present(venv) == "absent"
    _completes(hostile, venv, env)
