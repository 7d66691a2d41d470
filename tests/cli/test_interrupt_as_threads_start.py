# ruff: noqa: F811  (pytest fixtures imported from other tests are redefined as parameters)
"""An interrupt that comes while tierlock starts its worker threads lands as their start ends, and still ends
every backend they start and removes every scratch folder.

Threads are started with SIGINT and SIGTERM blocked in the starting thread (:class:`tierlock.interrupts.sheltered`,
so that the threads are born blocking them and every signal goes to the main thread). A signal that comes meanwhile
is held by the system and delivered the moment the block ends: at that line, not inside the wait that follows. Here
the signal is sent to the main thread at its *n*-th such block, for every *n* a real ``tierlock lock`` of three
sibling tiers goes through (the tiers locked in threads; with the compiles a run before remembered, each also
started early in a thread of its own), against an index that accepts connections and never answers. Each run exits
130 with nothing of it left: no backend process, no ``tierlock-lock-*`` folder. The same for ``install-tier``
with uv and with pip, whose blocks start the thread that watches the site folders and the one that asks the
backend's version: exit 130, no backend left, no temporary folder, and the rerun it prints, run exactly as
printed, arms the tier.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli.test_install_cli import index_env
from tests.cli.test_install_interrupts import Faults, faults, write_project  # noqa: F401
from tests.cli.test_lock_interrupt import _processes_mentioning, lock_run, silent_index  # noqa: F401
from tests.support.env import bin_dir, clean_env
from tierlock.installer import receipts

pytestmark = pytest.mark.slow

#: Runs ``tierlock`` in this process, the main thread sent ``$AT_SIGNAL`` at its ``$AT_BLOCK``-th sheltered block
#: (0: none); the number of blocks it went through is written to stderr's last line.
HELD = """
import os, signal, sys, threading
from tierlock import interrupts
from tierlock.cli import main

at, seen = int(os.environ["AT_BLOCK"]), [0]


class Held(interrupts.sheltered):
    def __enter__(self):
        super().__enter__()
        if threading.current_thread() is threading.main_thread():
            seen[0] += 1
            if seen[0] == at:  # held while the block lasts: delivered as it ends
                signal.pthread_kill(threading.main_thread().ident, getattr(signal, os.environ["AT_SIGNAL"]))


interrupts.sheltered = Held
try:
    code = main(sys.argv[1:])
finally:
    print("blocks", seen[0], file=sys.stderr, flush=True)
