"""A target interpreter's answer is kept on disk: the next command does not start it while nothing it depends
on changed (a package installed changes nothing it depends on), and starts it again when its file, its
pyvenv.cfg, or a .pth file or sitecustomize in its site folder changes.

Each "command" here is a fresh in-process memory (``environment._SEEN`` emptied); the subprocesses the
inspection starts are counted through the subprocess helper's observers. Files are dated back a minute,
as an install older than the file system's clock tick is.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.support.env import make_venv
from tierlock import environment, subproc, targetcache
from tierlock.environment import Target
from tierlock.errors import BackendError, UsageError

OLD = time.time() - 60


def _age(*paths: Path) -> None:
    for path in paths:
        os.utime(path, (OLD, OLD), follow_symlinks=False)


@pytest.fixture
def started(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> list[tuple[str, ...]]:
    """The interpreters started; the cache in a folder of its own."""
    monkeypatch.setenv("TIERLOCK_CACHE_DIR", str(tmp_path / "cache"))
    seen: list[tuple[str, ...]] = []
    monkeypatch.setattr(subproc, "observers", [lambda argv: seen.append(tuple(argv))])
    return seen


def _command(python: Path) -> Target:
    environment._SEEN.clear()  # a new process: nothing in memory
    return environment.inspect(python)


def _armed_venv(tmp_path: Path) -> Path:
    python = make_venv(tmp_path / "venv")
    target = environment.inspect(python)
    environment._SEEN.clear()
    _age(target.purelib, target.prefix / "pyvenv.cfg")
    return python


def test_a_second_command_takes_the_answer_from_disk_without_starting_the_interpreter(
    tmp_path: Path, started: list[tuple[str, ...]]
) -> None:
    python = _armed_venv(tmp_path)
    started.clear()
    first = _command(python)  # started, or told by the kept answer of the venv as it was made (same interpreter)
    assert len(started) <= 1
    started.clear()
    second = _command(python)
    assert started == []
    assert second == first
    assert second.paths == first.paths
    assert second.marker_env == first.marker_env


@pytest.mark.parametrize("change", ["pth-added", "pth-edited-in-place", "pyvenv-cfg"])
def test_a_change_the_answer_depends_on_starts_the_interpreter_again(
    tmp_path: Path, started: list[tuple[str, ...]], change: str
) -> None:
    python = _armed_venv(tmp_path)
    target = environment.inspect(python)
    extra = tmp_path / "elsewhere"
    extra.mkdir()
    pth = target.purelib / "extra.pth"
    pth.write_text(str(tmp_path) + "\n")
    _age(pth, target.purelib)
    started.clear()
    before = _command(python)
    assert _command(python) == before
    assert len(started) == 1
    if change == "pth-added":
        (target.purelib / "more.pth").write_text(str(extra) + "\n")
    elif change == "pth-edited-in-place":
        pth.write_text(str(extra) + "\n")
        _age(target.purelib)  # the folder's listing did not change: only the file did
    else:
        cfg = target.prefix / "pyvenv.cfg"
        cfg.write_text(cfg.read_text() + "include-system-site-packages = true\n")
    after = _command(python)
    assert len(started) == 2
    assert after != before


def test_an_empty_cache_folder_setting_keeps_nothing(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("TIERLOCK_CACHE_DIR", "")
    seen: list[tuple[str, ...]] = []
    monkeypatch.setattr(subproc, "observers", [lambda argv: seen.append(tuple(argv))])
    python = _armed_venv(tmp_path)
    seen.clear()
    _command(python)
    _command(python)
    assert len(seen) == 2
    assert targetcache.load(str(python), ("a", "b")) is None


def test_a_cache_file_that_cannot_be_read_is_no_cache(tmp_path: Path, started: list[tuple[str, ...]]) -> None:
    python = _armed_venv(tmp_path)
    _command(python)
    for kept in (tmp_path / "cache").iterdir():
        kept.write_bytes(b"not marshal")
    started.clear()
    assert _command(python).python == python
    assert len(started) == 1


def test_a_package_installed_in_the_site_folder_keeps_the_answer(
    tmp_path: Path, started: list[tuple[str, ...]]
) -> None:
    python = _armed_venv(tmp_path)
    target = _command(python)
    info = target.purelib / "newpkg-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Name: newpkg\nVersion: 1.0\n")
    (target.purelib / "newpkg.py").write_text("X = 1\n")
    _age(info / "METADATA", info, target.purelib / "newpkg.py")  # the site folder itself: modified just now
    started.clear()
    assert _command(python) == target
    assert started == []


def test_a_sitecustomize_coming_to_the_site_folder_starts_the_interpreter_again(
    tmp_path: Path, started: list[tuple[str, ...]]
) -> None:
    python = _armed_venv(tmp_path)
    target = _command(python)
    extra = tmp_path / "added-by-sitecustomize"
    custom = target.purelib / "sitecustomize.py"
    custom.write_text(f"import sys\nsys.path.append({str(extra)!r})\n")
    _age(custom, target.purelib)
    started.clear()
    after = _command(python)
    assert len(started) == 1
    assert str(extra) in [str(p) for p in after.paths]


def _fresh_venv(path: Path, base: str = sys.executable) -> Path:
    """A venv made by *base* (``python -m venv --without-pip``), dated back as an older install is."""
    subprocess.run([base, "-m", "venv", "--without-pip", str(path)], check=True)
    python = path / "bin" / "python"
    _age(path / "pyvenv.cfg", *path.glob("lib/python*/site-packages"))
    return python


def _asked(python: Path) -> Target:
    """What the interpreter says when it is started (no cache at all)."""
    environment._SEEN.clear()
    folder = os.environ["TIERLOCK_CACHE_DIR"]
    os.environ["TIERLOCK_CACHE_DIR"] = ""
    try:
        return environment.inspect(python)
    finally:
        os.environ["TIERLOCK_CACHE_DIR"] = folder


def test_a_new_venv_made_like_one_asked_before_is_described_without_starting_it(
    tmp_path: Path, started: list[tuple[str, ...]]
) -> None:
    _command(_fresh_venv(tmp_path / "first"))
    second = _fresh_venv(tmp_path / "second")
    started.clear()
    told = _command(second)
    assert started == []
    assert told == _asked(second)
    assert told.prefix == tmp_path / "second"
    assert str(told.purelib).startswith(str(tmp_path / "second"))


def test_a_new_venv_whose_pyvenv_cfg_does_not_say_whether_it_sees_the_system_site_is_started(
    tmp_path: Path, started: list[tuple[str, ...]]
) -> None:
    """Not set, ``site.py`` puts the base's site-packages on the path (their ``.pth`` files count): no venv of that
    kind is told by a sibling, however alike the two are."""
    venvs = [tmp_path / "first", tmp_path / "second"]
    for folder in venvs:
        _fresh_venv(folder)
        cfg = folder / "pyvenv.cfg"
        cfg.write_text("".join(x for x in cfg.read_text().splitlines(True) if "include-system" not in x))
        _age(cfg)
    _command(venvs[0] / "bin" / "python")
    started.clear()
    told = _command(venvs[1] / "bin" / "python")
    assert len(started) == 1
    assert told == _asked(venvs[1] / "bin" / "python")


@pytest.mark.parametrize("difference", ["pth-file", "system-site-packages", "another-python"])
def test_a_new_venv_that_differs_from_the_one_asked_before_is_started(
    tmp_path: Path, started: list[tuple[str, ...]], difference: str
) -> None:
    _command(_fresh_venv(tmp_path / "first"))
    base = sys.executable
    if difference == "another-python":
        others = [
            p
            for p in Path("/root/.pyenv/versions").glob("3.1[0-3]*/bin/python3")
            if p.resolve() != Path(sys.executable).resolve()
        ]
        if not others:
            pytest.skip("no other Python installed")
        base = str(others[0])
    second = _fresh_venv(tmp_path / "second", base)
    if difference == "pth-file":
        (site,) = (tmp_path / "second").glob("lib/python*/site-packages")
        (site / "extra.pth").write_text(str(tmp_path) + "\n")
        _age(site / "extra.pth", site)
    elif difference == "system-site-packages":
        cfg = tmp_path / "second" / "pyvenv.cfg"
        cfg.write_text(
            cfg.read_text().replace("include-system-site-packages = false", "include-system-site-packages = true")
        )
        _age(cfg)
    started.clear()
    told = _command(second)
    assert len(started) == 1
    assert told == _asked(second)


def _threads_started(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The names of the threads started from now on."""
    import threading

    names: list[str] = []
    start = threading.Thread.start

    def noting(thread: threading.Thread) -> None:
        names.append(thread.name)
        start(thread)

    monkeypatch.setattr(threading.Thread, "start", noting)
    return names


