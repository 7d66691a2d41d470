"""The early backend's requirements file is gone once the backend has ended, even when the process ends without
:func:`tierlock.earlyarm.finish`; what a killed process left is removed by a later early start, and nothing else.

Real plans kept by hand (``test_early_plan.py``'s helpers), real processes, a temporary folder of the test's own
(``TMPDIR``).
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.unit.installer.test_early_plan import _keep, _venv
from tierlock import earlyarm, earlysweep


@pytest.fixture(autouse=True)
def _no_early_left() -> Iterator[None]:
    yield
    earlyarm.finish(0)


@pytest.fixture
def tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "tmp"
    folder.mkdir()
    monkeypatch.setenv("TMPDIR", str(folder))
    return folder


def test_the_requirements_file_is_removed_once_the_early_backend_has_ended_without_waiting_for_the_end(
    tmp_path: Path, tmp: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    venv = _venv(tmp_path)
    early = earlyarm.start(_keep(tmp_path, monkeypatch, venv))
    assert early is not None
    assert Path(early.file).parent == tmp
    proc = earlyarm.popen(early)
    assert proc is not None
    proc.communicate()
    deadline = time.monotonic() + 30
    while Path(early.file).exists() and time.monotonic() < deadline:
        time.sleep(0.01)  # (removed by the thread that saw it end)
    assert list(tmp.iterdir()) == []


#: A process that starts a backend early from the plan (kept by hand for its own ``sys.path``), waits for it and
#: ends without :func:`tierlock.earlyarm.finish` (an embedding caller, a test script).
ENDS_WITHOUT_FINISH = """import marshal, sys
from tierlock import armplan, earlyarm
kept = ["brain", "--python", "@T/bin/python"]
with open(sys.argv[1], "rb") as fh:
    entry = marshal.load(fh)
entry["who"] = armplan.who(kept)
with open(armplan.plan_path(armplan.folder(), kept), "wb") as fh:
    marshal.dump(entry, fh)
early = earlyarm.start(sys.argv[2:])
assert early is not None
earlyarm.popen(early).communicate()
"""


def test_a_process_that_ends_without_finishing_once_its_early_backend_ended_leaves_no_file(
    tmp_path: Path, tmp: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    venv = _venv(tmp_path)
    argv = _keep(tmp_path, monkeypatch, venv)
    plan = next((tmp_path / "cache").glob("arms-*"))
    done = subprocess.run(
        [sys.executable, "-c", ENDS_WITHOUT_FINISH, str(plan), *argv],
        env={**os.environ, "TMPDIR": str(tmp)},
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    deadline = time.monotonic() + 30
    while list(tmp.iterdir()) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert list(tmp.iterdir()) == []


def _dead_pid() -> int:
    proc = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True, check=True
    )
    return int(proc.stdout)


def _aged(path: Path, seconds: float = 120) -> Path:
    old = time.time() - seconds
    os.utime(path, (old, old), follow_symlinks=False)
    return path


def test_the_sweep_removes_only_old_files_and_folders_of_the_early_starts_form_of_processes_that_are_gone(
    tmp: Path,
) -> None:
    dead = _dead_pid()
    gone = tmp / f"tierlock-early-{dead}-0123456789ab.txt"
    gone.write_bytes(b"a==1\n")
    _aged(gone)
    folder = tmp / f"tierlock-early-{dead}-0123456789ab"
    folder.mkdir()
    (folder / "requirements.txt").write_bytes(b"a==1\n")
    _aged(folder)
    kept = {
        f"tierlock-early-{dead}-abcdef012345.txt": "young",  # its backend may still read it
        f"tierlock-early-{os.getpid()}-abcdef012345.txt": "a live process's",
        f"tierlock-early-{os.getppid()}-abcdef012345.txt": "another live process's",
        f"tierlock-early-{dead}-notes.txt": "not hex",
        f"tierlock-early-{dead}.txt": "no random part",
        f"tierlock-early-x{dead}-abcdef012345.txt": "not a process id",
        f"tierlock-early-{dead}-ABCDEF012345.txt": "upper case",
        f"tierlock-lock-{dead}-abcdef012345.txt": "another prefix",
    }
    for name, why in kept.items():
        (tmp / name).write_text(why, encoding="utf-8")
        if why != "young":
            _aged(tmp / name)
    link = tmp / f"tierlock-early-{dead}-fedcba987654.txt"
    target = tmp / "elsewhere"
    target.write_text("x", encoding="utf-8")
    link.symlink_to(target)
    _aged(link)
    _aged(target)
    txt_folder = tmp / f"tierlock-early-{dead}-fedcba987654a.txt"  # a folder named as a file: not ours
    txt_folder.mkdir()
    _aged(txt_folder)
    earlysweep.sweep(str(tmp))
    left = {p.name for p in tmp.iterdir()}
    assert gone.name not in left
    assert folder.name not in left
    assert left == {*kept, link.name, target.name, txt_folder.name}


def test_the_sweep_of_a_folder_that_cannot_be_listed_is_nothing(tmp_path: Path) -> None:
    earlysweep.sweep(str(tmp_path / "not-there"))


def test_an_old_folder_that_cannot_be_emptied_is_left_without_an_error(tmp: Path) -> None:
    folder = tmp / f"tierlock-early-{_dead_pid()}-0123456789ab"
    (folder / "inner").mkdir(parents=True)  # (an earlier version's folder holds files only: not ours to walk)
    (folder / "requirements.txt").write_bytes(b"a==1\n")
    _aged(folder)
    earlysweep.sweep(str(tmp))
    assert (folder / "inner").is_dir()


def test_a_file_of_a_process_of_another_user_is_kept(tmp: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pid = _dead_pid()
    path = tmp / f"tierlock-early-{pid}-0123456789ab.txt"
    path.write_bytes(b"a==1\n")
    _aged(path)

    def kill(to: int, signal: int) -> None:
        raise PermissionError(1, "not permitted")  # (a process there, of another user)

    monkeypatch.setattr(os, "kill", kill)
    earlysweep.sweep(str(tmp))
    assert path.exists()


def test_an_entry_gone_between_the_listing_and_its_look_up_is_passed_over(
    tmp: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    dead = _dead_pid()
    gone = tmp / f"tierlock-early-{dead}-0123456789ab.txt"
    old = tmp / f"tierlock-early-{dead}-abcdef012345.txt"
    for path in (gone, old):
        path.write_bytes(b"a==1\n")
        _aged(path)
    real = os.lstat

    def lstat(path: str) -> os.stat_result:
        if path == str(gone):
            raise FileNotFoundError(2, "removed meanwhile")
        return real(path)

    monkeypatch.setattr(os, "lstat", lstat)
    earlysweep.sweep(str(tmp))
    assert gone.exists()
    assert not old.exists()
