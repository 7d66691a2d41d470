"""A kept lock rests on what the lock read, the environment and what its compiles wrote; anything else is not kept.

In-process: a stand-in lock (a function) reads a file and runs one stand-in compile (a Python one-liner
that writes its input, upper-cased, into its output, naming its scratch folder as uv's ``# via`` notes do)
through :mod:`tierlock.lockstart` while :class:`tierlock.lockrecord.Recorder` watches. The kept entry is
answered by :func:`tierlock.lockkept.replay` (which runs the compile again) while nothing changed, and not
when the file, the environment or the compile's output changes. A run that started another process,
wrote outside its scratch folders, failed, ran a compile twice, or read a file that changed while it ran
is not kept. (The console-script runs with real uv: ``tests/cli/test_lock_kept.py``.)
"""

from __future__ import annotations

import contextlib
import marshal
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tierlock import keptrun, lockkept, lockrecord, lockstart, subproc

ARGV = ["--project", "p", "lock", "base"]
#: The stand-in compile: its input upper-cased into its output, with its scratch folder named as uv does.
COMPILE = (
    "import sys, pathlib; w = pathlib.Path(sys.argv[1]); "
    "(w / 'base.txt').write_text((w / 'base.in').read_text().upper() + '# via ' + str(w) + '/base.in\\n')"
)


class Scene:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.cache = root / "cache"
        self.data = root / "pyproject.toml"
        self.data.write_text("one\n")
        self.lockfile = root / "base.txt"
        self.inputs = "alpha\n"

    def command(self, *, twice: bool = False, extra: Callable[[], object] | None = None) -> Callable[[], int]:
        def run() -> int:
            lockstart._state.reset("k", None)
            text = self.data.read_text()
            for _ in range(2 if twice else 1):
                self.compile()
            if extra is not None:
                extra()
            print("locked", text.strip())
            return 0

        return run

    def compile(self) -> None:
        work = Path(tempfile.mkdtemp(prefix="tierlock-lock-"))
        try:
            (work / "base.in").write_text(self.inputs)
            argv = [sys.executable, "-c", COMPILE, str(work)]
            command = lockstart.Command(
                tier="base",
                argv=tuple(a.replace(str(work), lockstart.WORK) for a in argv),
                files=(("base.in", self.inputs),),
                seed=None,
                lockfile=str(self.lockfile),
                existed=False,
                cwd=str(self.root),
                what="compile",
                remedy="again",
            )
            lockstart.expect(argv)
            subproc.run(argv, what="compile", cwd=self.root)
            lockstart.produced(command, work / "base.txt", work)
        finally:
            shutil.rmtree(work)


