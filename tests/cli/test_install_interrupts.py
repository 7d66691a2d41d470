"""The fault suite: SIGINT and SIGTERM at several points of a fresh install and of an upgrade, with uv and pip.

Each case starts a real ``tierlock install`` in a child process, waits until
the install reaches the point under test (the environment lock taken, the
backend waiting for a download, the backend writing files or moving the old
version aside, the backend just exited), sends the signal the way a terminal (Ctrl-C: the whole
foreground group) or a supervisor (SIGTERM: the process) does - or two of them back to back (every pair, the
second inside the handling of the first) - then checks:

* exit 130 with one message, the JSON document's ``exit_code`` equal to it
  (or exit 0 and a receipt, when the install finished before the signal landed);
* no new receipt, no temporary receipt, no temporary folder of tierlock or the
  backend left in ``$TMPDIR`` (the backend had its grace period);
* no backend process runs on after the install ended;
* the printed remedy, run exactly as printed, ends ``present`` under ``probe
  --deep``, with no pip leftover beside the packages and no stale temporary receipt;
* the project tree is byte-identical throughout.

The slow wheel is real: ``bulky`` carries 800 data files, a compiled-extension
file and a console script, so pip and uv spend long enough writing it that
the signal lands mid-way.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.cli.test_install_cli import StallingIndex, World, index_env
from tests.support.binaries import loadable_stub
from tests.support.env import clean_env, make_venv, site_packages
from tests.support.tierproject import tree_snapshot, write_lock, write_pyproject
from tests.support.wheels import EXT_SUFFIX, build_wheel
from tierlock.cli import main
from tierlock.installer import receipts

pytestmark = pytest.mark.slow

MODULES = 800


def bulky_wheel(dest: Path, version: str) -> Path:
    files: dict[str, bytes | str] = {"bulky/__init__.py": f"VERSION = {version!r}\n\ndef main() -> None:\n    pass\n"}
    # Data files, not modules: the backends write each one (slow enough to interrupt) but compile none.
    files.update({f"bulky/data/part_{i:04d}.bin": bytes([i % 251]) * 2048 for i in range(MODULES)})
    files[f"bulky/_core{EXT_SUFFIX}"] = loadable_stub(4100)
    files[f"bulky-{version}.dist-info/entry_points.txt"] = "[console_scripts]\nbulky = bulky:main\n"
    return build_wheel(dest, "bulky", version, files=files)


@dataclass(frozen=True)
class Faults:
    wheels: dict[str, Path]
    links: Path
    empty_venv: Path
    armed: dict[str, Path]
    """backend -> a venv with brain armed at bulky 1.0 (the starting point of the upgrades)."""


def write_project(root: Path, wheels: dict[str, Path], bulky: str) -> Path:
    write_pyproject(root, base=("basepkg>=1",), brain=("bulky>=1",))
    base = [("basepkg", "1.0", wheels["basepkg-1.0"])]
    write_lock(root, "base", base)
    write_lock(root, "brain", [*base, ("bulky", bulky, wheels[f"bulky-{bulky}"])])
    return root


@pytest.fixture(scope="session")
def faults(tmp_path_factory: pytest.TempPathFactory) -> Faults:
    links = tmp_path_factory.mktemp("fault-wheels")
    wheels = {
        "basepkg-1.0": build_wheel(links, "basepkg", "1.0"),
        "bulky-1.0": bulky_wheel(links, "1.0"),
        "bulky-2.0": bulky_wheel(links, "2.0"),
    }
    empty = tmp_path_factory.mktemp("fault-empty") / "venv"
    make_venv(empty)
    armed: dict[str, Path] = {}
    for backend in ("uv", "pip"):
        base = tmp_path_factory.mktemp(f"fault-armed-{backend}")
        root = write_project(base / "proj", wheels, "1.0")
        venv = base / "venv"
        shutil.copytree(empty, venv, symlinks=True)
        argv = [sys.executable, "-m", "tierlock", "install", "brain", "--project", str(root)]
        argv += ["--python", str(venv / "bin" / "python"), "--backend", backend]
        env = clean_env(index_env(links, base / "cache"))
        proc = subprocess.run(argv, env=env, capture_output=True, text=True, check=False)
        assert proc.returncode == 0, proc.stderr
        armed[backend] = venv
    return Faults(wheels, links, empty, armed)


@pytest.fixture
def make_world(
    tmp_path: Path, faults: Faults, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> Iterator[Callable[[str, str], World]]:
    made: list[World] = []

    def make(scenario: str, backend: str) -> World:
        root = write_project(tmp_path / "proj", faults.wheels, "2.0" if scenario == "upgrade" else "1.0")
        venv = tmp_path / "venv"
        source = faults.armed[backend] if scenario == "upgrade" else faults.empty_venv
        shutil.copytree(source, venv, symlinks=True)
        world = World(
            root=root,
            venv=venv,
            find_links=faults.links,
            cache=tmp_path / "cache",
            monkeypatch=monkeypatch,
            capsys=capsys,
        )
        made.append(world)
        return world

    yield make
    for world in made:
        assert tree_snapshot(world.root) == world.frozen, "tierlock wrote into the project tree"


def wait_for(condition: Callable[[], bool], proc: subprocess.Popen[str], what: str, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return
        if proc.poll() is not None:
            return  # it finished first: the checks below accept a completed install
        time.sleep(0.002)
    proc.kill()
    raise AssertionError(f"the install never reached {what}")


def children(pid: int) -> list[str]:
    """The pids of *pid*'s child processes (Linux ``/proc``)."""
    try:
        return (Path(f"/proc/{pid}/task/{pid}/children")).read_text().split()
    except OSError:
        return []


