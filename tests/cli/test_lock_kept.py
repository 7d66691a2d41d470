"""A ``tierlock lock`` run again with nothing changed runs its uv compiles and nothing else; any change is seen.

Real console-script runs in fresh processes, real uv against local wheel folders. The first lock that
changes nothing is kept with everything it read; the next one starts the same uv compiles at once and,
when they write what they wrote then, prints the same report without loading the project (the lock's own
modules are never imported) and leaves every file as it was. Each kind of change - a dependency in
pyproject.toml, an index setting in a new uv.toml, a new release on the local index, a lower tier's
lockfile - gives exactly the lockfiles a full lock with nothing kept writes. An interrupted kept lock ends
its compiles, changes nothing, and the next run completes.
"""

from __future__ import annotations

import http.server
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path

import pytest

import tierlock
from tests.support.env import clean_env
from tests.support.importtime import loaded, without_importtime
from tests.support.lockproj import PYPROJECT, build_wheel_dir, write_project
from tests.support.wheels import build_wheel
from tierlock import keptrun

ENTRY = "import sys; sys.argv[1:] = {argv!r}; from tierlock._entry import tierlock; tierlock()"
#: What a full lock imports and a kept one does not.
HEAVY = {"tierlock.lockfiles.lock", "argparse", "packaging.requirements", "tierlock.tiers.loader"}


class Project:
    """A project locked from its own wheel folder, with tierlock's cache folder and a temporary folder of its own."""

    def __init__(self, root: Path, wheels: Path) -> None:
        self.root = root
        self.folder = write_project(root / "proj", PYPROJECT)
        self.wheels = wheels
        self.cache = root / "cache"
        self.tmp = root / "tmp"
        self.tmp.mkdir(exist_ok=True)
        self.raw = ""

    def run(
        self, *more: str, cache: bool = True, before: str = "", **extra: str
    ) -> tuple[subprocess.CompletedProcess[str], bool]:
        """One console-script run of ``lock`` (*before*: code run first); its result and whether it was answered
        from the kept lock. Its whole standard error, ``-X importtime``'s lines too, is kept in :attr:`raw`."""
        argv = ["--project", str(self.folder), "-q", "lock", "--backend", "uv", "--no-index"]
        argv += ["--find-links", str(self.wheels), *more]
        env = {**clean_env(), "TIERLOCK_CACHE_DIR": str(self.cache) if cache else "", "TMPDIR": str(self.tmp)}
        env["UV_CACHE_DIR"] = str(self.root / "uv-cache")
        del env["UV_NO_CONFIG"]  # the project's uv.toml is read (and no user one: a config folder of its own)
        env["XDG_CONFIG_HOME"] = str(self.root / "config")
        env.update(extra)
        proc = subprocess.run(
            [sys.executable, "-X", "importtime", "-c", before + ENTRY.format(argv=argv)],
            capture_output=True,
            text=True,
            check=False,
            env=env,
            cwd=self.folder,
        )
        self.raw = proc.stderr
        modules, stderr = loaded(proc.stderr), without_importtime(proc.stderr)
        return subprocess.CompletedProcess(proc.args, proc.returncode, proc.stdout, stderr), not modules & HEAVY

    def files(self) -> dict[str, bytes]:
        return {p.name: p.read_bytes() for p in sorted((self.folder / "lockfiles").iterdir())}

    def stats(self) -> dict[str, tuple[int, int]]:
        return {p.name: (p.stat().st_ino, p.stat().st_mtime_ns) for p in (self.folder / "lockfiles").iterdir()}

    def scratch_left(self) -> list[str]:
        return [p.name for p in self.tmp.iterdir() if p.name.startswith("tierlock-lock-")]


def _kept(project: Project, *more: str) -> subprocess.CompletedProcess[str]:
    """Lock until a run is answered from the kept lock (the first writes, the second is kept); its result."""
    first, _ = project.run(*more)
    assert first.returncode == 0, first.stdout + first.stderr
    for _attempt in range(3):
        again, kept = project.run(*more)
        assert again.returncode == 0, again.stdout + again.stderr
        if kept:
            return again
    raise AssertionError("the lock was never answered from what it kept")


@pytest.fixture(autouse=True)
def settled() -> None:
    """Wait until tierlock's own sources are older than the settle time of a kept run (a source just edited,
    or mutated, would keep any run from being kept)."""
    newest = max(p.stat().st_mtime for p in Path(tierlock.__file__).parent.rglob("*.py"))
    time.sleep(max(0.0, newest + keptrun.SETTLE_NS / 1e9 + 0.1 - time.time()))


@pytest.fixture
def project(tmp_path: Path) -> Project:
    return Project(tmp_path, build_wheel_dir(tmp_path / "wheels"))


