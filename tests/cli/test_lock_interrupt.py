"""Ctrl-C or SIGTERM during ``tierlock lock`` ends every backend with its process group and leaves no
``tierlock-lock-*`` folder: the tiers of a wave are locked in threads, the interrupt lands in the main one.

Base has no requirements (locked without a backend), so the three tiers above it are locked side by side,
each in its own thread. The index is a local server that accepts connections and never answers, so
``uv pip compile`` is still waiting on it when the signal arrives; the test then looks for any process
still running that was started for this project, and for any scratch folder left in the run's own TMPDIR.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.env import bin_dir, clean_env
from tests.support.lockproj import write_project

SIBLINGS = """\
[project]
name = "proj"
version = "0.1.0"
requires-python = ">=3.11"
dependencies = []

[project.optional-dependencies]
one = ["alpha>=1"]
two = ["gamma>=1"]
three = ["delta>=1"]

[tool.tierlock]
lock-dir = "lockfiles"

[tool.tierlock.tiers.one]
source = "extra:one"

[tool.tierlock.tiers.two]
source = "extra:two"

[tool.tierlock.tiers.three]
source = "extra:three"
"""


@pytest.fixture
def silent_index() -> Iterator[str]:
    """An index URL whose server accepts every connection and never says a word."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(64)
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        server.settimeout(0.2)
        while not stop.is_set():
            try:
                held.append(server.accept()[0])
            except OSError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.getsockname()[1]}/simple/"
    stop.set()
    thread.join()
    for conn in held:
        conn.close()
    server.close()


def _processes_mentioning(text: str) -> list[int]:
    found: list[int] = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if text in cmdline and int(entry.name) != os.getpid():
            found.append(int(entry.name))
    return found


def lock_run(tmp_path: Path, index: str) -> tuple[list[str], dict[str, str], Path]:
    """``tierlock lock`` of the three tiers (:data:`SIBLINGS`, at ``tmp_path/proj``) against *index*: its command
    line, its environment (its own TMPDIR, uv's cache, tierlock's), and that TMPDIR."""
    root = write_project(tmp_path / "proj", SIBLINGS)
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    env = clean_env({"TMPDIR": str(scratch), "UV_CACHE_DIR": str(tmp_path / "cache"), "UV_HTTP_TIMEOUT": "120"})
    env["TIERLOCK_CACHE_DIR"] = str(tmp_path / "remembered")
    argv = [str(bin_dir() / "tierlock"), "--project", str(root), "lock", "--backend", "uv", "--index-url", index]
    return argv, env, scratch


@pytest.mark.parametrize("early", [False, True], ids=["first run", "compiles started early"])
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_an_interrupted_lock_ends_its_backends_and_leaves_no_scratch_folder(
    tmp_path: Path, silent_index: str, signum: int, early: bool
) -> None:
    argv, env, scratch = lock_run(tmp_path, silent_index)
    if early:  # a run that gave up on the index remembers its compiles: the next one starts them before all else
        quick = {**env, "UV_HTTP_TIMEOUT": "1", "UV_HTTP_RETRIES": "0"}
        gave_up = subprocess.run(argv, env=quick, capture_output=True, text=True, check=False)
        assert gave_up.returncode == 3, gave_up.stdout + gave_up.stderr
        assert list((tmp_path / "remembered").glob("lock-*.json"))
    proc = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not _processes_mentioning(silent_index)[1:]:
        time.sleep(0.1)  # tierlock itself, then at least one backend waiting on the index
    assert _processes_mentioning(silent_index)[1:], "no backend started"
    time.sleep(0.5)
    started = time.monotonic()
    proc.send_signal(signum)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, out + err
    assert time.monotonic() - started < 20
    assert _processes_mentioning(silent_index) == [], "a backend outlived tierlock"
    assert [
        (p.name, sorted(x.name for x in p.iterdir())) for p in scratch.iterdir() if p.name.startswith("tierlock-lock-")
    ] == [], err
    assert "Traceback" not in err
