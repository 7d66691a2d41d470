"""A recorded run keeps what its own look-ups found: the same entry a second look-up of every path would give.

The probe looks up every file of the locked closure once; the recorder keeps the stat result each first
look-up of a path found instead of looking every path up again when the run ends. These tests record real
read-only commands in process (:class:`tierlock.keptrecord.Recorder` around the CLI) on the 3-tier world of
``benchmarks/_cliworld.py`` (armed by ``install-tier`` into a real venv, with compiled-extension files) and on
an empty venv of another Python under ``/root/.pyenv/versions``, and compare the entry with the slow path: every
path looked up again with :func:`tierlock.keptrun.stat_sig`. Then the hostile cases: a file that changes during
the run, a deleted ``.so``, a file rewritten with the same size and modification time, a failed look-up.
"""

from __future__ import annotations

import contextlib
import gc
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.interpreters import interpreter, make_venv_with
from tests.support.kept import OLD, World, backdate
from tierlock import keptrecord, keptrun, keptsig
from tierlock._entry import _cli
from tierlock.keptrecord import Recorder


@pytest.fixture(autouse=True)
def no_modules(monkeypatch: pytest.MonkeyPatch) -> None:
    """The modules of this test process left out of the key (some may have been written just now by other tests)."""
    monkeypatch.setattr(keptrecord, "module_files", lambda: (set(), set()))


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> World:
    return World(tmp_path_factory.mktemp("lookups"))


@pytest.fixture
def kept(world: World, monkeypatch: pytest.MonkeyPatch) -> Iterator[World]:
    """The world dated back, with its own cache folder (the target's answer kept by a first, unrecorded run)."""
    shutil.rmtree(world.cache, ignore_errors=True)
    backdate(world.project, world.venv)
    monkeypatch.setenv("TIERLOCK_CACHE_DIR", str(world.cache))
    yield world
    shutil.rmtree(world.cache, ignore_errors=True)


def recorded(cache: Path, argv: list[str]) -> tuple[Recorder, dict[str, Any]]:
    """*argv* run in process under a recorder (twice: the first run asks the target interpreter, a process the
    recorder does not keep); the recorder and its entry."""
    _cli(argv)
    recorder = Recorder(str(cache))
    with recorder:
        code = _cli(argv)
    entry = recorder.entry(keptrun.who(argv), code)
    assert entry is not None, recorder.tainted
    return recorder, entry


def slow_path(recorder: Recorder) -> tuple[dict[str, tuple[int, ...]], dict[str, tuple[int, ...]]]:
    """The stats and lstats tables as they were made before: every path looked up again now."""
    stats = {path: keptrun.stat_sig(path) for path in sorted(recorder.stats)}
    lstats = {path: keptrun.stat_sig(path, follow=False) for path in sorted(recorder.lstats)}
    return stats, lstats


@pytest.mark.parametrize("command", ["probe", "status", "admit", "check"])
def test_the_entry_of_a_real_command_equals_every_path_looked_up_again(kept: World, command: str) -> None:
    recorder, entry = recorded(kept.cache, kept.argv(command))
    assert (entry["stats"], entry["lstats"]) == slow_path(recorder)
    if command in ("probe", "status"):
        assert len(recorder.found) >= len(entry["stats"]) - 5  # (the paths only asked about with os.access)
        assert any(path.endswith(".so") for path in entry["stats"])


def test_a_deleted_compiled_file_stops_the_entry_holding_and_the_full_run_says_so(kept: World) -> None:
    argv = kept.argv("probe")
    _recorder, entry = recorded(kept.cache, argv)
    assert keptrun.holds(entry, argv)
    library = Path(next(p for p in entry["stats"] if p.endswith(".so")))
    saved = library.read_bytes()
    library.unlink()
    try:
        assert not keptrun.holds(entry, argv)
        again = Recorder(str(kept.cache))
        with again:
            code = _cli(argv)
        assert code == 1
        assert again.found[str(library)] == -2  # the look-up that failed is what is kept
        fresh = again.entry(keptrun.who(argv), code)
        assert fresh is not None
        assert fresh["stats"][str(library)] == (-2,)
    finally:
        library.write_bytes(saved)
        os.utime(library, (OLD, OLD))


