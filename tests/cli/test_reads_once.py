"""One command reads each lockfile once, and probes each tier's files once, however many of its parts need them.

Real console-script runs of ``check``, ``probe``, ``status`` and ``admit`` on a 3-tier project (the
base tier under both opt-in tiers) armed in a real virtual environment, nothing kept between runs
(``TIERLOCK_CACHE_DIR`` empty), watched from inside the process: a :func:`sys.addaudithook` hook counts
every ``open`` of a path and a wrapper of :func:`os.stat` every look-up. pyproject.toml and every lockfile
are opened once; every file of every installed package's RECORD is looked up (the verdict covers the
closure), and at most twice (a compiled file: once present, once its libraries); each RECORD and METADATA
is opened at most once.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from benchmarks._cliworld import make_world

from tests.support.env import clean_env

WATCH = """
import collections, json, os, sys
opens, stats = collections.Counter(), collections.Counter()
real = os.stat
def stat(path, *args, **kwargs):
    if not isinstance(path, int):
        stats[os.fspath(path)] += 1
    return real(path, *args, **kwargs)
os.stat = stat
def hook(event, args):
    if event == "open" and isinstance(args[0], str) and not (args[1] or "r").strip("rbt"):
        opens[args[0]] += 1
sys.addaudithook(hook)
from tierlock import _entry
ended = _entry._exit
def report(code):
    with open({out!r}, "w") as fh:
        json.dump({{"opens": opens, "stats": stats}}, fh)
    ended(code)
_entry._exit = report
sys.argv[1:] = {argv!r}
_entry.tierlock()
"""


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    project, _wheels, python, _env = make_world(tmp_path_factory.mktemp("once"))
    return project, python


def _watched(argv: list[str], out: Path) -> tuple[Counter[str], Counter[str]]:
    env = {**clean_env(), "TIERLOCK_CACHE_DIR": ""}
    code = WATCH.format(out=str(out), argv=argv)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False, env=env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    seen = json.loads(out.read_text())
    return Counter(seen["opens"]), Counter(seen["stats"])


@pytest.mark.parametrize("command", ["check", "probe", "status", "admit"])
def test_each_lockfile_and_the_pyproject_are_read_once(world: tuple[Path, Path], command: str, tmp_path: Path) -> None:
    project, python = world
    target = [] if command == "check" else ["--python", str(python)]
    opens, _ = _watched(["--project", str(project), command, *target], tmp_path / "seen.json")
    inputs = [project / "pyproject.toml", *sorted((project / "lockfiles").glob("*.txt"))]
    assert {p.name: opens[str(p)] for p in inputs} == {p.name: 1 for p in inputs}


@pytest.mark.parametrize("command", ["probe", "status", "admit"])
def test_each_installed_file_is_probed_once_per_command(world: tuple[Path, Path], command: str, tmp_path: Path) -> None:
    project, python = world
    opens, stats = _watched(["--project", str(project), command, "--python", str(python)], tmp_path / "seen.json")
    site = next(python.parent.parent.glob("lib/python*/site-packages"))
    installed: list[str] = []
    for record in site.glob("*.dist-info/RECORD"):
        assert opens[str(record)] <= 1, record
        assert opens[str(record.with_name("METADATA"))] <= 1, record
        rows = record.read_text().splitlines()
        installed += [str(site / row.split(",")[0]) for row in rows if row and not row.endswith("RECORD,,")]
    assert installed
    assert {path: stats[path] for path in installed if not 1 <= stats[path] <= 2} == {}