#: Code run before the lock that marks, among ``-X importtime``'s lines, where the first compile was started.
MARK_SPAWN = (
    "import os, sys; sys.addaudithook(lambda e, a, s=[]: e == 'os.posix_spawn' and not s"
    " and (s.append(1), os.write(2, b'-- spawned\\n'))); "
)
#: What a kept lock's compiles do not wait for: the modules that check everything else its entry rests on.
BESIDE = {"tierlock.keptrun", "tierlock.keptseal"}
#: What a kept lock loads at no time (an answer given only reads: the cache files' writer and the probe package).
NEVER = {"tierlock.probing.libcache", "tierlock.probing"}


def test_a_kept_lock_starts_its_compiles_before_it_loads_the_checks_of_the_rest(project: Project) -> None:
    """The compiles start on what the entry's head and the files read say (:mod:`tierlock.keptfirst`); the
    look-ups, listings and the rest of the entry are checked once uv runs, beside it, with what loads for them."""
    _kept(project, "--upgrade")
    done, kept = project.run("--upgrade", before=MARK_SPAWN)
    assert (done.returncode, kept) == (0, True), done.stderr
    head, mark, tail = project.raw.partition("-- spawned\n")
    assert mark, "no compile was started"
    assert loaded(head) & (BESIDE | NEVER) == set()
    assert loaded(tail) & (BESIDE | NEVER) == BESIDE


@pytest.mark.parametrize("more", [(), ("--upgrade",), ("brain",)], ids=["every tier", "upgrade", "one tier"])
def test_a_kept_lock_prints_what_a_full_lock_prints_and_touches_no_file(
    project: Project, more: tuple[str, ...]
) -> None:
    full, _ = project.run(*more, cache=False)
    before, stats = project.files(), project.stats()
    kept = _kept(project, *more)
    again, _ = project.run(*more, cache=False)
    assert (kept.returncode, kept.stdout, sorted(kept.stderr.splitlines())) == (
        again.returncode,
        again.stdout,
        sorted(again.stderr.splitlines()),
    )
    assert project.files() == before
    assert project.stats() == stats
    assert project.scratch_left() == []
    assert full.returncode == 0


def _new_dependency(project: Project) -> None:
    path = project.folder / "pyproject.toml"
    path.write_text(path.read_text(encoding="utf-8").replace('"alpha>=1"', '"alpha>=1", "gamma>=1"'), encoding="utf-8")


def _same_size_edit(project: Project) -> None:
    path = project.folder / "pyproject.toml"
    text = path.read_text(encoding="utf-8")
    stat = path.stat()
    path.write_text(text.replace('"alpha>=1"', '"alpha<=2"'), encoding="utf-8")
    assert path.stat().st_size == stat.st_size
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))  # and the same modification time


def _uv_toml(project: Project) -> None:
    (project.folder / "uv.toml").write_text('[pip]\nresolution = "lowest-direct"\n', encoding="utf-8")


def _new_release(project: Project) -> None:
    if not list(project.wheels.glob("beta-3.0-*")):  # once: both projects read the same folder
        build_wheel(project.wheels, "beta", "3.0", requires=[])


def _lower_lockfile(project: Project) -> None:
    path = project.folder / "lockfiles" / "brain.txt"
    path.write_text(path.read_text(encoding="utf-8") + "# edited by hand\n", encoding="utf-8")


@pytest.mark.parametrize(
    "change",
    [_new_dependency, _same_size_edit, _uv_toml, _new_release, _lower_lockfile],
    ids=[
        "pyproject dependency",
        "same size and time",
        "resolver setting in a new uv.toml",
        "new release on the index",
        "lower lockfile",
    ],
)
def test_a_change_after_a_kept_lock_gives_the_lock_a_full_run_writes(
    tmp_path: Path, change: Callable[[Project], None]
) -> None:
    wheels = build_wheel_dir(tmp_path / "wheels")
    ours, oracle = Project(tmp_path / "ours", wheels), Project(tmp_path / "oracle", wheels)
    more = ("--upgrade",) if change in (_new_release, _uv_toml) else ()  # pins move on an upgrade
    _kept(ours, *more)
    assert oracle.run(*more, cache=False)[0].returncode == 0
    before = ours.files()
    for side in (ours, oracle):
        change(side)
    changed, kept = ours.run(*more)
    expected, _ = oracle.run(*more, cache=False)
    assert not kept
    assert changed.returncode == expected.returncode == 0, changed.stdout + changed.stderr
    assert ours.files() == oracle.files()
    assert change is _lower_lockfile or ours.files() != before  # a lower lockfile edited by hand is locked again
    assert changed.stdout == expected.stdout
    assert ours.scratch_left() == []
    again, _ = ours.run(*more)  # and the new lock is kept in its turn
    assert again.returncode == 0
    assert ours.files() == oracle.files()