def test_an_early_start_whose_answer_is_kept_reads_it_at_once_without_a_thread(
    tmp_path: Path, started: list[tuple[str, ...]], monkeypatch: pytest.MonkeyPatch
) -> None:
    python = _armed_venv(tmp_path)
    asked = _command(python)  # (kept on disk from here on)
    environment._SEEN.clear()
    threads = _threads_started(monkeypatch)
    started.clear()
    environment.start_early(python)
    assert threads == []
    assert started == []
    assert environment.resolve(python) == asked
    assert environment._STARTED == {}  # collected once


def test_an_early_start_with_nothing_kept_starts_the_interpreter_at_once_and_reads_it_when_asked(
    tmp_path: Path, started: list[tuple[str, ...]], monkeypatch: pytest.MonkeyPatch
) -> None:
    python = make_venv(tmp_path / "venv")
    monkeypatch.setenv("TIERLOCK_CACHE_DIR", "")  # nothing kept
    environment._SEEN.clear()
    asked = environment.inspect(python)
    environment._SEEN.clear()
    threads = _threads_started(monkeypatch)
    before = set(subproc._live)  # (what another test on this worker left running is not this one's)
    environment.start_early(python)
    assert len(started) == 2  # (running beside the caller from here on)
    early = set(subproc._live) - before
    assert early != set()
    target = environment.resolve(python)
    assert threads == []
    assert len(started) == 2
    assert early.isdisjoint(subproc._live)  # reaped
    assert target == asked
    assert environment.resolve(python) is target  # remembered