def test_a_file_rewritten_with_the_same_size_and_time_gives_what_a_full_run_gives(kept: World) -> None:
    argv = kept.argv("probe")
    _recorder, entry = recorded(kept.cache, argv)
    library = Path(next(p for p in entry["stats"] if p.endswith(".so")))
    before, saved = library.stat(), library.read_bytes()
    library.write_bytes(bytes(len(saved)))  # the same size, other bytes, the time put back
    os.utime(library, ns=(before.st_atime_ns, before.st_mtime_ns))
    try:
        recorder = Recorder(str(kept.cache))
        with recorder:
            code = _cli(argv)
        fresh = recorder.entry(keptrun.who(argv), code)
        assert fresh is not None
        assert fresh["stats"] == slow_path(recorder)[0]
        assert keptrun.holds(entry, argv) == (fresh["stats"] == entry["stats"] and fresh["out"] == entry["out"])
    finally:
        library.write_bytes(saved)
        os.utime(library, (OLD, OLD))


def test_a_file_changed_during_the_run_is_kept_as_the_run_saw_it(tmp_path: Path) -> None:
    looked = tmp_path / "looked.txt"
    looked.write_text("short")
    os.utime(looked, (OLD, OLD))
    seen: list[int] = []

    def command() -> int:
        seen.append(os.stat(looked).st_size)
        looked.write_text("a longer text")  # (changed by someone else while the run goes on)
        os.utime(looked, (OLD, OLD))
        return 0

    recorder = Recorder(str(tmp_path / "cache"))
    with recorder:
        code = command()
    recorder.tainted = None  # (the write above is the stand-in's, not a command's)
    entry = recorder.entry(keptrun.who(["check"]), code)
    assert entry is not None
    assert entry["stats"][str(looked)][1] == seen[0] == len("short")
    assert not keptrun.holds(entry, ["check"])  # the next run sees the change; the answer is worked out again


def test_failed_and_folder_and_link_look_ups_are_kept_as_a_second_look_up_finds_them(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("x")
    (tmp_path / "folder").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "file")
    (tmp_path / "dangling").symlink_to(tmp_path / "nowhere")
    for path in ("file", "folder", "link", "dangling"):
        os.utime(tmp_path / path, (OLD, OLD), follow_symlinks=False)
    names = ["file", "folder", "link", "dangling", "missing"]

    def command() -> int:
        for name in names:
            path = str(tmp_path / name)
            os.path.exists(path)
            os.path.lexists(path)
            os.path.islink(path)
            with contextlib.suppress(OSError):
                os.stat(path, follow_symlinks=False)
        os.access(str(tmp_path / "asked"), os.R_OK)
        os.stat(os.path.relpath(tmp_path / "file"))  # a relative path: made absolute
        return 0

    recorder = Recorder(str(tmp_path / "cache"))
    with recorder:
        command()
    entry = recorder.entry(keptrun.who(["check"]), 0)
    assert entry is not None
    assert (entry["stats"], entry["lstats"]) == slow_path(recorder)
    assert entry["stats"][str(tmp_path / "missing")] == (-2,)
    assert entry["stats"][str(tmp_path / "asked")] == (-2,)
    assert entry["lstats"][str(tmp_path / "dangling")][0] & 0o170000 == 0o120000
    assert keptrun.holds(entry, ["check"])


def test_the_entry_of_a_probe_of_another_python_equals_every_path_looked_up_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, world: World
) -> None:
    target = interpreter("3.12.1")
    python = make_venv_with(target.python, tmp_path / "venv312")
    backdate(tmp_path / "venv312", world.project)
    monkeypatch.setenv("TIERLOCK_CACHE_DIR", str(tmp_path / "cache"))
    argv = ["--project", str(world.project), "probe", "--python", str(python)]
    recorder, entry = recorded(tmp_path / "cache", argv)
    assert entry["code"] == 1  # nothing armed there
    assert (entry["stats"], entry["lstats"]) == slow_path(recorder)
    assert any("python3.12" in path for path in entry["stats"])
    assert keptrun.holds(entry, argv)