def test_an_index_option_added_on_the_command_line_gives_the_lock_a_full_run_writes(tmp_path: Path) -> None:
    wheels = build_wheel_dir(tmp_path / "wheels")
    newer = tmp_path / "newer"
    build_wheel(newer, "alpha", "1.5", requires=["beta>=1"])
    ours, oracle = Project(tmp_path / "ours", wheels), Project(tmp_path / "oracle", wheels)
    _kept(ours, "--upgrade")
    before = ours.files()
    more = ("--upgrade", "--find-links", str(newer))
    changed, kept = ours.run(*more)
    expected, _ = oracle.run(*more, cache=False)
    assert not kept
    assert changed.returncode == expected.returncode == 0, changed.stdout + changed.stderr
    assert ours.files() == oracle.files() != before
    assert "alpha==1.5" in (ours.folder / "lockfiles" / "base.txt").read_text(encoding="utf-8")


def test_a_kept_lock_whose_compile_fails_runs_in_full_and_changes_nothing(project: Project) -> None:
    _kept(project)
    before = project.files()
    moved = project.root / "moved"
    shutil.move(project.wheels, moved)
    project.wheels.mkdir()  # the same folder, now empty: uv cannot resolve
    failed, kept = project.run()
    assert not kept
    assert failed.returncode == 3, failed.stdout + failed.stderr
    assert project.files() == before
    assert project.scratch_left() == []


def test_an_environment_variable_set_since_the_kept_lock_runs_it_in_full(project: Project) -> None:
    _kept(project, "--upgrade")
    again, kept = project.run("--upgrade", UV_RESOLUTION="lowest-direct")  # uv reads the whole environment
    assert not kept
    assert again.returncode == 0, again.stdout + again.stderr
    assert "alpha==1.0" in (project.folder / "lockfiles" / "base.txt").read_text(encoding="utf-8")


def test_a_lock_whose_command_line_carries_a_credential_is_never_kept(project: Project) -> None:
    secret = "--extra-index-url=https://someone:s3cr3t-pass@127.0.0.1:9/simple/"
    for _ in range(3):
        done, kept = project.run(secret)
        assert done.returncode == 0, done.stdout + done.stderr
        assert not kept
    kept_files = list(project.cache.iterdir()) if project.cache.is_dir() else []
    assert [p.name for p in kept_files if b"s3cr3t" in p.read_bytes()] == []


class _Links(http.server.SimpleHTTPRequestHandler):
    silent: threading.Event

    def do_GET(self) -> None:
        if self.silent.is_set():  # accepts, and never answers until the test ends
            time.sleep(60)
            return
        super().do_GET()

    def log_message(self, format: str, *args: object) -> None:
        return


@pytest.fixture
def served(project: Project) -> Iterator[tuple[str, threading.Event]]:
    """The project's wheel folder as a find-links page over HTTP, and the switch that makes it silent."""
    silent = threading.Event()
    handler = type("Handler", (_Links,), {"silent": silent})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), partial(handler, directory=str(project.wheels)))
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/", silent
    server.shutdown()
    server.server_close()


def _uv_running(text: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if entry.name.isdigit() and text in cmdline and "pip compile" in cmdline:
            found.append(int(entry.name))
    return found


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_an_interrupted_kept_lock_ends_its_compiles_changes_nothing_and_the_next_run_completes(
    project: Project, served: tuple[str, threading.Event], signum: int
) -> None:
    url, silent = served
    env = {**clean_env(), "TIERLOCK_CACHE_DIR": str(project.cache), "TMPDIR": str(project.tmp)}
    env.update({"UV_NO_CACHE": "1", "UV_HTTP_TIMEOUT": "120"})
    argv = ["--project", str(project.folder), "-q", "lock", "--backend", "uv", "--no-index", "--find-links", url]
    command = [sys.executable, "-c", ENTRY.format(argv=argv)]

    def lock() -> subprocess.CompletedProcess[str]:
        return subprocess.run(command, env=env, cwd=project.folder, capture_output=True, text=True, check=False)

    for _ in range(2):  # written, then kept
        assert lock().returncode == 0
    before, stats = project.files(), project.stats()
    silent.set()
    proc = subprocess.Popen(command, env=env, cwd=project.folder, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and not (_uv_running(url) and project.scratch_left()):
        time.sleep(0.05)
    assert _uv_running(url), "no compile started"
    assert all(name.startswith("tierlock-lock-kept-") for name in project.scratch_left())
    time.sleep(0.3)
    proc.send_signal(signum)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, out + err
    assert b"Traceback" not in err
    assert _uv_running(url) == [], "a compile outlived tierlock"
    assert project.scratch_left() == []
    assert (project.files(), project.stats()) == (before, stats)
    silent.clear()
    rerun = lock()
    assert rerun.returncode == 0, rerun.stdout + rerun.stderr
    assert project.files() == before
    assert project.scratch_left() == []