def test_an_early_start_whose_interpreter_fails_reports_it_where_the_answer_is_taken(
    tmp_path: Path, started: list[tuple[str, ...]], monkeypatch: pytest.MonkeyPatch
) -> None:
    python = tmp_path / "bin" / "python"
    python.parent.mkdir()
    python.write_text("#!/bin/sh\necho broken >&2\nexit 3\n")
    python.chmod(0o755)
    monkeypatch.setenv("TIERLOCK_CACHE_DIR", "")
    environment.start_early(python)  # (nothing raised here)
    with pytest.raises(BackendError, match="inspecting") as early:
        environment.resolve(python)
    with pytest.raises(BackendError, match="inspecting") as late:
        environment.inspect(python)
    assert (str(early.value), early.value.exit_code) == (str(late.value), late.value.exit_code)
    python.chmod(0o644)  # (not executable: the start itself fails, said as what and where, not an internal error)
    environment.start_early(python)
    with pytest.raises(UsageError, match=f"cannot run the interpreter at {python} \\(Permission denied\\)"):
        environment.resolve(python)
    with pytest.raises(UsageError, match="cannot run the interpreter"):
        environment.inspect(python)


def test_an_early_start_whose_kept_answer_does_not_parse_reports_it_as_without_the_early_read(
    tmp_path: Path, started: list[tuple[str, ...]], monkeypatch: pytest.MonkeyPatch
) -> None:
    python = _armed_venv(tmp_path)
    _command(python)
    monkeypatch.setattr(targetcache, "load", lambda exe, folders: "not an answer")
    environment._SEEN.clear()
    environment.start_early(python)
    with pytest.raises(UsageError, match="did not describe its environment"):
        environment.resolve(python)
    environment._SEEN.clear()
    with pytest.raises(UsageError, match="did not describe its environment"):
        environment.inspect(python)


def test_an_early_start_gives_what_this_process_remembers_only_while_it_holds(
    tmp_path: Path, started: list[tuple[str, ...]]
) -> None:
    python = _armed_venv(tmp_path)
    environment._SEEN.clear()
    remembered = environment.inspect(python)  # (remembered by this process from here on)
    started.clear()
    environment.start_early(python)
    assert environment.resolve(python) is remembered
    extra = tmp_path / "elsewhere"
    extra.mkdir()
    (remembered.purelib / "more.pth").write_text(str(extra) + "\n")  # (what the answer depends on changed)
    environment.start_early(python)
    after = environment.resolve(python)
    assert len(started) == 1
    assert extra in after.paths
    assert extra not in remembered.paths
