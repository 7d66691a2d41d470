"""The light process start (``tierlock.spawning``): a real process started on ``os`` alone, then handled as a
``subprocess.Popen`` - its output read, its exit code, stopped with its group - as one ``subproc`` started."""

from __future__ import annotations

import os
import signal
import sys
import time
from pathlib import Path

import pytest

from tierlock import spawning, subproc
from tierlock.errors import BackendError

PRINTS = "import sys; print('out line'); print('err line', file=sys.stderr); sys.exit(3)"


def test_a_spawned_process_handed_over_gives_its_output_and_exit_code_as_one_started_by_subproc() -> None:
    argv = [sys.executable, "-c", PRINTS]
    proc = spawning.as_popen(argv, spawning.spawn(argv, capture=True))
    result = subproc.run(argv, what="test", check=False, started=proc)
    assert (result.returncode, result.stdout, result.stderr) == (3, "out line\n", "err line\n")


def test_its_lines_are_read_as_they_come_when_the_install_streams_them() -> None:
    argv = [sys.executable, "-c", PRINTS]
    lines: list[str] = []
    proc = spawning.as_popen(argv, spawning.spawn(argv, capture=True))
    result = subproc.run(argv, what="test", check=False, started=proc, on_line=lines.append)
    assert sorted(lines) == ["err line", "out line"]
    assert result.returncode == 3


def test_it_runs_in_its_own_process_group_with_no_input() -> None:
    code = "import os, sys; print(os.getpgid(0) == os.getpid(), sys.stdin.read() == '')"
    argv = [sys.executable, "-c", code]
    proc = spawning.as_popen(argv, spawning.spawn(argv, capture=True))
    out, _ = proc.communicate(timeout=60)
    assert out.split() == ["True", "True"]


def test_the_signals_the_interpreter_ignores_are_at_their_defaults_in_the_started_program() -> None:
    argv = ["grep", "SigIgn", "/proc/self/status"]  # a program that leaves its signals as it found them
    proc = spawning.as_popen(argv, spawning.spawn(argv, capture=True))
    out, _ = proc.communicate(timeout=60)
    ignored = int(out.split()[1], 16)
    assert ignored & (1 << (signal.SIGPIPE - 1)) == 0
    assert ignored & (1 << (signal.SIGXFSZ - 1)) == 0


def test_without_capture_its_input_and_output_are_the_null_device_whatever_the_callers_are(tmp_path: Path) -> None:
    """No pipes of its own (its ends -1), its input, output and errors the null device: not the caller's input
    (here a pipe), nor the caller's terminal."""
    said = tmp_path / "said"
    code = (
        "import os; null = os.stat(os.devnull); "
        f"open({str(said)!r}, 'w').write(' '.join(str(os.path.samestat(os.fstat(fd), null)) for fd in (0, 1, 2)))"
    )
    read, write = os.pipe()
    saved = os.dup(0)
    try:
        os.dup2(read, 0)  # (the caller's input a pipe while the process starts)
        spawned = spawning.spawn([sys.executable, "-c", code])
    finally:
        os.dup2(saved, 0)
        for fd in (saved, read, write):
            os.close(fd)
    assert os.waitstatus_to_exitcode(os.waitpid(spawned.pid, 0)[1]) == 0
    assert said.read_text() == "True True True"
    assert (spawned.out, spawned.err) == (-1, -1)


def test_a_process_handed_over_has_no_input_pipe_of_the_callers() -> None:
    argv = [sys.executable, "-c", "pass"]
    proc = spawning.as_popen(argv, spawning.spawn(argv, capture=True))
    assert proc.stdin is None
    assert proc.communicate(timeout=60) == ("", "")


def test_the_folder_and_environment_given_are_the_processes_and_the_callers_folder_is_kept(tmp_path: Path) -> None:
    out = tmp_path / "out.txt"
    code = f"import os; open({str(out)!r}, 'w').write(os.getcwd() + '|' + os.environ.get('SPAWN_TEST', ''))"
    here = os.getcwd()
    pid = spawning.spawn([sys.executable, "-c", code], cwd=str(tmp_path), env={"SPAWN_TEST": "given"}).pid
    assert os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) == 0
    assert out.read_text() == f"{tmp_path}|given"
    assert os.getcwd() == here


def test_a_program_that_does_not_exist_raises_and_leaves_no_descriptor_open(tmp_path: Path) -> None:
    before = set(os.listdir("/proc/self/fd"))
    with pytest.raises(FileNotFoundError):
        spawning.spawn([str(tmp_path / "no-such-program")], capture=True)
    with pytest.raises(FileNotFoundError):
        spawning.spawn(["tierlock-no-such-program-on-path"], capture=True)
    assert set(os.listdir("/proc/self/fd")) == before


def test_a_handed_over_process_is_stopped_with_its_group_by_subproc() -> None:
    argv = [sys.executable, "-c", "import time; time.sleep(60)"]
    proc = spawning.as_popen(argv, spawning.spawn(argv, capture=True))
    started = time.monotonic()
    subproc.stop(proc, grace=5)
    assert proc.returncode in (-signal.SIGINT, 1)  # KeyboardInterrupt in the child
    assert time.monotonic() - started < 30
    with pytest.raises(ProcessLookupError):
        os.killpg(proc.pid, 0)


