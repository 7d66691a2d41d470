"""A command's whole process group is stopped (SIGTERM, then SIGKILL), and the run still ends.

Real commands, real process groups: a grandchild that ignores SIGTERM, a member left as a zombie by a
parent that moved to another group, and a command whose end the live view is asked to show.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from tests.support.gitrepo import check, make_repo, verify_json
from tierlock.evidence.steps import Step
from tierlock.evidence.verify import Options, execute, prepare

#: Starts a grandchild that ignores SIGTERM; once it has said so (its pid in argv[1]), exits 0 or sleeps (argv[2]).
STUBBORN = """\
import os, subprocess, sys, time
code = "import os, signal, sys, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); " \\
    "open(sys.argv[1] + '.tmp', 'w').write(str(os.getpid())); os.rename(sys.argv[1] + '.tmp', sys.argv[1]); " \\
    "time.sleep(120)"
grandchild = subprocess.Popen([sys.executable, "-c", code, sys.argv[1]])
while not os.path.exists(sys.argv[1]):
    time.sleep(0.01)
if sys.argv[2] == "sleep":
    time.sleep(30)
"""
#: A process that leaves the command's group, keeping a child in it that it never reaps: once the group is
#: killed, that child is a zombie member of the group for as long as its parent lives (30 s, then it says so).
HOLDER = """\
import os, subprocess, sys, time
member = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
os.setpgid(0, 0)
with open(sys.argv[1] + ".tmp", "w") as handle:
    handle.write(f"{os.getpid()} {member.pid}")
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
time.sleep(30)
open(sys.argv[1] + ".ended", "w").close()
"""
#: Starts HOLDER, waits until it has left the group, exits 0.
LEAVE_HOLDER = """\
import os, subprocess, sys, time
subprocess.Popen([sys.executable, "holder.py", sys.argv[1]])
while not os.path.exists(sys.argv[1]):
    time.sleep(0.01)
"""
#: Exits 0 once the file argv[1] appears (the live view makes it on a tick), 1 after 60 s without it.
UNTIL_TICK = """\
import os, sys, time
for _ in range(6000):
    if os.path.exists(sys.argv[1]):
        raise SystemExit(0)
    time.sleep(0.01)
raise SystemExit(1)
"""


pytestmark = pytest.mark.usefixtures("git_identity")


def _alive(pid: int) -> bool:
    """Whether *pid* runs (a zombie does not: it only waits for its reaper)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def _kill(pids: list[int]) -> None:
    for pid in pids:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)


def _pids(path: Path) -> list[int]:
    return [int(p) for p in path.read_text().split()] if path.exists() else []


def test_a_grandchild_that_ignores_sigterm_left_behind_by_a_passing_command_is_killed(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    pid_file = tmp_path / "grandchild"
    repo = make_repo(tmp_path / "r", {"stubborn.py": STUBBORN}, [check("leave", "stubborn.py", str(pid_file), "exit")])
    try:
        code, doc = verify_json(capsys, repo)
        [grandchild] = _pids(pid_file)
        assert not _alive(grandchild), "a process the command left behind outlived the run"
    finally:
        _kill(_pids(pid_file))
    assert (code, doc["result"], doc["commands"][0]["status"]) == (0, "passed", "passed")


def test_a_timeout_of_1500_ms_stops_a_group_that_ignores_sigterm_and_the_blocker_says_1_5_s(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    pid_file = tmp_path / "grandchild"
    repo = make_repo(
        tmp_path / "r",
        {"stubborn.py": STUBBORN},
        [check("slow", "stubborn.py", str(pid_file), "sleep", timeoutMs=1500)],
    )
    try:
        code, doc = verify_json(capsys, repo)
        [grandchild] = _pids(pid_file)
        assert not _alive(grandchild), "a process of the timed-out group outlived the run"
    finally:
        _kill(_pids(pid_file))
    assert (code, doc["result"], doc["commands"][0]["status"]) == (3, "blocked", "timed-out")
    assert doc["blocker"]["kind"] == "timeout"
    assert doc["blocker"]["reason"] == "slow ran longer than its timeoutMs (1.5 s); its process group was stopped"
    assert doc["blocker"]["requiredAction"] == "make it faster or raise timeoutMs of 'slow' in the runtime config"


def test_the_run_ends_while_a_killed_member_of_the_group_waits_for_a_parent_outside_it(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """A zombie keeps its group in existence until it is reaped: the stop gives up after SIGKILL instead of
    waiting for a parent that may never reap it (here one that lives on in another group, until the run
    ends it as a process that escaped its group)."""
    pid_file = tmp_path / "holder"
    repo = make_repo(
        tmp_path / "r",
        {"leave.py": LEAVE_HOLDER, "holder.py": HOLDER},
        [check("leave", "leave.py", str(pid_file))],
    )
    try:
        code, doc = verify_json(capsys, repo)
        holder, member = _pids(pid_file)
        ended = pid_file.with_name("holder.ended").exists()
        assert not ended, "the run waited until the process holding the killed member had ended"
        assert not _alive(holder)
        assert not _alive(member)
    finally:
        _kill(_pids(pid_file))
    assert (code, doc["result"]) == (0, "passed")
    assert [(e["pid"], e["stopped"]) for e in doc["escapedProcesses"]] == [(holder, True)]


class _Ticks:
    """A view that records the elapsed times it is shown and, on the first, makes the file the command waits for."""

    def __init__(self, go: Path) -> None:
        self.go = go
        self.elapsed: list[float] = []

    def started(self, step: Step) -> None:
        pass

    def tick(self, step: Step, elapsed: float) -> None:
        self.elapsed.append(elapsed)
        self.go.touch()

    def finished(self, step: Step, record: Mapping[str, Any]) -> None:
        pass

    def line(self, text: str, style: str | None = None) -> None:
        pass

    def close(self) -> None:
        pass


@pytest.mark.parametrize("timeout_ms", [None, 60000], ids=["no timeout", "a timeout"])
def test_the_view_is_told_the_elapsed_time_while_a_command_runs(tmp_path: Path, timeout_ms: int | None) -> None:
    go = tmp_path / "go"
    extra = {} if timeout_ms is None else {"timeoutMs": timeout_ms}
    repo = make_repo(tmp_path / "r", {"until_tick.py": UNTIL_TICK}, [check("wait", "until_tick.py", str(go), **extra)])
    ticks = _Ticks(go)
    started = time.monotonic()
    result = execute(prepare(Options(project=repo, grace=0.5)), ticks)
    assert result.document["commands"][0]["status"] == "passed", "the command never saw a tick of the view"
    assert ticks.elapsed
    assert all(0 < e <= time.monotonic() - started for e in ticks.elapsed)
    assert ticks.elapsed == sorted(ticks.elapsed)
