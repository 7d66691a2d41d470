# ruff: noqa: F811  (pytest fixtures imported from the installer's end-to-end tests are redefined as parameters)
"""What arming costs beyond the backend, counted in real runs with real uv into real venvs.

Arming a fresh environment starts its interpreter at most once and the backend once (no second
resolver call, no ``uv --version``); the verification after the backend reads each RECORD and
METADATA the backend just wrote once after it (and, while it ran, no file but those of a folder it
finished) and opens no other installed file but the compiled ones
(their dynamic sections, for the shared-library check); the self-guard reads no metadata of a
target without a tierlock; a second command after arming takes the target's facts from the kept
answer instead of starting its interpreter again; and the arming path imports neither the
interactive libraries nor what only a failed build or an index option needs.
"""

from __future__ import annotations

import builtins
import os
import shutil
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.cli.test_install_cli import (  # noqa: F401  (fixtures shared with the installer's end-to-end tests)
    World,
    empty_venv,
    index_env,
    kit,
    uv_cache,
    wheel_dir,
    wheels,
    world,
)
from tests.support import binaries, importtime
from tests.support.tierproject import write_lock, write_pyproject
from tests.support.wheels import EXT_SUFFIX, build_wheel
from tierlock import environment
from tierlock.cli import main
from tierlock.installer import ahead
from tierlock.probing import libraries

pytestmark = pytest.mark.slow


def _target_starts(world: World, argv: list[tuple[str, ...]]) -> list[tuple[str, ...]]:
    return [a for a in argv if a and os.path.abspath(a[0]) == os.path.abspath(world.python)]


def test_arming_a_fresh_environment_starts_its_interpreter_at_most_once_and_the_backend_once(world: World) -> None:
    run = world.install("brain", "--backend", "uv")
    assert run.code == 0, run.err
    assert len(_target_starts(world, run.argv)) <= 1, run.argv
    (backend,) = run.backend_runs  # the install itself: no sync, no check, no version query
    assert backend[1:3] == ("pip", "install")


def test_a_command_after_arming_takes_the_targets_facts_from_the_kept_answer(world: World) -> None:
    old = time.time() - 60  # an environment made before this second: its answer is kept (see test_target_cache)
    for path in (world.venv / "pyvenv.cfg", world.site):
        os.utime(path, (old, old))
    first = world.install("brain", "--backend", "uv")
    assert first.code == 0, first.err
    environment._SEEN.clear()  # a new process: nothing in memory, the kept answer on disk
    again = world.install("brain", "--backend", "uv", "--reinstall-package", "helper")
    assert again.code == 0, again.err
    assert _target_starts(world, again.argv) == [], again.argv
    assert world.probe().state == "present"


class _Reads:
    """Every file under a folder opened by this process, counted apart while the backend ran (the thread that reads
    the ``.dist-info`` folders it finishes, :mod:`tierlock.installer.ahead`) and after it ended."""

    def __init__(self) -> None:
        self.during: Counter[str] = Counter()
        self.after: Counter[str] = Counter()
        self.ended = False

    def opened(self) -> Counter[str]:
        return self.during + self.after


