"""Processes that escaped their command's group are found by the run's mark, ended and described.

Real processes started with and without the mark (one in a new session, one that ignores SIGTERM), and a
made-up ``/proc`` for what cannot be read.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tierlock.evidence import RUN_MARK, escapees

SLEEP = "import time; time.sleep(60)"
STUBBORN = (
    "import signal, sys, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); open(sys.argv[1], 'w'); time.sleep(60)"
)


@pytest.fixture
def started() -> Iterator[list[subprocess.Popen[bytes]]]:
    procs: list[subprocess.Popen[bytes]] = []
    yield procs
    for proc in procs:
        proc.kill()
        proc.wait()


def _start(procs: list[subprocess.Popen[bytes]], code: str, mark: str | None, *args: str) -> subprocess.Popen[bytes]:
    env = dict(os.environ)
    env.pop(RUN_MARK, None)
    if mark is not None:
        env[RUN_MARK] = mark
    proc = subprocess.Popen([sys.executable, "-c", code, *args], env=env, start_new_session=True)
    procs.append(proc)
    return proc


def test_only_processes_with_this_runs_mark_are_found(started: list[subprocess.Popen[bytes]]) -> None:
    mine = _start(started, SLEEP, "run-a")
    _start(started, SLEEP, "run-b")
    _start(started, SLEEP, None)
    assert escapees.find("run-a") == [mine.pid]
    assert escapees.find("run-") == []  # the whole value, not a prefix


def test_found_processes_are_ended_and_described(started: list[subprocess.Popen[bytes]], tmp_path: Path) -> None:
    ready = tmp_path / "ready"
    polite = _start(started, SLEEP, "run-c")
    stubborn = _start(started, STUBBORN, "run-c", str(ready))
    while not ready.exists():
        time.sleep(0.01)
    found = escapees.end("run-c", 0.2, lambda text: text.upper())
    assert sorted(e["pid"] for e in found or []) == sorted([polite.pid, stubborn.pid])
    assert all(e["stopped"] for e in found or [])
    assert all("IMPORT" in e["command"] for e in found or [])  # the command line, through the redaction given
    assert polite.wait(5) is not None
    assert stubborn.wait(5) is not None
    assert escapees.end("run-c", 0.2) == []


#: On SIGTERM, takes 0.3 s to clean up (writes argv[1]), then exits.
TIDY = """\
import signal, sys, time
def tidy(signum, frame):
    time.sleep(0.3)
    open(sys.argv[1], "w").write("tidied")
    raise SystemExit(0)
signal.signal(signal.SIGTERM, tidy)
open(sys.argv[2], "w")
time.sleep(60)
"""


def test_an_escaped_process_gets_the_grace_period_to_end_on_sigterm_before_sigkill(
    started: list[subprocess.Popen[bytes]], tmp_path: Path
) -> None:
    tidied, ready = tmp_path / "tidied", tmp_path / "ready"
    proc = _start(started, TIDY, "run-d", str(tidied), str(ready))
    while not ready.exists():
        time.sleep(0.01)
    [found] = escapees.end("run-d", 5.0) or []
    assert (found["pid"], found["stopped"]) == (proc.pid, True)
    assert tidied.read_text() == "tidied"
    assert proc.wait(5) == 0


def test_without_a_proc_folder_nothing_can_be_looked_for(tmp_path: Path) -> None:
    assert escapees.find("run", proc=str(tmp_path / "no-proc")) is None
    fake = tmp_path / "proc"
    for name, environ in (("12", b"A=1\0" + RUN_MARK.encode() + b"=run\0"), ("13", None), ("self", b"")):
        (fake / name).mkdir(parents=True)
        if environ is not None:
            (fake / name / "environ").write_bytes(environ)
    assert escapees.find("run", proc=str(fake)) == [12]