sys.exit(code)
"""


def _run(
    argv: list[str], env: dict[str, str], at: int, signame: str, cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", HELD, *argv[1:]],
        cwd=cwd,
        env={**env, "AT_BLOCK": str(at), "AT_SIGNAL": signame},
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )


def _blocks(done: subprocess.CompletedProcess[str]) -> int:
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("blocks "), done.stderr
    return int(last.split()[1])


@pytest.fixture
def gave_up_once(tmp_path: Path, silent_index: str) -> tuple[list[str], dict[str, str], Path, str, int]:
    """A lock run that gave up on the index (its compiles remembered for the next run, started early), and the
    number of sheltered blocks the main thread went through in it."""
    argv, env, scratch = lock_run(tmp_path, silent_index)
    quick = {**env, "UV_HTTP_TIMEOUT": "1", "UV_HTTP_RETRIES": "0"}
    done = _run(argv, quick, 0, "SIGINT")
    assert done.returncode == 3, done.stdout + done.stderr
    for tier in ("one", "two", "three"):  # each tier said once as its lock begins, whatever became of it
        assert done.stderr.count(f"locking {tier} with uv (lockfiles/{tier}.txt)") == 1, done.stderr
    return argv, env, scratch, silent_index, _blocks(done)


@pytest.mark.parametrize("tiers", [[], ["one"]], ids=["three-tiers-in-threads", "one-tier-in-the-main-thread"])
@pytest.mark.parametrize("signame", ["SIGINT", "SIGTERM"])
def test_an_interrupt_held_while_worker_threads_start_ends_their_backends_and_leaves_no_scratch_folder(
    gave_up_once: tuple[list[str], dict[str, str], Path, str, int], signame: str, tiers: list[str]
) -> None:
    argv, env, scratch, index, first = gave_up_once
    if tiers:  # a lock of one tier compiles in a thread the main thread starts and waits for
        argv = [*argv, *tiers]
        first = _blocks(_run(argv, {**env, "UV_HTTP_TIMEOUT": "1", "UV_HTTP_RETRIES": "0"}, 0, signame))
    quick = {**env, "UV_HTTP_TIMEOUT": "1", "UV_HTTP_RETRIES": "0"}
    counted = _run(argv, quick, 0, signame)  # the compiles remembered: each started early, in a thread of its own
    blocks = _blocks(counted)
    assert first >= 1
    assert blocks > first or tiers, "the second run starts its remembered compiles early, each in a thread"
    for at in range(1, blocks + 1):
        done = _run(argv, env, at, signame)
        assert done.returncode == 130, (at, done.stdout, done.stderr)
        assert f"interrupted ({signame})" in done.stderr, done.stderr
        assert _processes_mentioning(index) == [], f"a backend outlived tierlock (block {at} of {blocks})"
        left = [p.name for p in scratch.iterdir() if p.name.startswith("tierlock-lock-")]
        assert left == [], (at, blocks, done.stderr)
        assert "Traceback" not in done.stderr
    assert os.environ.get("AT_BLOCK") is None


def test_the_held_interrupt_is_one_signal_of_the_real_kind() -> None:
    """The harness itself: the signal sent in a sheltered block is held until the block ends, then raised."""
    script = (
        "import signal, threading\nfrom tierlock import interrupts\nrestore = interrupts.install()\nsteps = []\n"
        "try:\n    with interrupts.sheltered():\n"
        "        signal.pthread_kill(threading.main_thread().ident, signal.SIGTERM)\n        steps.append('held')\n"
        "    steps.append('went on')\nexcept KeyboardInterrupt:\n    steps.append('raised')\nfinally:\n    restore()\n"
        "print(steps, interrupts.name())\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=False, timeout=60)
    assert done.stdout.strip() == f"['held', 'raised'] {signal.Signals.SIGTERM.name}", done.stderr


@pytest.mark.parametrize("backend", ["uv", "pip"])
def test_an_interrupt_held_while_an_install_starts_its_threads_leaves_nothing_and_the_printed_rerun_arms_the_tier(
    tmp_path: Path, faults: Faults, backend: str
) -> None:
    root = write_project(tmp_path / "proj", faults.wheels, "1.0")
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    env = clean_env({**index_env(faults.links, tmp_path / "cache"), "TMPDIR": str(scratch)})
    env["TIERLOCK_CACHE_DIR"] = str(tmp_path / "remembered")  # (no plan kept by another test's run)

    def fresh(name: str) -> tuple[Path, list[str]]:
        venv = tmp_path / name
        shutil.copytree(faults.empty_venv, venv, symlinks=True)
        python = str(venv / "bin" / "python")
        return venv, ["tierlock", "install", "brain", "--project", str(root), "--python", python, "--backend", backend]

    _venv, argv = fresh("counted")
    counted = _run([*argv, "--json"], env, 0, "SIGINT")
    assert counted.returncode == 0, counted.stderr
    blocks = _blocks(counted)
    assert blocks >= 2, f"an install starts the watching thread and the version thread beside its backend ({blocks})"
    for at in range(1, blocks + 1):
        venv, argv = fresh(f"venv-{at}")
        done = _run([*argv, "--json"], env, at, "SIGINT", cwd=tmp_path)  # (run from outside the project)
        assert done.returncode == 130, (at, blocks, done.stdout, done.stderr)
        assert _processes_mentioning(str(venv)) == [], f"a backend outlived tierlock (block {at} of {blocks})"
        assert sorted(p.name for p in scratch.iterdir()) == [], (at, blocks)
        assert not receipts.receipt_path(venv, "brain").exists()
        commands = json.loads(done.stdout)["error"]["remedy_argv"]
        path = {**env, "PATH": f"{bin_dir()}{os.pathsep}{env.get('PATH', '')}"}
        for command in commands:  # run exactly as printed, where the interrupted command ran
            again = subprocess.run(
                command, cwd=tmp_path, env=path, capture_output=True, text=True, check=False, timeout=120
            )
            assert again.returncode == 0, (command, again.stdout, again.stderr)
        probed = subprocess.run(
            [str(bin_dir() / "tierlock"), "probe", "brain", "--project", str(root), "--python", argv[6], "--json"],
            env=env,
            capture_output=True,
            text=True,
            check=False,
            timeout=120,
        )
        assert json.loads(probed.stdout)["tiers"][0]["state"] == "present", probed.stdout
