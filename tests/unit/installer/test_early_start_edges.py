"""The early backend's edges (``tierlock.earlyarm``): a start that fails part-way leaves nothing held, the install
takes a backend over at most once, and what the end of the command does with one nobody took over.

Real plans kept by hand, real processes (this interpreter), real locks in ``tmp_path``; the helpers that keep a
plan are ``test_early_plan.py``'s.
"""

from __future__ import annotations

import fcntl
import marshal
import os
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.unit.installer.test_early_plan import _early, _keep, _mine, _venv
from tierlock import earlyarm, subproc
from tierlock.exitcodes import EXIT_INTERRUPTED


@pytest.fixture(autouse=True)
def _no_early_left() -> Iterator[None]:
    yield
    earlyarm.finish(0)


def _free(venv: Path) -> bool:
    """Whether another process could take the install lock of *venv* now."""
    fd = os.open(venv / "tierlock" / "install.lock", os.O_RDWR)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return False
    finally:
        os.close(fd)
    return True


def _plan(tmp_path: Path) -> Path:
    return next((tmp_path / "cache").glob("arms-*"))


def test_a_backend_that_cannot_start_leaves_no_early_start_no_scratch_folder_and_the_lock_free(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    venv = _venv(tmp_path)
    argv = _keep(tmp_path, monkeypatch, venv)
    entry = marshal.loads(_plan(tmp_path).read_bytes())
    entry["command"]["argv"][0] = str(tmp_path / "no-such-backend")
    _plan(tmp_path).write_bytes(marshal.dumps(entry))
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    monkeypatch.setenv("TMPDIR", str(scratch))
    assert earlyarm.start(argv) is None
    assert earlyarm.current == []
    assert _free(venv), "the lock taken for the early start was let go"
    assert list(scratch.iterdir()) == []


def test_anything_unexpected_while_checking_a_plan_is_no_early_start(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    venv = _venv(tmp_path)
    argv = _keep(tmp_path, monkeypatch, venv)

    def broken(*_args: object) -> None:
        raise RuntimeError("a plan of another shape")

    monkeypatch.setattr(earlyarm, "find", broken)
    assert earlyarm.start(argv) is None
    assert earlyarm.current == []


def test_a_plan_whose_facts_outside_the_target_changed_starts_nothing_even_when_the_target_matches(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    venv = _venv(tmp_path)
    argv = _keep(tmp_path, monkeypatch, venv)
    entry = marshal.loads(_plan(tmp_path).read_bytes())
    entry["outer"]["env"] = {"TIERLOCK_TEST_KEPT_VARIABLE": "as it was"}  # unset now
    _plan(tmp_path).write_bytes(marshal.dumps(entry))
    monkeypatch.delenv("TIERLOCK_TEST_KEPT_VARIABLE", raising=False)
    assert earlyarm.start(argv) is None
    assert earlyarm.current == []
    assert not (venv / "tierlock").exists(), "nothing was made in the target for a plan that does not hold"


def test_a_lock_held_by_another_is_no_lock_for_the_early_start(tmp_path: Path) -> None:
    (tmp_path / "tierlock").mkdir()
    fd = os.open(tmp_path / "tierlock" / "install.lock", os.O_RDWR | os.O_CREAT, 0o644)
    fcntl.flock(fd, fcntl.LOCK_EX)
    try:
        assert earlyarm._lock(str(tmp_path)) is None
    finally:
        os.close(fd)
    taken = earlyarm._lock(str(tmp_path))
    assert taken is not None
    os.close(taken)


def test_with_no_backend_started_early_the_install_takes_nothing_over(tmp_path: Path) -> None:
    argv, path = _mine(tmp_path, b"a==1\n")
    assert earlyarm.current == []
    assert earlyarm.adopt(argv, path) is None


def test_a_backend_is_taken_over_once_and_its_plan_kept(tmp_path: Path) -> None:
    plan = tmp_path / "arms-x.marshal"
    plan.write_bytes(b"kept")
    early = _early(tmp_path, b"a==1\n")
    early.plan = str(plan)
    argv, path = _mine(tmp_path, b"a==1\n")
    proc = earlyarm.adopt(argv, path)
    assert proc is not None
    assert proc is early.proc
    assert earlyarm.adopt(argv, path) is None, "a second backend step starts its own"
    proc.communicate(timeout=60)
    earlyarm.finish(0)
    assert plan.exists(), "the plan that led to the install's own command stays"
    assert not Path(early.folder).exists()


def _ended(pid: int) -> None:
    """Wait for process *pid* to end, leaving it to be reaped by its owner."""
    os.waitid(os.P_PID, pid, os.WEXITED | os.WNOWAIT)


def test_a_backend_nobody_took_over_is_waited_for_at_the_end_and_counted_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[tuple[str, ...]] = []
    monkeypatch.setattr(subproc, "observers", [seen.append])
    early = _early(tmp_path, b"a==1\n")
    assert early.proc is not None
    _ended(early.proc.pid)
    earlyarm.finish(0)
    assert early.proc.returncode == 0
    assert seen == [tuple(early.argv)]
    assert earlyarm.current == []


def test_at_the_end_of_a_command_that_succeeded_a_running_backend_is_waited_for_not_stopped(tmp_path: Path) -> None:
    early = _early(tmp_path, b"a==1\n", code="import time; time.sleep(0.5); print('done')")
    earlyarm.finish(0)
    assert early.proc is not None
    assert early.proc.returncode == 0, "it ran to its end"


def test_at_the_end_of_an_interrupted_command_a_running_backend_is_stopped(tmp_path: Path) -> None:
    early = _early(tmp_path, b"a==1\n", code="import time; time.sleep(60)")
    started = time.monotonic()
    earlyarm.finish(EXIT_INTERRUPTED)
    assert early.proc is not None
    assert early.proc.returncode not in (None, 0)
    assert time.monotonic() - started < 30
    assert sys.modules["tierlock.earlyarm"].current == []
