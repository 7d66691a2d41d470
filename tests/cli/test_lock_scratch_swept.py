"""The scratch folders of a ``tierlock lock`` killed outright (SIGKILL) are removed by a later lock, the safe way.

A killed lock removes nothing: its ``tierlock-lock-PID-*`` folders stay in the temporary folder. The next lock that
runs in full removes, as it ends, the folders of that form whose process id no process has now, once they are an
hour old (:func:`tierlock.earlysweep.sweep_locks`); a younger one, a live process's, another user's, a link, a
file, and one named without a process id (an earlier version's) stay.

The index is a local server that accepts connections and never answers, so ``uv pip compile`` is still waiting on
it when tierlock is killed (the test's own TMPDIR; the backends it left are ended by the test).
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from tests.cli.test_lock_interrupt import _processes_mentioning, lock_run, silent_index  # noqa: F401 (a fixture)
from tierlock import earlysweep


def _dead_pid() -> int:
    done = subprocess.run(["sh", "-c", "echo $$"], capture_output=True, text=True, check=True)
    return int(done.stdout)


def _aged(path: Path, seconds: float = earlysweep.LOCK_STALE_S + 60) -> None:
    old = time.time() - seconds
    os.utime(path, (old, old), follow_symlinks=False)


def _lock_left(tmp: Path) -> set[str]:
    return {p.name for p in tmp.iterdir() if p.name.startswith("tierlock-lock-")}


def test_a_lock_killed_outright_leaves_scratch_folders_a_later_lock_removes_once_they_are_old(
    tmp_path: Path,
    silent_index: str,  # noqa: F811 (the fixture)
) -> None:
    argv, env, tmp = lock_run(tmp_path, silent_index)
    proc = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and len(_processes_mentioning(silent_index)) < 4:
            time.sleep(0.1)  # tierlock itself, then a backend for each of the three tiers, waiting on the index
        assert len(_processes_mentioning(silent_index)) >= 4, "the backends did not start"
        proc.send_signal(signal.SIGKILL)
        proc.communicate(timeout=60)
    finally:
        for pid in _processes_mentioning(silent_index):  # (the backends the killed lock left running: ours)
            os.kill(pid, signal.SIGKILL)
    left = _lock_left(tmp)
    assert len(left) == 3, left  # one for each tier's compile
    assert all(name.startswith(f"tierlock-lock-{proc.pid}-") for name in left), left

    dead = _dead_pid()
    others = {
        f"tierlock-lock-{os.getpid()}-abcdefgh": "a live process's",
        "tierlock-lock-abcdefgh": "an earlier version's: no process id",
        f"tierlock-lock-kept-{dead}-0123456789ab": "a dead process's kept compile",
        f"tierlock-lock-early-{dead}-a_b1c2d3": "a dead process's early compile",
    }
    for name in others:
        (tmp / name).mkdir()
        (tmp / name / "requirements.in").write_text("alpha\n", encoding="utf-8")
    (tmp / f"tierlock-lock-{dead}-filename").write_text("not a folder\n", encoding="utf-8")
    (tmp / f"tierlock-lock-{dead}-linkname").symlink_to(tmp_path / "proj")
    quick = {**env, "UV_HTTP_TIMEOUT": "1", "UV_HTTP_RETRIES": "0"}

    gave_up = subprocess.run(argv, env=quick, capture_output=True, text=True, check=False)
    assert gave_up.returncode == 3, gave_up.stdout + gave_up.stderr
    assert left <= _lock_left(tmp), "young: kept (a compile the killed lock left may still write there)"

    for name in _lock_left(tmp):
        _aged(tmp / name)
    again = subprocess.run(argv, env=quick, capture_output=True, text=True, check=False)
    assert again.returncode == 3, again.stdout + again.stderr
    assert _lock_left(tmp) == {
        f"tierlock-lock-{os.getpid()}-abcdefgh",
        "tierlock-lock-abcdefgh",
        f"tierlock-lock-{dead}-filename",
        f"tierlock-lock-{dead}-linkname",
    }
    assert (tmp_path / "proj" / "pyproject.toml").is_file(), "a link is removed, never followed"


@pytest.mark.parametrize("uid", [0, 1])
def test_an_old_lock_folder_of_a_dead_process_is_removed_only_when_it_is_this_users(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, uid: int
) -> None:
    folder = tmp_path / f"tierlock-lock-{_dead_pid()}-abcdefgh"
    (folder / "inner").mkdir(parents=True)
    (folder / "inner" / "out.txt").write_text("x\n", encoding="utf-8")
    _aged(folder)
    monkeypatch.setattr(os, "getuid", lambda: os.lstat(folder).st_uid + uid)
    earlysweep.sweep_locks(str(tmp_path))
    assert folder.exists() is bool(uid)


def test_a_lock_folder_named_unlike_tierlocks_is_kept_and_one_that_cannot_be_removed_does_not_stop_the_sweep(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    dead = _dead_pid()
    doomed = [tmp_path / f"tierlock-lock-{dead}-aaaaaaaa", tmp_path / f"tierlock-lock-{dead}-bbbbbbbb"]
    unlike = [tmp_path / f"tierlock-lock-{dead}-ABCDEFGH", tmp_path / f"tierlock-lock-{dead}-abc.defg"]
    for folder in (*doomed, *unlike):
        folder.mkdir()
        (folder / "out.txt").write_text("x\n", encoding="utf-8")
        _aged(folder)
    real = os.unlink
    failed: list[str] = []

    def unlink(path: str, *args: object, **kwargs: object) -> None:
        if not failed:  # (the first file removed, whichever folder it is in: a file that cannot be removed)
            failed.append(path)
            raise PermissionError(1, "not permitted")
        real(path, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "unlink", unlink)
    earlysweep.sweep_locks(str(tmp_path))
    assert failed
    assert all(folder.is_dir() for folder in unlike)
    assert sum(folder.exists() for folder in doomed) == 1, "the other one is removed"