def _counting_reads(monkeypatch: pytest.MonkeyPatch, under: Path) -> _Reads:
    """Count every file under *under* this process opens, before and after the backend's end (:class:`_Reads`)."""
    reads = _Reads()
    real_open: Callable[..., Any] = builtins.open
    real_exit: Callable[..., Any] = ahead.Ahead.__exit__
    prefix = str(under) + os.sep

    def count(file: Any) -> None:
        if isinstance(file, (str, os.PathLike)) and os.fspath(file).startswith(prefix):
            counter = reads.after if reads.ended else reads.during
            counter[os.path.realpath(os.fspath(file))] += 1

    def counting_open(file: Any, *args: Any, **kwargs: Any) -> Any:
        count(file)
        return real_open(file, *args, **kwargs)

    real_os_open: Callable[..., int] = os.open
    skipped = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_TRUNC | getattr(os, "O_DIRECTORY", 0)

    def counting_os_open(file: Any, flags: int, *args: Any, **kwargs: Any) -> int:
        """A file opened to be read through :func:`os.open` (:mod:`tierlock.probing.regular`: never waiting on a
        FIFO); not a folder opened to look files up from, nor a write."""
        if not flags & skipped:
            count(file)
        return real_os_open(file, flags, *args, **kwargs)

    def ending(self: ahead.Ahead, *exc: object) -> None:
        real_exit(self, *exc)  # the thread stopped and joined: what follows is after the backend
        reads.ended = True

    monkeypatch.setattr(os, "open", counting_os_open)
    monkeypatch.setattr(builtins, "open", counting_open)
    monkeypatch.setattr(ahead.Ahead, "__exit__", ending)
    return reads


