"""The early backend's edges (``tierlock.earlyarm``): a start that fails part-way leaves nothing held, the install
takes a backend over at most once, and what the end of the command does with one nobody took over.

Real plans kept by hand, real processes (this interpreter), real locks in ``tmp_path``; the helpers that keep a
plan are ``test_early_plan.py``'s.
"""

from __future__ import annotations

import fcntl
import json
import marshal
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.unit.installer.test_early_plan import _early, _keep, _mine, _venv
from tierlock import armplan, earlyarm, subproc
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


def _set_in_plan(tmp_path: Path, where: tuple[str | int, ...], value: object) -> None:
    """Set one value of the kept plan (*where*: the keys down to it), as a plan of another run would hold it."""
    entry = marshal.loads(_plan(tmp_path).read_bytes())
    holder = entry
    for key in where[:-1]:
        holder = holder[key]
    holder[where[-1]] = value
    _plan(tmp_path).write_bytes(marshal.dumps(entry))


def test_a_backend_that_cannot_start_leaves_no_early_start_no_scratch_folder_and_the_lock_free(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    venv = _venv(tmp_path)
    argv = _keep(tmp_path, monkeypatch, venv)
    _set_in_plan(tmp_path, ("command", "argv", 0), str(tmp_path / "no-such-backend"))
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    monkeypatch.setenv("TMPDIR", str(scratch))
    assert earlyarm.start(argv) is None
    assert earlyarm.current is None
    assert _free(venv), "the lock taken for the early start was let go"
    assert list(scratch.iterdir()) == []


def test_an_early_start_makes_one_private_file_for_its_requirements_and_no_folder_and_removes_it_at_the_end(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    venv = _venv(tmp_path)
    argv = _keep(tmp_path, monkeypatch, venv)
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    monkeypatch.setenv("TMPDIR", str(scratch))
    early = earlyarm.start(argv)
    assert early is not None
    (made,) = scratch.iterdir()
    assert made.is_file()
    assert made.name.startswith("tierlock-early-")
    assert made.read_bytes() == b"a==1\n"
    assert made.stat().st_mode & 0o777 == 0o600
    assert str(made) in early.argv
    earlyarm.finish(0)
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
    assert earlyarm.current is None


def test_a_plan_whose_facts_outside_the_target_changed_starts_nothing_even_when_the_target_matches(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    venv = _venv(tmp_path)
    argv = _keep(tmp_path, monkeypatch, venv)
    _set_in_plan(tmp_path, ("outer", "env"), {"TIERLOCK_TEST_KEPT_VARIABLE": "as it was"})  # unset now
    monkeypatch.delenv("TIERLOCK_TEST_KEPT_VARIABLE", raising=False)
    assert earlyarm.start(argv) is None
    assert earlyarm.current is None
    assert not (venv / "tierlock").exists(), "nothing was made in the target for a plan that does not hold"


def test_a_plan_whose_backends_configuration_changed_starts_nothing_and_makes_nothing_in_the_target(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    venv = _venv(tmp_path)
    argv = _keep(tmp_path, monkeypatch, venv)  # (kept with this process's pip configuration)
    monkeypatch.setenv("PIP_INDEX_URL", "https://example.invalid/simple")
    assert earlyarm.start(argv) is None
    assert earlyarm.current is None
    assert not (venv / "tierlock").exists(), "nothing was made in the target for a plan that does not hold"
    monkeypatch.delenv("PIP_INDEX_URL")
    assert earlyarm.start(argv) is not None, "as kept: the plan holds"


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
    assert earlyarm.current is None
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
    assert not Path(early.file).exists()


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
    assert earlyarm.current is None


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
    assert sys.modules["tierlock.earlyarm"].current is None


def test_a_backend_started_for_real_is_handed_over_with_its_output(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    venv = _venv(tmp_path)
    argv = _keep(tmp_path, monkeypatch, venv)
    backend = "import sys; print('kept backend'); print('its errors', file=sys.stderr)"
    _set_in_plan(tmp_path, ("command", "argv", 2), backend)
    early = earlyarm.start(argv)
    assert early is not None
    mine = tmp_path / "mine.txt"
    mine.write_bytes(early.requirements)
    proc = earlyarm.adopt([str(mine) if a == early.argv[-1] else a for a in early.argv], str(mine))
    assert proc is not None
    assert proc.communicate(timeout=60) == ("kept backend\n", "its errors\n")
    assert proc.returncode == 0
    mode = (venv / "tierlock" / "install.lock").stat().st_mode & 0o777
    assert mode == 0o644 & ~_umask()


def test_a_backend_started_early_is_watched_so_its_time_ends_where_it_ended_not_at_the_takeover(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    venv = _venv(tmp_path)
    argv = _keep(tmp_path, monkeypatch, venv)
    _set_in_plan(tmp_path, ("command", "argv", 2), "import time; time.sleep(0.2)")
    early = earlyarm.start(argv)
    assert early is not None
    assert early.spawned is not None
    deadline = time.monotonic() + 30
    while early.spawned.ended is None and time.monotonic() < deadline:
        time.sleep(0.02)
    assert early.spawned.ended is not None, "its end noted as it came, before any takeover"
    time.sleep(0.5)  # tierlock's own start outlasts the backend
    mine = tmp_path / "mine.txt"
    mine.write_bytes(early.requirements)
    taken = [str(mine) if a == early.argv[-1] else a for a in early.argv]
    proc = earlyarm.adopt(taken, str(mine))
    assert proc is not None
    result = subproc.run(taken, what="test", check=False, started=proc)
    assert result.returncode == 0, "watched, not reaped: the install still reads its exit code"
    assert result.seconds < time.perf_counter() - early.spawned.began - 0.4, "the wait for the takeover left out"


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def test_a_backend_taken_over_and_still_running_at_the_end_is_waited_for_and_counted_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[tuple[str, ...]] = []
    monkeypatch.setattr(subproc, "observers", [seen.append])
    early = _early(tmp_path, b"a==1\n", code="import time; time.sleep(0.5)")
    argv, path = _mine(tmp_path, b"a==1\n")
    argv[2] = "import time; time.sleep(0.5)"
    proc = earlyarm.adopt(argv, path)
    assert proc is not None
    earlyarm.finish(0)
    assert proc.returncode == 0, "waited for to its end"
    assert seen == [tuple(early.argv)]


def test_a_requirements_file_that_cannot_be_read_is_no_takeover(tmp_path: Path) -> None:
    early = _early(tmp_path, b"a==1\n")
    argv, path = _mine(tmp_path, b"a==1\n")
    os.unlink(path)
    assert earlyarm.adopt(argv, path) is None
    assert early.other


def test_a_plan_gone_already_is_no_error_at_the_end(tmp_path: Path) -> None:
    early = _early(tmp_path, b"a==1\n")
    early.plan = str(tmp_path / "arms-gone.marshal")
    early.other = True
    earlyarm.finish(0)
    assert earlyarm.current is None


def test_a_target_where_tierlocks_folder_cannot_be_made_gets_no_lock(tmp_path: Path) -> None:
    (tmp_path / "tierlock").write_text("a file where the folder goes", encoding="utf-8")
    assert earlyarm._lock(str(tmp_path)) is None


def test_the_targets_facts_are_checked_again_once_the_lock_is_held(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    venv = _venv(tmp_path)
    argv = _keep(tmp_path, monkeypatch, venv)
    real = armplan.inner_holds
    asked: list[bool] = []

    def changed_meanwhile(entry: object, prefix: str, *, own: bool, writes: bool = True) -> bool:
        asked.append(own)
        if not own and asked.count(False) > 1:
            return False  # another install came in between the first look and the lock
        return real(entry, prefix, own=own, writes=writes)  # type: ignore[arg-type]  # (the plan's own entry)

    monkeypatch.setattr(earlyarm, "inner_holds", changed_meanwhile)
    assert earlyarm.start(argv) is None
    assert earlyarm.current is None
    assert _free(venv)


def test_an_install_lock_that_is_descriptor_0_is_held_like_any_other(tmp_path: Path) -> None:
    """With stdin closed, the lock opened for the early start is descriptor 0: the install still takes it over."""
    saved = os.dup(0)
    os.close(0)
    try:
        fd = earlyarm._lock(str(tmp_path))
        assert fd == 0
        earlyarm.current = earlyarm.Early(str(tmp_path), [], b"", str(tmp_path / "early"), fd)
        assert earlyarm.held(str(tmp_path)) == 0
        earlyarm.release(fd)
        assert earlyarm.held(str(tmp_path)) is None
    finally:
        os.dup2(saved, 0)
        os.close(saved)
        earlyarm.current = None


_PRIORITIES = """
import json, marshal, os, sys
if os.nice(0) and os.geteuid() == 0:  # (a run under ``nice``: back to the priority a command starts with)
    os.setpriority(os.PRIO_PROCESS, 0, 0)
from tierlock import armplan, earlyarm
kept = ["brain", "--python", "@T/bin/python"]
with open(sys.argv[1], "rb") as fh:  # the plan kept by hand, made this process's (its sys.path is part of it)
    entry = marshal.load(fh)
entry["who"] = armplan.who(kept)
with open(armplan.plan_path(armplan.folder(), kept), "wb") as fh:
    marshal.dump(entry, fh)
before = os.nice(0)
early = earlyarm.start(sys.argv[2:])
assert early is not None
own = os.nice(0)
out, _ = earlyarm.popen(early).communicate()
import resource, time
# giving a priority back: root, or a nice limit (20 - the limit is the lowest nice value allowed) that reaches it
allowed = os.geteuid() == 0 or 20 - resource.getrlimit(resource.RLIMIT_NICE)[0] <= before
for _ in range(200):  # (given back by the thread that saw the backend end: a moment after its output ended)
    if os.nice(0) == before:
        break
    time.sleep(0.01)
print(json.dumps([before, int(out), own, os.nice(0), allowed]))
"""


def test_once_its_backend_runs_early_tierlocks_own_start_runs_at_the_lowest_priority_where_it_gets_it_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The documented ``nice`` +19 (as low as it goes) where the priority comes back once the backend has ended (root,
    or within ``RLIMIT_NICE``), +10 elsewhere; in a process of its own (this one keeps its priority): the backend is
    started first and keeps the priority tierlock was started with; tierlock's own start then yields to it."""
    before, backend, own, _after, allowed = _priorities(tmp_path, monkeypatch)
    assert backend == before, "the backend keeps the priority tierlock was started with"
    assert own == (19 if allowed else before + 10)


def _in_a_thread(work: Any) -> Any:
    """*work*'s answer, run in a thread of its own (on Linux a thread's ``nice`` is its own: this one's is kept)."""
    import threading

    answer: list[Any] = []
    thread = threading.Thread(target=lambda: answer.append(work()))
    thread.start()
    thread.join()
    assert answer, "the work raised"
    return answer[0]


def test_a_backend_that_ended_before_the_start_lowered_its_priority_gets_it_back_at_once() -> None:
    """The backend's watcher may see it end before the main thread lowers its priority: the lowering then gives the
    priority back at once (the backend is no longer running: nothing to yield to)."""
    from tierlock import earlyyield

    if not sys.platform.startswith("linux"):
        pytest.skip("a thread's own priority: Linux")

    def ended_first() -> tuple[int, int, bool]:
        yielded = earlyyield.Yielded()
        yielded.restore()  # the watcher first
        yielded.lower(5)
        return yielded.before, os.nice(0), earlyyield.regained(yielded.before)

    before, after, allowed = _in_a_thread(ended_first)
    if before > 14:
        pytest.skip(f"this test runs at nice {before}")
    assert after == (before if allowed else before + 5)


def test_a_priority_the_system_will_not_give_back_leaves_the_thread_lowered_without_an_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Giving the priority back is refused to a user outside ``RLIMIT_NICE``: the thread goes on lowered, no error."""
    from tierlock import earlyyield

    if not sys.platform.startswith("linux"):
        pytest.skip("a thread's own priority: Linux")

    def refused(*_args: object) -> None:
        raise PermissionError(13, "Permission denied")

    def lowered_for_good() -> tuple[int, int]:
        yielded = earlyyield.Yielded()
        yielded.lower(5)
        monkeypatch.setattr(os, "setpriority", refused)
        yielded.restore()
        return yielded.before, os.nice(0)

    before, after = _in_a_thread(lowered_for_good)
    if before > 14:
        pytest.skip(f"this test runs at nice {before}")
    assert after == before + 5


_NOT_REGAINED = _PRIORITIES.replace(
    "before = os.nice(0)\n", "before = os.nice(0)\nearlyarm.regained = lambda before: False  # (as for a user)\n", 1
)


def test_where_the_priority_would_not_come_back_tierlocks_start_yields_only_ten_nice_levels(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where the system would not give the priority back once the backend has ended (a user without ``RLIMIT_NICE``),
    the verification after the backend runs as low as the start beside it did: there only +10, not the lowest."""
    assert _NOT_REGAINED != _PRIORITIES
    before, backend, own, _after, _allowed = _priorities(tmp_path, monkeypatch, script=_NOT_REGAINED)
    assert backend == before
    assert own == before + 10


@pytest.mark.parametrize(
    ("system", "expected"),
    [
        (("linux", 0, 0, 0), True),
        (("linux", 1000, 0, 0), False),
        (("linux", 1000, 20, 0), True),
        (("linux", 1000, 15, 5), True),
        (("linux", 1000, 14, 5), False),
        (("linux", 1000, 20, 5), True),
        (("darwin", 0, 40, 0), False),
    ],
    ids=[
        "root",
        "user-no-limit",
        "user-limit-20",
        "user-limit-reaches",
        "user-limit-short",
        "user-nice-5",
        "not-linux",
    ],
)
def test_the_priority_counts_as_given_back_for_root_or_within_the_nice_limit_on_linux_only(
    monkeypatch: pytest.MonkeyPatch, system: tuple[str, int, int, int], expected: bool
) -> None:
    """Linux lets a thread raise its own ``nice`` back to *before* as root, or when ``20 - RLIMIT_NICE <= before``
    (*system*: the platform, the effective user id, the soft ``RLIMIT_NICE``, the ``nice`` before)."""
    import resource

    from tierlock import earlyyield

    platform, euid, limit, before = system
    monkeypatch.setattr(sys, "platform", platform)
    monkeypatch.setattr(os, "geteuid", lambda: euid)
    monkeypatch.setattr(resource, "getrlimit", lambda which: (limit, 40))
    assert earlyyield.regained(before) is expected


def test_once_the_early_backend_has_ended_tierlocks_own_work_gets_its_priority_back_where_the_system_allows_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """After the backend, what the command waits for is tierlock's own work (the rest of its start when that outlasted
    the backend, the verification, the receipts): it runs at the priority tierlock was started with again when the
    system lets a process raise its priority (root, or ``RLIMIT_NICE``); else it stays lowered."""
    if not sys.platform.startswith("linux"):
        pytest.skip("a thread's own priority, given back by another thread: Linux")
    before, _backend, own, after, allowed = _priorities(tmp_path, monkeypatch)
    assert own == (19 if allowed else before + 10), "lowered while the backend runs"
    assert after == (before if allowed else before + 10)


_STARTED_MEANWHILE = (
    _PRIORITIES.split("out, _ =", maxsplit=1)[0]
    + """
import threading, time
go = threading.Event()
meanwhile = threading.Thread(target=go.wait)  # started by the lowered main thread: it inherits the lowered priority
meanwhile.start()
during = os.getpriority(os.PRIO_PROCESS, meanwhile.native_id)
earlyarm.popen(early).communicate()
for _ in range(200):  # (given back by the thread that saw the backend end, the main thread's first: a moment after)
    if os.nice(0) == before and os.getpriority(os.PRIO_PROCESS, meanwhile.native_id) == before:
        break
    time.sleep(0.01)
after = os.getpriority(os.PRIO_PROCESS, meanwhile.native_id)
go.set()
meanwhile.join()
import resource
allowed = os.geteuid() == 0 or 20 - resource.getrlimit(resource.RLIMIT_NICE)[0] <= before
print(json.dumps([before, own, during, after, allowed]))
"""
)


def test_once_the_early_backend_has_ended_the_threads_tierlock_started_meanwhile_get_their_priority_back_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A thread the lowered main thread starts while the backend runs inherits the lowered priority (the readers of
    the backend's output, which the install waits for when it ends): it gets the priority tierlock was started with
    back with the main thread once the backend has ended, where the system allows it."""
    if not sys.platform.startswith("linux"):
        pytest.skip("a thread's own priority, given back by another thread: Linux")
    before, own, during, after, allowed = _priorities(tmp_path, monkeypatch, script=_STARTED_MEANWHILE)
    assert own == during == (19 if allowed else before + 10), "lowered, as the main thread that started it"
    assert after == (before if allowed else before + 10)


def _priorities(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, script: str = _PRIORITIES) -> list[Any]:
    """[tierlock's priority before an early start, its backend's, tierlock's own once it started, tierlock's own
    after the backend ended, whether this user may raise a priority] (the backend prints its own, then runs 2 s:
    tierlock's own is read while it runs); what *script* prints instead when given."""
    venv = _venv(tmp_path)
    argv = _keep(tmp_path, monkeypatch, venv)
    _set_in_plan(tmp_path, ("command", "argv", 2), "import os, time; print(os.nice(0), flush=True); time.sleep(2)")
    done = subprocess.run(
        [sys.executable, "-c", script, str(_plan(tmp_path)), *argv],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    found: list[Any] = json.loads(done.stdout)
    if found[0] > 9:
        pytest.skip(f"this test runs at nice {found[0]}: ten levels more cannot be told from the limit (19)")
    return found


def test_an_early_start_holds_only_its_own_targets_lock(tmp_path: Path) -> None:
    """An install into another environment (or with no early start at all) takes that environment's lock itself."""
    other = tmp_path / "other"
    other.mkdir()
    assert earlyarm.held(str(other)) is None, "no early start: nothing held"
    early = _early(tmp_path, b"a==1\n")
    assert earlyarm.held(str(other)) is None
    assert not earlyarm.fresh(str(other))
    assert earlyarm.held(str(tmp_path / "." / "")) == early.lock_fd, "the same folder, however it is written"


class _Backend:
    """A backend whose install command is this interpreter doing nothing with the requirements file given."""

    name = "uv"

    def install_argv(
        self, target: object, requirements: Path, *, reinstall: object, no_build: object = ()
    ) -> list[str]:
        return [sys.executable, "-c", "pass", "-r", str(requirements)]


@pytest.mark.parametrize("same", [True, False], ids=["its-very-command", "another-command"])
def test_the_install_takes_an_early_backend_running_its_very_command_over_without_a_requirements_file_of_its_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, same: bool
) -> None:
    from types import SimpleNamespace

    from tierlock import scratch
    from tierlock.installer import backends

    early = _early(tmp_path, b"a==1\n")
    made: list[str] = []
    real = scratch.scratch_dir

    def recorded(prefix: str) -> Any:
        made.append(prefix)
        return real(prefix)

    monkeypatch.setattr(scratch, "scratch_dir", recorded)
    monkeypatch.setattr(backends, "_before_verification", lambda target: None)
    target: Any = SimpleNamespace(prefix=tmp_path)
    result = backends.execute(_Backend(), target, ["a==1" if same else "a==2"], reinstall=())  # type: ignore[arg-type]
    assert result.returncode == 0
    assert early.adopted
    if same:
        assert made == [], "no requirements file (nor its folder) of the install's own"
        assert list(result.argv) == early.argv
        assert not early.other
    else:  # another command: its own file, the early backend waited for and its plan no longer held
        assert made == ["tierlock-install-"]
        assert early.other


def test_the_early_requirements_file_is_never_one_that_was_there_already(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.setattr(os, "urandom", lambda n: b"\1" * n)
    path = earlyarm._private_file("tierlock-early-", b"a==1\n")
    assert Path(path).read_bytes() == b"a==1\n"
    with pytest.raises(FileExistsError):  # the same name again (a file, or a link another user put there first)
        earlyarm._private_file("tierlock-early-", b"b==2\n")
    assert Path(path).read_bytes() == b"a==1\n"