@pytest.fixture
def scene(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Scene]:
    monkeypatch.setenv("TIERLOCK_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.setattr(tempfile, "tempdir", None)  # gettempdir() reads TMPDIR again
    monkeypatch.setattr(lockkept, "terminal", lambda: False)
    # Whatever was modified before the run counts as settled (a source file just edited, or mutated, too);
    # the rule itself: test_a_path_looked_up_that_was_modified_just_before_the_lock_is_not_kept.
    monkeypatch.setattr(lockrecord, "SETTLE_NS", 0)
    yield Scene(tmp_path)
    tempfile.tempdir = None


def record(scene: Scene, command: Callable[[], int], argv: list[str] = ARGV) -> int:
    return lockrecord.run(argv, command)


def kept(scene: Scene) -> bool:
    return any(scene.cache.glob("runs-*.marshal")) if scene.cache.is_dir() else False


def test_a_kept_lock_is_answered_by_its_compile_with_the_same_output(
    scene: Scene, capsys: pytest.CaptureFixture[str]
) -> None:
    assert record(scene, scene.command()) == 0
    first = capsys.readouterr().out
    assert kept(scene)
    assert lockkept.replay(ARGV) == 0
    assert capsys.readouterr().out == first == "locked one\n"
    assert [p.name for p in scene.root.iterdir() if p.name.startswith("tierlock-lock-")] == []


def test_a_kept_lock_is_readable_by_its_user_only(scene: Scene) -> None:
    record(scene, scene.command())
    assert [p.stat().st_mode & 0o777 for p in scene.cache.glob("runs-*.marshal")] == [0o600]


def test_a_kept_lock_is_not_answered_when_a_file_it_read_changed_with_the_same_size(scene: Scene) -> None:
    record(scene, scene.command())
    stat = scene.data.stat()
    scene.data.write_text("two\n")
    os.utime(scene.data, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert lockkept.replay(ARGV) is None


def test_a_kept_lock_is_not_answered_when_its_compile_writes_something_else(scene: Scene) -> None:
    record(scene, scene.command())
    entry = keptrun.load(next(str(p) for p in scene.cache.glob("runs-*.marshal")))
    assert entry is not None
    entry["compiles"][0]["files"] = [["base.in", "beta\n"]]  # what the index now says, in effect
    from tierlock.probing.libcache import dump

    dump(next(str(p) for p in scene.cache.glob("runs-*.marshal")), entry)
    assert lockkept.replay(ARGV) is None


def test_a_kept_lock_is_not_answered_when_the_environment_changed(
    scene: Scene, monkeypatch: pytest.MonkeyPatch
) -> None:
    record(scene, scene.command())
    monkeypatch.setenv("UV_INDEX_URL", "https://example.invalid/simple/")
    assert lockkept.replay(ARGV) is None
    monkeypatch.delenv("UV_INDEX_URL")
    assert lockkept.replay(ARGV) == 0


def test_a_kept_lock_is_for_its_own_command_line_only(scene: Scene) -> None:
    record(scene, scene.command())
    assert lockkept.replay([*ARGV, "--upgrade"]) is None


def test_a_compile_that_fails_on_replay_is_no_answer(scene: Scene) -> None:
    record(scene, scene.command())
    entry_path = next(str(p) for p in scene.cache.glob("runs-*.marshal"))
    entry = keptrun.load(entry_path)
    assert entry is not None
    entry["compiles"][0]["argv"] = [sys.executable, "-c", "raise SystemExit(1)"]
    from tierlock.probing.libcache import dump

    dump(entry_path, entry)
    assert lockkept.replay(ARGV) is None


def test_a_kept_compile_that_cannot_start_leaves_no_scratch_folder(scene: Scene) -> None:
    record(scene, scene.command())
    entry_path = next(str(p) for p in scene.cache.glob("runs-*.marshal"))
    entry = keptrun.load(entry_path)
    assert entry is not None
    entry["compiles"][0]["argv"] = [str(scene.root / "no-such-uv")]
    from tierlock.probing.libcache import dump

    dump(entry_path, entry)
    assert lockkept.replay(ARGV) is None
    assert [p.name for p in scene.root.iterdir() if p.name.startswith("tierlock-lock-")] == []


def _running(marker: str) -> list[str]:
    found = []
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and marker.encode() in (entry / "cmdline").read_bytes():
                found.append(entry.name)
        except OSError:
            continue
    return found


def _kill(marker: str) -> None:
    """Whatever a failed assertion left running (a stand-in compile that ignores SIGINT sleeps a minute)."""
    for pid in _running(marker):
        with contextlib.suppress(OSError):
            os.kill(int(pid), signal.SIGKILL)


def test_compiles_still_running_when_one_differs_are_ended_at_once(scene: Scene) -> None:
    record(scene, scene.command())
    entry_path = next(str(p) for p in scene.cache.glob("runs-*.marshal"))
    entry = keptrun.load(entry_path)
    assert entry is not None
    marker = f"sleeper-{os.getpid()}"
    bye, ready = scene.root / "asked-to-stop", scene.root / "sleeping"
    sleeper = (
        f"import time\ntry:\n    open({str(ready)!r}, 'w').close()\n    time.sleep(60)\n"
        f"except KeyboardInterrupt:\n    open({str(bye)!r}, 'w').close()"
    )
    slow = dict(entry["compiles"][0], argv=[sys.executable, "-c", sleeper, marker])
    entry["compiles"][0]["sha256"] = "0" * 64  # the first compile now writes something else
    first = entry["compiles"][0]["argv"]  # ... once the other is waiting in its sleep (asked to stop there)
    wait = f"import os, time\nt = time.monotonic()\nwhile not os.path.exists({str(ready)!r})"
    wait += " and time.monotonic() - t < 30:\n    time.sleep(0.01)\n"
    entry["compiles"][0]["argv"] = [*first[:2], wait + first[2], *first[3:]]
    entry["compiles"].append(slow)
    from tierlock.probing.libcache import dump

    dump(entry_path, entry)
    started = time.monotonic()
    try:
        assert lockkept.replay(ARGV) is None
        assert time.monotonic() - started < 20
        assert _running(marker) == []
    finally:
        _kill(marker)
    assert bye.exists()  # asked to stop (as an interrupt would), and given the moment to do it
    assert [p.name for p in scene.root.iterdir() if p.name.startswith("tierlock-lock-")] == []


def test_a_compile_that_does_not_stop_when_asked_is_killed_after_the_grace_period(
    scene: Scene, monkeypatch: pytest.MonkeyPatch
) -> None:
    record(scene, scene.command())
    entry_path = next(str(p) for p in scene.cache.glob("runs-*.marshal"))
    entry = keptrun.load(entry_path)
    assert entry is not None
    marker = f"stubborn-{os.getpid()}"
    stubborn = "import signal, time\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\ntime.sleep(60)"
    entry["compiles"][0]["sha256"] = "0" * 64
    entry["compiles"].append(dict(entry["compiles"][0], argv=[sys.executable, "-c", stubborn, marker]))
    from tierlock.probing.libcache import dump

    dump(entry_path, entry)
    monkeypatch.setattr(lockkept, "GRACE", 0.5)
    started = time.monotonic()
    try:
        assert lockkept.replay(ARGV) is None
        assert time.monotonic() - started < 20
        assert _running(marker) == []
    finally:
        _kill(marker)


def _entry_path(scene: Scene) -> str:
    return next(str(p) for p in scene.cache.glob("runs-*.marshal"))


def _scratch_left(scene: Scene) -> list[str]:
    return [p.name for p in scene.root.iterdir() if p.name.startswith("tierlock-lock-")]


def test_a_kept_lock_keeps_what_starts_its_compiles_in_its_head_and_the_rest_as_one_document(scene: Scene) -> None:
    record(scene, scene.command())
    entry = lockkept.load(_entry_path(scene))
    assert entry is not None
    assert sorted(entry) == sorted([*lockkept.HEAD, "rest"])
    rest = marshal.loads(entry["rest"])
    assert {"who", "stats", "lstats", "lists", "scans", "shadows", "out", "code"} <= rest.keys()
    assert rest.keys().isdisjoint(lockkept.HEAD)


@pytest.mark.parametrize(
    "rest",
    [b"", b"\xffnot marshal", marshal.dumps([1, 2]), marshal.dumps({"compiles": []}), marshal.dumps({"who": 1})],
    ids=["empty", "not marshal", "not a table", "a name of the head", "without the rest of the table"],
)
def test_a_kept_lock_whose_rest_does_not_load_ends_its_compiles_and_is_no_answer(scene: Scene, rest: bytes) -> None:
    """The rest is read once the compiles run: one that does not load (or holds a name of the head, or lacks
    what the checks need) ends them, removes their folders, and the lock runs in full."""
    record(scene, scene.command())
    path = _entry_path(scene)
    entry = lockkept.load(path)
    assert entry is not None
    from tierlock.probing.libcache import dump

    dump(path, entry | {"rest": rest})
    assert lockkept.replay(ARGV) is None
    assert _scratch_left(scene) == []


def test_a_kept_lock_whose_rest_has_no_shadows_is_no_answer(scene: Scene) -> None:
    """An entry kept before its shadows were (keptsig.shadows): what a module put first on the search path would
    change is unknown, so it is no answer, though everything else in it holds."""
    record(scene, scene.command())
    path = _entry_path(scene)
    entry = lockkept.load(path)
    assert entry is not None
    rest = marshal.loads(entry["rest"])
    del rest["shadows"]
    from tierlock.probing.libcache import dump

    dump(path, entry | {"rest": marshal.dumps(rest)})
    assert lockkept.replay(ARGV) is None
    assert _scratch_left(scene) == []


def test_a_lock_entry_kept_as_one_document_is_no_answer_and_is_kept_anew(
    scene: Scene, capsys: pytest.CaptureFixture[str]
) -> None:
    """An entry an older tierlock kept (head and rest one table) starts no compile; the lock runs in full and
    is kept again in two parts."""
    record(scene, scene.command())
    path = _entry_path(scene)
    entry = lockkept.load(path)
    assert entry is not None
    from tierlock.probing.libcache import dump

    dump(path, {key: value for key, value in entry.items() if key != "rest"} | marshal.loads(entry["rest"]))
    spawned: list[object] = []
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(lockkept, "spawn", lambda *a, **k: spawned.append(a))
        assert lockkept.replay(ARGV) is None
    assert spawned == []
    assert record(scene, scene.command()) == 0
    capsys.readouterr()
    assert lockkept.replay(ARGV) == 0
    assert capsys.readouterr().out == "locked one\n"


def _popen() -> None:
    subprocess.run([sys.executable, "-c", "pass"], check=True)


def _copy_out(scene: Scene) -> Callable[[], object]:
    return lambda: shutil.copyfile(scene.data, scene.root / "copied.txt")


def _copy_in(scene: Scene) -> Callable[[], object]:
    def copy() -> None:
        work = Path(tempfile.mkdtemp(prefix="tierlock-lock-"))
        shutil.copyfile(scene.data, work / "seed.txt")
        shutil.rmtree(work)

    return copy


def _write(scene: Scene) -> Callable[[], object]:
    return lambda: (scene.root / "written.txt").write_text("x")


def _change(scene: Scene) -> Callable[[], object]:
    return lambda: scene.data.write_text("changed while locking\n")


@pytest.mark.parametrize(
    "spoil",
    [
        lambda s: s.command(extra=_popen),
        lambda s: s.command(extra=_write(s)),
        lambda s: s.command(extra=_copy_out(s)),
        lambda s: s.command(extra=_change(s)),
        lambda s: s.command(twice=True),
    ],
    ids=[
        "another process",
        "a write outside its scratch folders",
        "a copy out of it",
        "a file changed while it ran",
        "compiled twice",
    ],
)
def test_a_lock_that_did_more_than_read_and_compile_is_not_kept(
    scene: Scene, spoil: Callable[[Scene], Callable[[], int]]
) -> None:
    assert record(scene, spoil(scene)) == 0
    assert not kept(scene)


def test_a_path_looked_up_that_was_modified_just_before_the_lock_is_not_kept(
    scene: Scene, monkeypatch: pytest.MonkeyPatch
) -> None:
    looked = scene.root / "looked.txt"
    looked.write_text("now")
    monkeypatch.setattr(lockrecord, "SETTLE_NS", 2_000_000_000)
    assert record(scene, scene.command(extra=looked.is_file)) == 0
    assert not kept(scene)
    monkeypatch.setattr(lockrecord, "SETTLE_NS", 0)
    assert record(scene, scene.command(extra=looked.is_file)) == 0
    assert kept(scene)


def test_a_lock_that_copies_into_its_scratch_folder_is_kept(scene: Scene) -> None:
    assert record(scene, scene.command(extra=_copy_in(scene))) == 0
    assert kept(scene)


def test_a_lock_that_failed_is_not_kept_and_removes_what_was_kept(scene: Scene) -> None:
    record(scene, scene.command())
    assert kept(scene)
    assert record(scene, lambda: (scene.command()(), 3)[1]) == 3
    assert not kept(scene)


@pytest.mark.parametrize("option", ["-v", "--verbose", "--dry-run", "--index-url=https://u:p4ss@h/simple/"])
def test_a_verbose_or_dry_run_or_credential_carrying_lock_is_not_kept(scene: Scene, option: str) -> None:
    assert record(scene, scene.command(), [*ARGV, option]) == 0
    assert not kept(scene)


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["lock"], True),
        (["--project", "lock", "check"], False),
        (["--project", "x", "-q", "lock", "base"], True),
        (["--color", "never", "lock"], True),
        (["lock", "--help"], False),
        (["-h", "lock"], False),
        (["check", "lock"], False),
        (["--", "lock"], False),
        ([], False),
    ],
)
def test_a_lock_command_line_is_told_from_others(argv: list[str], expected: bool) -> None:
    assert lockkept.is_lock(argv) is expected


def test_the_output_digest_does_not_depend_on_the_scratch_folder() -> None:
    one = lockkept.output_digest(b"a # via /tmp/one/base.in", "/tmp/one")
    two = lockkept.output_digest(b"a # via /tmp/two/base.in", "/tmp/two")
    assert one == two != lockkept.output_digest(b"b # via /tmp/two/base.in", "/tmp/two")


def test_a_scratch_folder_is_removed_whole(tmp_path: Path) -> None:
    work = tmp_path / "w"
    (work / "deep" / "er").mkdir(parents=True)
    (work / "deep" / "er" / "f").write_text("x")
    (work / "g").write_text("y")
    lockkept._remove(str(work))
    assert not work.exists()