def test_verification_reads_each_record_and_metadata_the_backend_wrote_once_after_it_and_hashes_no_file(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    reads = _counting_reads(monkeypatch, world.venv)
    run = world.install("brain", "--backend", "uv")
    monkeypatch.undo()
    assert run.code == 0, run.err
    infos = sorted(str(p.resolve()) for p in world.site.glob("*.dist-info"))
    assert len(infos) == 3
    assert reads.ended
    for own in ("RECORD", "METADATA"):
        assert {p: reads.after[p] for p in (os.path.join(i, own) for i in infos)} == {
            os.path.join(i, own): 1 for i in infos
        }
    twice = {path: n for path, n in reads.after.items() if n > 1 and "tierlock" not in Path(path).parts}
    assert twice == {}, twice
    site = str(world.site.resolve()) + os.sep
    package_files = {p for p in reads.opened() if p.startswith(site) and ".dist-info" + os.sep not in p}
    assert all(p.endswith(".so") for p in package_files), package_files  # ELF headers only, no hashing
    assert {p for p in reads.during if p.startswith(site)} <= {  # while it ran: a finished folder's own files
        os.path.join(i, own)
        for i in infos
        for own in ("RECORD", "METADATA", "entry_points.txt", "WHEEL")  # (its tags)
    }


#: The modules arming must not load: the interactive and schema libraries, the installers themselves, the
#: metadata reader the self-guard needs only when a tierlock is in the target, the build-failure diagnosis,
#: and ``csv`` (the verification splits an unquoted RECORD, as installers write it, with plain string work).
NOT_ON_THE_ARMING_PATH = (
    "csv",
    "rich",
    "jsonschema",
    "tomlkit",
    "pip",
    "importlib.metadata",
    "tierlock.installer.buildfailure",
)


def test_arming_imports_no_interactive_library_no_metadata_reader_and_no_build_diagnosis(world: World) -> None:
    args = ["brain", "--project", str(world.root), "--python", world.python]
    env = world.sub_env(TIERLOCK_CACHE_DIR=str(world.root.parent / "cache"))
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", _SCRIPT, *args],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    loaded = importtime.loaded(proc.stderr)
    assert "tierlock.installer.run" in loaded  # it armed, through the full path
    assert sorted(m for m in NOT_ON_THE_ARMING_PATH if m in loaded) == []


_SCRIPT = "import sys\nsys.argv[0] = 'install-tier'\nfrom tierlock._entry import install_tier\ninstall_tier()\n"


def test_arming_a_second_fresh_environment_with_the_same_files_stats_its_extensions_instead_of_reading_them(
    tmp_path: Path, empty_venv: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    wheels = tmp_path / "wheels"
    native = binaries.elf(needed=["libc.so.6"])  # a real dynamic section: its verdict is learnt and kept
    wheel = build_wheel(wheels, "elfpkg", "1.0", files={"elfpkg/__init__.py": "", f"elfpkg/_n{EXT_SUFFIX}": native})
    root = tmp_path / "proj"
    write_pyproject(root, base=[], brain=["elfpkg>=1"])
    write_lock(root, "base", [])
    write_lock(root, "brain", [("elfpkg", "1.0", wheel)])
    for key, value in index_env(wheels, tmp_path / "uv-cache").items():
        monkeypatch.setenv(key, value)
    monkeypatch.setenv("UV_LINK_MODE", "hardlink")  # uv's default here: the same files, linked from its cache

    def arm(venv: Path) -> int:
        shutil.copytree(empty_venv, venv, symlinks=True)
        python = str(venv / "bin" / "python")
        return main(["install", "brain", "--project", str(root), "--python", python, "--backend", "uv"])

    assert arm(tmp_path / "first") == 0
    libraries.save_all()  # what the process does at its end
    libraries._VERDICTS.clear()  # and a new process remembers nothing
    reads = _counting_reads(monkeypatch, tmp_path / "second")
    assert arm(tmp_path / "second") == 0
    monkeypatch.undo()
    # the library verdict carried over: a stat of each file
    assert [p for p in reads.opened() if p.endswith(".so")] == []


def test_verification_stats_each_installed_file_once_compiled_ones_and_record_included(
    tmp_path: Path, empty_venv: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    wheels = tmp_path / "wheels"
    native = binaries.elf(needed=["libc.so.6"])  # a real dynamic section: the shared-library check looks at it
    files: dict[str, bytes | str] = {"elfpkg/__init__.py": "", f"elfpkg/_n{EXT_SUFFIX}": native}
    files["elfpkg/util.py"] = "X = 1\n"
    wheel = build_wheel(wheels, "elfpkg", "1.0", files=files)
    root = tmp_path / "proj"
    write_pyproject(root, base=[], brain=["elfpkg>=1"])
    write_lock(root, "base", [])
    write_lock(root, "brain", [("elfpkg", "1.0", wheel)])
    for key, value in index_env(wheels, tmp_path / "uv-cache").items():
        monkeypatch.setenv(key, value)
    venv = tmp_path / "venv"
    shutil.copytree(empty_venv, venv, symlinks=True)
    stats: Counter[str] = Counter()
    ahead: Counter[str] = Counter()  # (the read-ahead's looks while the backend runs, on its own thread)
    real_stat: Callable[..., Any] = os.stat

    def counting_stat(path: Any, *args: Any, **kwargs: Any) -> Any:
        if isinstance(path, (str, os.PathLike)):
            name, folder = os.fspath(path), kwargs.get("dir_fd")
            if folder is not None and not os.path.isabs(name):  # looked up from an open folder: its path first
                name = os.path.join(os.readlink(f"/proc/self/fd/{folder}"), name)
            mine = threading.current_thread() is threading.main_thread()
            (stats if mine else ahead)[os.path.normpath(name)] += 1
        return real_stat(path, *args, **kwargs)

    monkeypatch.setattr(os, "stat", counting_stat)
    code = main(
        ["install", "brain", "--project", str(root), "--python", str(venv / "bin" / "python"), "--backend", "uv"]
    )
    monkeypatch.undo()
    assert code == 0
    (info,) = (venv / "lib").glob("python*/site-packages/elfpkg-1.0.dist-info")
    site = info.parent
    listed = [line.rsplit(",", 2)[0] for line in (info / "RECORD").read_text().splitlines() if line]
    installed = [os.path.normpath(site / rel) for rel in listed if not rel.endswith(".pyc")]
    assert f"elfpkg/_n{EXT_SUFFIX}" in listed
    assert f"{info.name}/RECORD" in listed
    counted = {path: stats[path] for path in installed}
    assert counted == dict.fromkeys(installed, 1), counted
    # Beside the backend, a folder's INSTALLER (is it finished?) and RECORD (changed since a read?), nothing else.
    looked = {path for path in installed if ahead[path]}
    assert looked <= {os.path.normpath(info / "INSTALLER"), os.path.normpath(info / "RECORD")}, looked
