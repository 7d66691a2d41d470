"""A command's kept answer rests on everything it read, looked up, listed and was told; anything else is not kept.

In-process: a stand-in command (a function) reads a file, looks a path up, lists a folder, scans
another and reads an environment variable while :class:`tierlock.keptrecord.Recorder` watches; the
entry holds while nothing changed, and stops holding when any one of them changes. A run that wrote
outside the cache folder, started a process, changed folder, failed, ended with another exit code, or
looked at something modified just now is not kept. (The console-script runs: ``tests/cli/test_kept_runs.py``.)
"""

from __future__ import annotations

import errno
import hashlib
import io
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tierlock import fsutil, keptfirst, keptrecord, keptrun
from tierlock.keptrecord import Recorder

OLD = time.time() - 60
ARGV = ["--project", "p", "check"]


class Scene:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.cache = root / "cache"
        self.data = root / "data.txt"
        self.looked = root / "looked.txt"
        self.listed = root / "listed"
        self.scanned = root / "scanned"
        self.data.write_text("one\n")
        self.looked.write_text("x")
        self.listed.mkdir()
        (self.listed / "a").write_text("a")
        self.scanned.mkdir()
        (self.scanned / "b").write_text("b")
        self.raw = root / "raw.bin"
        self.raw.write_bytes(b"raw")
        self.link = root / "link"
        self.link.symlink_to(self.data)
        self.age()

    def age(self) -> None:
        for path in (self.data, self.looked, self.listed / "a", self.scanned / "b", self.listed, self.scanned):
            if path.exists():
                os.utime(path, (OLD, OLD))
        for path in (self.raw, self.link):
            if os.path.lexists(path):
                os.utime(path, (OLD, OLD), follow_symlinks=False)

    def command(self) -> int:
        print(self.data.read_text().strip(), os.environ.get("KEPT_TEST_VALUE"))
        print("looked", os.path.exists(self.looked), file=sys.stderr)
        print(sorted(os.listdir(self.listed)), [e.name for e in os.scandir(self.scanned)])
        print(fsutil.read_bytes(self.raw), os.path.islink(self.link), os.path.isdir(self.root))  # os.open, lstat
        fd = os.open(self.data, os.O_RDONLY)
        print(os.environ.get("KEPT_TEST_MISSING"), os.stat(fd).st_size)  # a descriptor looked up
        os.close(fd)
        return 1

    def record(self, command: Callable[[], int] | None = None, code: int | None = None) -> dict[str, Any] | None:
        recorder = Recorder(str(self.cache))
        with recorder:
            ran = (command or self.command)()
        return recorder.entry(keptrun.who(ARGV), ran if code is None else code)

    def record_many(self, many: int) -> tuple[dict[str, Any], list[Path]]:
        """The entry of a command that read the scene's files and looked up *many* more (as a probe looks up a
        closure's files), each one dated back; and those paths."""
        folder = self.root / "closure"
        folder.mkdir()
        paths = [folder / f"f{i}.py" for i in range(many)]
        for path in paths:
            path.write_text("x")
            os.utime(path, (OLD, OLD))

        def command() -> int:
            code = self.command()
            for path in paths:
                os.stat(path)
            return code

        entry = self.record(command)
        assert entry is not None
        return entry, paths