def _alive(pid: int) -> bool:
    """Whether *pid* runs (not a zombie waiting to be reaped)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0] != "Z"
    except OSError:
        return False


def send(proc: subprocess.Popen[str], signum: int) -> None:
    if proc.poll() is not None:
        return
    if signum == signal.SIGINT:
        os.killpg(proc.pid, signal.SIGINT)  # Ctrl-C: the terminal signals the whole foreground group
    else:
        proc.send_signal(signal.SIGTERM)  # a supervisor signals the process


def _reach(point: str, scenario: str, world: World, proc: subprocess.Popen[str], index: StallingIndex) -> None:
    """Wait until the install is at *point* (of *scenario*): where the signal will land."""
    site = site_packages(world.venv)
    if point == "download":
        assert index.requested.wait(60), "the backend never asked for the wheel"
    elif point == "lock-taken":
        wait_for((world.venv / "tierlock" / "install.lock").exists, proc, "the environment lock")
    elif point == "after-backend":  # the backend has exited; tierlock verifies and writes the receipt
        wait_for((world.venv / "tierlock" / "install.lock").exists, proc, "the environment lock")
        wait_for(lambda: bool(children(proc.pid)), proc, "the backend's start")
        wait_for(lambda: not children(proc.pid), proc, "the backend's exit")
    elif scenario == "fresh":
        wait_for((site / "bulky").is_dir, proc, "writing bulky")
    else:
        moved = site / "~ulky"
        wait_for(lambda: moved.exists() or not (site / "bulky-1.0.dist-info").exists(), proc, "the upgrade")


def _nothing_false(world: World, code: int, document: dict[str, Any], err: str, before: Any) -> None:
    """A finished install is whole with its receipt; an interrupted one says so once and wrote no receipt."""
    if code == 0:  # the install finished before the signal landed: then it is whole, with its receipt
        assert document["result"] == "installed"
        assert world.receipt() is not None
        return
    assert code == 130, err
    assert document["ok"] is False
    assert document["error"]["exit_code"] == code
    assert document["error"]["kind"] == "interrupted"
    assert [line for line in err.splitlines() if line.startswith("ERROR")] == [
        f"ERROR {document['error']['message']}"
    ], err
    after = world.receipt()
    assert (after.data if after else None) == (before.data if before else None), "a receipt was written"


#: (scenario, point, signal): every point with both backends; each backend sees both signals.
CASES = [
    ("fresh", "lock-taken", signal.SIGTERM),
    ("fresh", "download", signal.SIGINT),
    ("fresh", "writing", signal.SIGTERM),
    ("fresh", "after-backend", signal.SIGINT),
    ("upgrade", "download", signal.SIGTERM),
    ("upgrade", "writing", signal.SIGINT),
]


#: Two signals back to back (every pair of SIGINT and SIGTERM), the second inside the handling of the first.
DOUBLES = [
    ("fresh", "download", (signal.SIGINT, signal.SIGTERM), 0.0),
    ("fresh", "download", (signal.SIGTERM, signal.SIGINT), 0.0),
    ("fresh", "download", (signal.SIGINT, signal.SIGINT), 0.01),
    ("fresh", "download", (signal.SIGTERM, signal.SIGTERM), 0.05),
    ("fresh", "writing", (signal.SIGINT, signal.SIGTERM), 0.01),
]


@pytest.mark.parametrize("backend", ["uv", "pip"])
@pytest.mark.parametrize("case", CASES, ids=[f"{s}-{p}-{signal.Signals(n).name}" for s, p, n in CASES])
def test_an_interrupt_leaves_nothing_false_and_a_rerun_ends_present_under_a_deep_probe(
    make_world: Callable[[str, str], World], tmp_path: Path, backend: str, case: tuple[str, str, int]
) -> None:
    scenario, point, signum = case
    _attacked(make_world, tmp_path, backend, scenario=scenario, point=point, signals=(signum,), gap=0.0)


@pytest.mark.parametrize("backend", ["uv", "pip"])
@pytest.mark.parametrize(
    "case",
    DOUBLES,
    ids=[
        f"{s}-{p}-{'-then-'.join(signal.Signals(n).name for n in pair)}-{int(g * 1000)}ms" for s, p, pair, g in DOUBLES
    ],
)
def test_a_second_signal_during_the_first_ones_handling_leaves_nothing_false_and_the_printed_rerun_completes_it(
    make_world: Callable[[str, str], World],
    tmp_path: Path,
    backend: str,
    case: tuple[str, str, tuple[int, int], float],
) -> None:
    scenario, point, pair, gap = case
    _attacked(make_world, tmp_path, backend, scenario=scenario, point=point, signals=pair, gap=gap)


def _attacked(
    make_world: Callable[[str, str], World],
    tmp_path: Path,
    backend: str,
    *,
    scenario: str,
    point: str,
    signals: tuple[int, ...],
    gap: float,
) -> None:
    """An install of *scenario* with *backend* sent *signals* (*gap* seconds apart) at *point*: nothing false is
    left, no backend runs on, and the printed rerun (or the same install) completes it under a deep probe."""
    world = make_world(scenario, backend)
    site = site_packages(world.venv)
    before = world.receipt()
    temp = tmp_path / "tmp"
    temp.mkdir()
    hold = "bulky" if point == "download" else "no-such-wheel"
    with StallingIndex(world.find_links, hold=hold) as index:
        env = world.sub_env(links=index.url, cache=tmp_path / "cache", TMPDIR=str(temp))
        proc = world.spawn("install", "brain", "--json", "--backend", backend, env=env, new_session=True)
        _reach(point, scenario, world, proc, index)
        backends = children(proc.pid)
        for n, signum in enumerate(signals):
            if n:
                time.sleep(gap)
            send(proc, signum)
        out, err = proc.communicate(timeout=90)
        assert not [pid for pid in backends if Path(f"/proc/{pid}").exists() and _alive(int(pid))], "a backend ran on"
        index.release.set()

    document = json.loads(out)
    _nothing_false(world, proc.returncode, document, err, before)
    folder = receipts.receipts_dir(world.venv)
    assert not list(folder.glob("*.tmp")) if folder.is_dir() else True
    # pip keeps the files an interrupted upgrade moved aside in pip-uninstall-* (for a rollback that
    # KeyboardInterrupt skips): pip's own, outside the environment; everything else must be gone.
    left = sorted(p.name for p in temp.iterdir() if not p.name.startswith("pip-uninstall-"))
    assert left == [], "a temporary folder was left behind"

    folder.mkdir(parents=True, exist_ok=True)
    stale = folder / ".brain.json.k1ll3d.tmp"  # what a receipt write killed with SIGKILL leaves
    stale.write_text("{")
    if proc.returncode == 130:  # the printed remedy, run exactly as printed (it names the project it was given)
        remedy = shlex.split(document["error"]["remedy"])
        assert remedy[:4] == ["install-tier", "--project", str(world.root), "brain"], remedy
        assert main(["install", *remedy[1:]], prog="install-tier") == 0
    else:  # it finished before the signal landed: the same install is the no-op, which takes no lock (so it cannot
        # tell a killed write's file from one being written, and leaves it); an install that works removes it
        again = world.install("brain", "--backend", backend)
        assert again.code == 0
        assert again.json["result"] == "unchanged", again.json
        assert world.install("brain", "--deep", "--backend", backend).code == 0
    assert not stale.exists()
    deep = world.cli("probe", "brain", "--closure", "--deep", "--json")
    assert deep.code == 0, deep.out
    assert deep.json["ok"] is True
    assert deep.json["tiers"][0]["state"] == "present"
    assert not [p.name for p in site.iterdir() if p.name.startswith("~")]
    receipt = world.receipt()
    assert receipt is not None
    expected = "2.0" if scenario == "upgrade" else "1.0"
    assert {p["name"]: p["version"] for p in receipt.packages}["bulky"] == expected