@pytest.mark.parametrize("was_on", [True, False])
def test_a_recorded_run_leaves_the_collector_as_it_found_it_and_collects_nothing_meanwhile(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, was_on: bool
) -> None:
    monkeypatch.setenv("TIERLOCK_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(keptrun, "terminal", lambda: False)
    monkeypatch.setattr(keptrecord, "terminal", lambda: False)
    seen: list[bool] = []

    def command() -> int:
        seen.append(gc.isenabled())
        return 0

    (gc.enable if was_on else gc.disable)()
    try:
        assert keptrecord.run(["check"], command) == 0
        assert seen == [False]
        assert gc.isenabled() is was_on
        assert gc.get_freeze_count() == 0  # nothing left frozen for good
    finally:
        gc.enable()


def test_a_command_that_fails_still_gets_the_collector_back(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TIERLOCK_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(keptrecord, "terminal", lambda: False)

    def command() -> int:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        keptrecord.run(["check"], command)
    assert gc.isenabled()


def test_the_cache_folder_and_what_is_in_it_are_not_kept_whichever_way_they_are_looked_up(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    (cache / "sub").mkdir(parents=True)
    (tmp_path / "file").write_text("x")
    os.utime(tmp_path / "file", (OLD, OLD))
    recorder = Recorder(str(cache))
    with recorder:
        for path in (cache, cache / "sub", tmp_path / "file"):
            os.stat(str(path))
            os.stat(path)  # (a path object: the long way)
            os.stat(str(path), follow_symlinks=False)
    entry = recorder.entry(keptrun.who(["check"]), 0)
    assert entry is not None
    assert list(entry["stats"]) == [str(tmp_path / "file")]
    assert list(entry["lstats"]) == [str(tmp_path / "file")]
    assert recorder.looks == {str(tmp_path / "file"): 3}


@contextlib.contextmanager
def _widened(kept: World) -> Iterator[Path]:
    """pyproject.toml with a dependency bound widened just now (the first run after it is a full run), put back
    and dated back after the block."""
    pyproject = kept.project / "pyproject.toml"
    saved = pyproject.read_bytes()
    try:
        pyproject.write_text(saved.decode().replace('"brainpkg00>=1"', '"brainpkg00>=0.5"'))
        yield pyproject
    finally:
        pyproject.write_bytes(saved)
        backdate(pyproject)


@pytest.mark.parametrize("command", ["check", "admit", "probe", "status"])
def test_a_run_that_read_a_file_modified_just_now_keeps_nothing_and_makes_no_entry(
    kept: World, monkeypatch: pytest.MonkeyPatch, command: str
) -> None:
    """The first run after an edit (a dependency bound widened in pyproject.toml just before it) is not kept: the
    same None as before, found before the census's summaries and every looked-up path's signature are made (a
    settled run's entry: the tests above)."""
    argv = kept.argv(command)
    _cli(argv)
    with _widened(kept):
        recorder = Recorder(str(kept.cache))
        with recorder:
            code = _cli(argv)
        made: list[str] = []

        def noted(what: str, value: object) -> Any:
            def call(*_args: object, **_kwargs: object) -> object:
                made.append(what)
                return value

            return call

        monkeypatch.setattr(Recorder, "summaries", noted("summaries", {}))
        monkeypatch.setattr(keptsig, "seen_sig", noted("seen_sig", (0,)))
        assert recorder.entry(keptrun.who(argv), code) is None
        assert made == []


@pytest.mark.parametrize("command", ["admit", "probe", "status"])
def test_once_the_run_read_a_file_modified_just_now_the_probe_looks_files_up_unnoted(kept: World, command: str) -> None:
    """A run that cannot be kept (it read pyproject.toml right after a dependency bound was widened) stops noting
    from that read on: the probe's one ``stat`` per file of the closure is the plain one, none of those files is
    noted, and the answer is the one a run not recorded gives."""
    argv = kept.argv(command)
    _cli(argv)
    with _widened(kept) as pyproject:
        recorder = Recorder(str(kept.cache), gives_up=True)  # (as a read-only command is recorded)
        with recorder:
            code = _cli(argv)
            unwrapped = os.stat is keptrecord._real_stat
        assert recorder.recent == str(pyproject)
        assert unwrapped
        assert not [path for path in recorder.stats if "/site-packages/" in path]
        assert recorder.entry(keptrun.who(argv), code) is None
        assert _cli(argv) == code


def test_once_the_run_read_a_file_modified_just_now_no_event_is_handed_to_the_recorder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """After giving up, the audit hook hands the recorder nothing more (it would drop every event): the opens,
    listings and writes after are not looked at, and a write that would have tainted the run changes nothing."""
    fresh = tmp_path / "fresh.toml"
    fresh.write_text("x = 1\n")  # (modified just now)
    handed: list[str] = []
    event = Recorder.event

    def noted(self: Recorder, name: str, args: tuple[Any, ...]) -> None:
        handed.append(name)
        event(self, name, args)

    monkeypatch.setattr(Recorder, "event", noted)
    recorder = Recorder(str(tmp_path / "cache"), gives_up=True)
    with recorder:
        with open(fresh, "rb"):
            pass
        assert recorder.recent == str(fresh)
        count = len(handed)
        os.listdir(tmp_path)
        (tmp_path / "written.txt").write_text("x")
        with open(fresh, "rb"):
            pass
        assert len(handed) == count
    assert recorder.tainted is None
    assert recorder.listed == set()
    assert recorder.entry(keptrun.who(["probe"]), 0) is None


def test_a_module_file_modified_just_now_does_not_stop_the_noting(tmp_path: Path) -> None:
    """Byte code and sources are the import system's (whether one is a loaded module's is known at the end, where
    a module's files never keep a run from being kept): opening one written just now does not give up."""
    for name in ("mod.py", "mod.pyc"):
        (tmp_path / name).write_text("x = 1\n")
    (tmp_path / "data.toml").write_text("x = 1\n")
    os.utime(tmp_path / "data.toml", (OLD, OLD))
    recorder = Recorder(str(tmp_path / "cache"), gives_up=True)
    with recorder:
        for name in ("mod.py", "mod.pyc", "data.toml"):
            with open(tmp_path / name, "rb"):
                pass
        os.stat(tmp_path / "data.toml")
    assert recorder.recent is None
    assert str(tmp_path / "data.toml") in recorder.stats


@pytest.mark.parametrize("command", ["probe", "status"])
def test_the_probes_look_ups_of_the_closure_are_noted_at_once_and_kept_as_each_would_be(
    kept: World, monkeypatch: pytest.MonkeyPatch, command: str
) -> None:
    """The probe's one ``stat`` per file of the closure is made in C and noted in bulk (the look-up wrapper is not
    called for those files), and the entry is the one a look-up of every path again gives."""
    wrapped: list[str] = []
    real = Recorder._stat

    def counted(self: Recorder, path: Any, *args: Any, **kwargs: Any) -> os.stat_result:
        wrapped.append(str(path))
        return real(self, path, *args, **kwargs)

    monkeypatch.setattr(Recorder, "_stat", counted)
    recorder, entry = recorded(kept.cache, kept.argv(command))
    assert (entry["stats"], entry["lstats"]) == slow_path(recorder)
    closure = [path for path in entry["stats"] if "/site-packages/" in path and ".dist-info" not in path]
    assert len(closure) > 20
    assert len([path for path in wrapped if path in set(closure)]) < len(closure) // 4
    assert all(recorder.looks[path] >= 1 and path in recorder.found for path in closure)


def test_many_look_ups_at_once_are_noted_as_one_at_a_time_would_be(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """:meth:`Recorder.stat_all` against :meth:`Recorder._stat` path by path: the same tables (a path twice, a
    path in the cache folder, a relative one), and a path that cannot be looked up raises with nothing noted."""
    for name in ("a", "b"):
        (tmp_path / name).write_text(name)
    (tmp_path / "cache").mkdir()
    (tmp_path / "cache" / "c").write_text("c")
    monkeypatch.chdir(tmp_path)
    paths = [str(tmp_path / "a"), "b", str(tmp_path / "a"), str(tmp_path / "cache" / "c")]
    one, many = Recorder(str(tmp_path / "cache")), Recorder(str(tmp_path / "cache"))
    found = [one._stat(path) for path in paths]
    assert many.stat_all(paths) == found
    assert (many.stats, many.looks, many.found) == (one.stats, one.looks, one.found)
    assert many.looks == {str(tmp_path / "a"): 2, str(tmp_path / "b"): 1}
    with pytest.raises(FileNotFoundError):
        many.stat_all([str(tmp_path / "b"), str(tmp_path / "gone")])
    assert many.looks[str(tmp_path / "b")] == 1