@pytest.fixture
def scene(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Scene:
    """The scene; the modules this test process loaded are left out of the key (some may have been written
    just now by other tests), but for one test that checks a module of its own."""
    monkeypatch.setenv("KEPT_TEST_VALUE", "v1")
    monkeypatch.delenv("KEPT_TEST_MISSING", raising=False)
    monkeypatch.setattr(keptrecord, "module_files", lambda: (set(), set()))
    return Scene(tmp_path)


def test_a_changed_module_source_stops_the_entry_holding(scene: Scene, monkeypatch: pytest.MonkeyPatch) -> None:
    source = scene.root / "helper_module.py"
    source.write_text("X = 1\n")
    os.utime(source, (OLD, OLD))
    monkeypatch.setattr(keptrecord, "module_files", lambda: ({str(source)}, {str(source)}))
    entry = scene.record()
    assert entry is not None
    assert str(source) in entry["stats"]
    assert str(source) not in entry["files"]  # known by its look-up, not its bytes
    assert keptrun.holds(entry, ARGV)
    source.write_text("X = 2\n")
    assert not keptrun.holds(entry, ARGV)


def test_the_loaded_modules_sources_and_byte_code_are_named() -> None:
    read, sources = keptrecord.module_files()
    assert keptrun.__file__ in sources
    assert keptrun.__file__ in read
    cached = getattr(keptrun, "__cached__", None)
    assert cached in read
    assert cached not in sources


def test_an_entry_keeps_the_output_and_exit_code_and_holds_while_nothing_changed(scene: Scene) -> None:
    entry = scene.record()
    assert entry is not None
    assert entry["code"] == 1
    said = {fd: "".join(text for was, text in entry["out"] if was == fd) for fd in (1, 2)}
    assert said[1].splitlines()[0] == "one v1"
    assert said[2] == "looked True\n"
    assert str(scene.data) in entry["files"]
    assert str(scene.looked) in entry["stats"]
    assert str(scene.listed) in entry["lists"]
    assert str(scene.scanned) in entry["scans"]
    assert entry["env"]["KEPT_TEST_VALUE"] == "v1"
    assert keptrun.holds(entry, ARGV)


def _rewrite(scene: Scene) -> None:
    scene.data.write_text("two\n")


def _remove_looked(scene: Scene) -> None:
    scene.looked.unlink()


def _grow_looked(scene: Scene) -> None:
    scene.looked.write_text("xy")
    os.utime(scene.looked, (OLD, OLD))


def _add_to_listed(scene: Scene) -> None:
    (scene.listed / "c").write_text("c")


def _edit_in_scanned(scene: Scene) -> None:
    (scene.scanned / "b").write_text("B!")


def _other_value(_scene: Scene) -> None:
    os.environ["KEPT_TEST_VALUE"] = "v2"


def _value_gone(_scene: Scene) -> None:
    del os.environ["KEPT_TEST_VALUE"]


def _value_appears(_scene: Scene) -> None:
    os.environ["KEPT_TEST_MISSING"] = "now"


def _raw_rewritten(scene: Scene) -> None:
    scene.raw.write_bytes(b"RAW")


def _relinked(scene: Scene) -> None:
    scene.link.unlink()
    scene.link.symlink_to(scene.looked)
    os.utime(scene.link, (OLD, OLD), follow_symlinks=False)


@pytest.mark.parametrize(
    "change",
    [
        _rewrite,
        _remove_looked,
        _grow_looked,
        _add_to_listed,
        _edit_in_scanned,
        _other_value,
        _value_gone,
        _value_appears,
        _raw_rewritten,
        _relinked,
    ],
)
def test_the_entry_stops_holding_when_anything_it_rests_on_changes(
    scene: Scene, change: Callable[[Scene], None]
) -> None:
    entry = scene.record()
    assert entry is not None
    change(scene)
    assert not keptrun.holds(entry, ARGV)


def test_a_file_rewritten_with_the_same_bytes_still_holds(scene: Scene) -> None:
    """Files read are known by their bytes: a checkout that rewrites them unchanged keeps the answer."""
    entry = scene.record()
    assert entry is not None
    scene.data.write_text("one\n")
    assert keptrun.holds(entry, ARGV)


def test_another_command_line_or_folder_does_not_hold(scene: Scene, monkeypatch: pytest.MonkeyPatch) -> None:
    entry = scene.record()
    assert entry is not None
    assert not keptrun.holds(entry, [*ARGV, "--json"])
    monkeypatch.chdir(scene.listed)
    assert not keptrun.holds(entry, ARGV)


def test_a_malformed_entry_does_not_hold(scene: Scene) -> None:
    entry = scene.record()
    assert entry is not None
    for broken in ({}, {**entry, "files": None}, {**entry, "out": "text"}, {**entry, "code": "1"}):
        assert not keptrun.holds(broken, ARGV)


def _writes_outside(scene: Scene) -> Callable[[], int]:
    def command() -> int:
        (scene.root / "written.txt").write_text("w")
        return 0

    return command


def _starts_a_process(_scene: Scene) -> Callable[[], int]:
    def command() -> int:
        subprocess.run([sys.executable, "-c", "pass"], check=True)
        return 0

    return command


def _changes_folder(scene: Scene) -> Callable[[], int]:
    def command() -> int:
        here = os.getcwd()
        os.chdir(scene.listed)
        os.chdir(here)
        return 0

    return command


def _removes_a_file(scene: Scene) -> Callable[[], int]:
    def command() -> int:
        (scene.listed / "a").unlink()
        return 0

    return command


def _reads_the_whole_environment(_scene: Scene) -> Callable[[], int]:
    def command() -> int:
        return len(dict(os.environ)) * 0

    return command


def _links_a_file(scene: Scene) -> Callable[[], int]:
    def command() -> int:
        os.symlink(scene.data, scene.root / "another-link")
        return 0

    return command


def _opens_to_write(scene: Scene) -> Callable[[], int]:
    def command() -> int:
        os.close(os.open(scene.root / "made", os.O_WRONLY | os.O_CREAT))
        return 0

    return command


def _opens_to_write_by_flags(flags: int) -> Callable[[Scene], Callable[[], int]]:
    """An existing file opened with *flags* alone (no mode: ``os.open``), each a write: ``O_WRONLY``, ``O_RDWR``,
    and ``O_TRUNC`` (Linux empties a file opened read-only with it)."""

    def doing(scene: Scene) -> Callable[[], int]:
        def command() -> int:
            os.close(os.open(scene.looked, flags))
            return 0

        return command

    return doing


def _writes_bytes(_scene: Scene) -> Callable[[], int]:
    def command() -> int:
        sys.stdout.buffer.write(b"")
        return 0

    return command


@pytest.mark.parametrize(
    "doing",
    [
        _writes_outside,
        _starts_a_process,
        _changes_folder,
        _removes_a_file,
        _reads_the_whole_environment,
        _writes_bytes,
        _links_a_file,
        _opens_to_write,
        _opens_to_write_by_flags(os.O_WRONLY),
        _opens_to_write_by_flags(os.O_RDWR),
        _opens_to_write_by_flags(os.O_RDONLY | os.O_TRUNC),
        _opens_to_write_by_flags(os.O_WRONLY | os.O_APPEND),
    ],
)
def test_a_run_with_an_effect_or_an_unseen_input_is_not_kept(scene: Scene, doing: Callable[[Scene], Any]) -> None:
    assert scene.record(doing(scene)) is None


def test_a_run_that_writes_only_in_the_cache_folder_or_byte_code_is_kept(scene: Scene) -> None:
    def command() -> int:
        scene.cache.mkdir()
        (scene.cache / "facts.marshal").write_bytes(b"x")
        pycache = scene.root / "__pycache__"
        pycache.mkdir()
        (pycache / "m.cpython-311.pyc").write_bytes(b"x")
        return 0

    assert scene.record(command) is not None


@pytest.mark.parametrize("code", [2, 3, 130])
def test_a_run_ending_with_another_code_than_0_or_1_is_not_kept(scene: Scene, code: int) -> None:
    assert scene.record(code=code) is None


def test_a_run_that_raised_is_not_kept(scene: Scene) -> None:
    recorder = Recorder(str(scene.cache))

    def failing() -> int:
        raise RuntimeError("boom")

    with pytest.raises(RuntimeError), recorder:
        failing()
    assert recorder.tainted == "ended with RuntimeError"
    assert recorder.entry(keptrun.who(ARGV), 0) is None


def test_a_run_that_looked_at_a_file_modified_just_now_is_not_kept(scene: Scene) -> None:
    scene.looked.write_text("x")  # now: within the file system's clock tick
    assert scene.record() is None
    scene.age()
    assert scene.record() is not None


def test_the_next_run_prints_the_kept_answer_and_returns_its_code(
    scene: Scene, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("TIERLOCK_CACHE_DIR", str(scene.cache))
    monkeypatch.setattr(keptrecord, "terminal", lambda: False)
    assert keptrun.replay(ARGV) is None
    assert keptrecord.run(ARGV, scene.command) == 1
    first = capsys.readouterr()
    assert keptrun.replay(ARGV) == 1
    assert capsys.readouterr() == first
    _rewrite(scene)
    assert keptrun.replay(ARGV) is None


def test_a_run_that_may_not_be_kept_removes_the_entry_it_replaces(
    scene: Scene, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TIERLOCK_CACHE_DIR", str(scene.cache))
    monkeypatch.setattr(keptrecord, "terminal", lambda: False)
    keptrecord.run(ARGV, scene.command)
    path = Path(keptfirst.entry_path(str(scene.cache), ARGV))
    assert path.is_file()
    keptrecord.run(ARGV, _writes_outside(scene))
    assert not path.exists()


def test_nothing_is_kept_on_a_terminal_or_without_a_cache_folder(scene: Scene, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TIERLOCK_CACHE_DIR", str(scene.cache))
    monkeypatch.setattr(keptrecord, "terminal", lambda: True)
    assert keptrecord.run(ARGV, scene.command) == 1
    assert not scene.cache.exists()
    monkeypatch.setattr(keptrecord, "terminal", lambda: False)
    monkeypatch.setenv("TIERLOCK_CACHE_DIR", "")
    assert keptrecord.run(ARGV, scene.command) == 1
    assert keptrun.replay(ARGV) is None


@pytest.mark.parametrize(
    ("argv", "command"),
    [
        (["check"], "check"),
        (["--project", "check", "probe"], "probe"),
        (["--json", "status", "--python", "x"], "status"),
        (["--color", "never", "admit"], "admit"),
        (["lock"], None),
        (["--help", "check"], None),
        (["--version"], None),
        (["chec"], None),
        ([], None),
    ],
)
def test_only_the_read_only_commands_are_kept(argv: list[str], command: str | None) -> None:
    assert keptrun.command_of(argv) == command


def test_a_large_file_is_known_by_its_size_time_and_inode(tmp_path: Path) -> None:
    big = tmp_path / "big.so"
    big.write_bytes(b"\0" * ((1 << 20) + 1))
    small = tmp_path / "small.txt"
    small.write_bytes(b"\0" * (1 << 20))
    assert keptfirst.digest(str(big)) == keptrun.stat_sig(str(big))
    assert isinstance(keptfirst.digest(str(small)), bytes)
    assert keptfirst.digest(str(tmp_path / "missing")) == -2
    assert keptrun.stat_sig(str(tmp_path / "missing")) == (-2,)


def test_another_module_search_path_keeps_its_own_entry(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A console script and ``python -c`` with ``PYTHONPATH`` running the same command do not take turns."""
    here = keptfirst.entry_path(str(tmp_path), ARGV)
    monkeypatch.setattr(sys, "path", [str(tmp_path), *sys.path])
    assert keptfirst.entry_path(str(tmp_path), ARGV) != here
    assert keptfirst.entry_path(str(tmp_path), [*ARGV, "x"]) != keptfirst.entry_path(str(tmp_path), ARGV)


def test_a_folder_looked_up_holds_when_entries_come_and_go(scene: Scene) -> None:
    """A folder is known by its kind and inode when looked up: what is in it counts only when it is listed."""
    entry = scene.record()
    assert entry is not None
    assert str(scene.root) in entry["stats"]
    (scene.root / "new-file").write_text("n")  # the folder's size and time move
    assert keptrun.holds(entry, ARGV)


def test_what_a_run_reads_is_noted_as_it_was_read(scene: Scene) -> None:
    entry = scene.record()
    assert entry is not None
    assert entry["env"]["KEPT_TEST_MISSING"] is None  # read and absent
    assert str(scene.raw) in entry["files"]  # read through os.open (the safe reader)
    assert str(scene.link) in entry["lstats"]
    assert not any(isinstance(path, int) for path in entry["stats"])  # a descriptor looked up is not a path


def test_paths_in_the_cache_folder_are_not_part_of_the_key(scene: Scene) -> None:
    scene.cache.mkdir()
    kept = scene.cache / "facts.marshal"
    kept.write_bytes(b"x")
    os.utime(kept, (OLD, OLD))

    def command() -> int:
        os.stat(kept)
        kept.read_bytes()
        os.listdir(scene.cache)
        return 0

    entry = scene.record(command)
    assert entry is not None
    assert [t for t in ("stats", "files", "lists") if any(p.startswith(str(scene.cache)) for p in entry[t])] == []


def test_a_folder_the_cache_folder_is_in_is_part_of_the_key(scene: Scene) -> None:
    """Only writes may make the cache folder's parents; listing the project around it is still seen."""
    scene.cache.mkdir()

    def command() -> int:
        return len(os.listdir(scene.root)) * 0

    entry = scene.record(command)
    assert entry is not None
    assert str(scene.root) in entry["lists"]
    (scene.root / "added").write_text("a")
    assert not keptrun.holds(entry, ARGV)


def test_the_answer_is_never_kept_for_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    class Stream:
        def __init__(self, tty: bool) -> None:
            self.tty = tty

        def isatty(self) -> bool:
            return self.tty

    for out, err in ((True, False), (False, True), (True, True)):
        monkeypatch.setattr(sys, "stdout", Stream(out))
        monkeypatch.setattr(sys, "stderr", Stream(err))
        assert keptfirst.terminal()
    monkeypatch.setattr(sys, "stdout", Stream(False))
    monkeypatch.setattr(sys, "stderr", Stream(False))
    assert not keptfirst.terminal()
    assert keptrun.replay(ARGV) is None or True  # no terminal: decided by the entry (none here)


@pytest.mark.parametrize("stream", ["none", "closed"])
def test_output_that_cannot_be_asked_counts_as_a_terminal(monkeypatch: pytest.MonkeyPatch, stream: str) -> None:
    """No stdout (``None``: a GUI launcher, a closed descriptor at start) or a closed one: never kept."""
    closed = io.StringIO()
    closed.close()
    monkeypatch.setattr(sys, "stdout", None if stream == "none" else closed)
    assert keptfirst.terminal()
    monkeypatch.setattr(sys, "stdout", io.StringIO())
    monkeypatch.setattr(sys, "stderr", None if stream == "none" else closed)
    assert keptfirst.terminal()


def test_a_private_folder_is_new_and_for_its_user_only(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    one, two = keptfirst.private_folder("tierlock-x-"), keptfirst.private_folder("tierlock-x-")
    assert one != two
    for made in (one, two):
        assert Path(made).parent == tmp_path
        assert Path(made).name.startswith(f"tierlock-x-{os.getpid()}-")
        assert os.stat(made).st_mode & 0o7777 == 0o700


def test_the_machine_is_named_without_its_host_name() -> None:
    uname = os.uname()
    machine = keptrun.who(ARGV)[-1]
    assert machine == [uname.sysname, uname.release, uname.version, uname.machine]


@pytest.mark.parametrize("mode", [0o700, 0o755, 0o701])
def test_a_folder_is_known_by_its_kind_inode_and_device_whatever_its_permissions(tmp_path: Path, mode: int) -> None:
    """A folder's size and times change with its entries: what a command learns from them it learns by listing."""
    folder = tmp_path / "folder"
    folder.mkdir()
    folder.chmod(mode)
    st = folder.stat()
    assert keptfirst.sig_of(st) == keptrun.stat_sig(str(folder)) == (st.st_mode, st.st_ino, st.st_dev)
    assert keptfirst.digest(str(folder)) == -errno.EISDIR  # (a folder read: its error, as any read that fails)


@pytest.mark.parametrize("mode", [0o600, 0o755, 0o701])
def test_a_regular_file_is_known_by_its_bytes_whatever_its_permissions(tmp_path: Path, mode: int) -> None:
    script = tmp_path / "script"
    script.write_bytes(b"#!/bin/sh\n")
    script.chmod(mode)
    assert keptfirst.digest(str(script)) == hashlib.sha256(b"#!/bin/sh\n").digest()


def test_a_missing_folder_lists_as_its_error(tmp_path: Path) -> None:
    missing = str(tmp_path / "missing")
    assert keptrun.listing(missing) == keptrun.scan(missing) == -2
    assert keptfirst.failed(OSError("no errno")) == -1


def test_a_modification_counts_only_for_a_file_from_the_given_time() -> None:
    assert keptrun.modified_since((0o100644, 1, 10, 1, 1), 10)
    assert not keptrun.modified_since((0o100644, 1, 9, 1, 1), 10)
    assert not keptrun.modified_since((0o040755, 99, 99), 10)
    assert not keptrun.modified_since((-2,), -5)


def test_relative_paths_are_kept_from_the_working_folder(scene: Scene, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(scene.root)

    def command() -> int:
        Path("data.txt").read_text()
        return len(os.listdir()) * 0 + len(list(os.scandir())) * 0

    entry = scene.record(command)
    assert entry is not None
    assert str(scene.data) in entry["files"]
    assert {os.path.normpath(p) for p in (*entry["lists"], *entry["scans"])} == {str(scene.root)}