def test_a_handed_over_process_that_fails_raises_through_subproc_with_its_tail_redacted() -> None:
    said = "import sys; print('out'); sys.stderr.write('https://me:hunter2secret@index.example failed'); sys.exit(3)"
    argv = [sys.executable, "-c", said]
    proc = spawning.as_popen(argv, spawning.spawn(argv, capture=True))
    subproc._live[proc.pid] = proc
    with pytest.raises(BackendError) as caught:
        subproc.run(argv, what="asking", started=proc)
    assert "asking failed (exit 3)" in str(caught.value)
    assert caught.value.detail is not None
    assert "failed" in caught.value.detail
    assert "hunter2secret" not in caught.value.detail
    assert proc.pid not in subproc._live


def test_a_handed_over_process_interrupted_while_read_is_ended(monkeypatch: pytest.MonkeyPatch) -> None:
    argv = [sys.executable, "-c", "import time; time.sleep(60)"]
    proc = spawning.as_popen(argv, spawning.spawn(argv, capture=True))
    calls = [0]
    real = proc.communicate

    def interrupted(input: str | None = None, timeout: float | None = None) -> tuple[str, str]:
        calls[0] += 1
        if calls[0] == 1:
            raise KeyboardInterrupt
        return real(input, timeout)

    monkeypatch.setattr(proc, "communicate", interrupted)
    with pytest.raises(KeyboardInterrupt):
        subproc.run(argv, what="asking", started=proc)
    assert proc.returncode in (-signal.SIGINT, -signal.SIGKILL, 1)


def test_the_read_ends_of_its_pipes_are_not_inherited_by_a_process_started_later() -> None:
    argv = [sys.executable, "-c", "import sys; sys.stdout.write('x')"]
    spawned = spawning.spawn(argv, capture=True)
    assert not os.get_inheritable(spawned.out)
    assert not os.get_inheritable(spawned.err)
    proc = spawning.as_popen(argv, spawned)
    assert proc.communicate(timeout=60) == ("x", "")


def test_a_process_handed_over_late_is_timed_from_its_own_start_not_from_the_takeover() -> None:
    argv = [sys.executable, "-c", "import time; time.sleep(0.3)"]
    spawned = spawning.spawn(argv, capture=True)
    time.sleep(0.4)  # the install reaches its backend step after the early backend has ended
    before_takeover = time.perf_counter()
    result = subproc.run(argv, what="test", check=False, started=spawning.as_popen(argv, spawned))
    since_takeover = time.perf_counter() - before_takeover
    assert result.seconds >= 0.4, "timed from the spawn, the wait for the takeover included"
    assert result.seconds > since_takeover + 0.3


def test_a_process_subproc_starts_itself_is_timed_from_its_start_to_its_end() -> None:
    result = subproc.run([sys.executable, "-c", "import time; time.sleep(0.3)"], what="test")
    assert 0.3 <= result.seconds < 30


def _seen_ended(spawned: spawning.Spawned) -> float:
    """When the watcher saw *spawned* end (waited for: at most a minute), then a while later: the takeover's time."""
    deadline = time.monotonic() + 60
    while spawned.ended is None and time.monotonic() < deadline:
        time.sleep(0.01)
    assert spawned.ended is not None, "the watcher never saw the process end"
    time.sleep(0.3)  # the install reaches its backend step long after the early backend ended
    return time.perf_counter()


def test_a_watched_process_handed_over_late_is_timed_to_its_own_end_not_to_the_takeover() -> None:
    # (the times compared are those the run noted, in order: no bound on how long anything took on this machine)
    argv = [sys.executable, "-c", "import time; time.sleep(0.3)"]
    spawned = spawning.spawn(argv, capture=True)
    spawning.watch(spawned)
    takeover = _seen_ended(spawned)
    result = subproc.run(argv, what="test", check=False, started=spawning.as_popen(argv, spawned))
    assert result.returncode == 0, "the watcher did not reap it: its starter still reads its exit code"
    assert spawned.ended is not None
    assert result.seconds == spawned.ended - spawned.began, "from its start to its own end"
    assert 0.3 <= result.seconds < takeover - spawned.began, "the wait for the takeover left out"


def test_watching_a_process_its_starter_reaped_already_notes_no_end() -> None:
    spawned = spawning.spawn([sys.executable, "-c", "pass"])
    assert os.waitstatus_to_exitcode(os.waitpid(spawned.pid, 0)[1]) == 0
    spawning.watch(spawned)
    time.sleep(0.2)
    assert spawned.ended is None


def test_a_watcher_that_cannot_start_leaves_the_process_to_its_starter_and_timed_to_the_takeover(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A thread that cannot be started (a container's process limit): the install goes on, only less finely timed."""
    import _thread

    def no_thread(*_args: object) -> int:
        raise RuntimeError("can't start new thread")

    argv = [sys.executable, "-c", "pass"]
    spawned = spawning.spawn(argv, capture=True)
    monkeypatch.setattr(_thread, "start_new_thread", no_thread)
    spawning.watch(spawned)
    monkeypatch.undo()
    result = subproc.run(argv, what="test", check=False, started=spawning.as_popen(argv, spawned))
    assert (result.returncode, spawned.ended) == (0, None)
    assert result.seconds > 0


def test_a_watched_process_killed_gives_its_signal_as_its_exit_code_and_its_own_time() -> None:
    argv = [sys.executable, "-c", "import time; time.sleep(30)"]
    spawned = spawning.spawn(argv, capture=True)
    spawning.watch(spawned)
    os.kill(spawned.pid, signal.SIGKILL)  # the backend killed (the OOM killer, a user)
    takeover = _seen_ended(spawned)
    result = subproc.run(argv, what="test", check=False, started=spawning.as_popen(argv, spawned))
    assert result.returncode == -signal.SIGKILL
    assert spawned.ended is not None
    assert 0 < result.seconds == spawned.ended - spawned.began < takeover - spawned.began
