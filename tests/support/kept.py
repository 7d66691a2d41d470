"""Helpers for the kept answers of the read-only commands (:mod:`tierlock.keptrun`)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

from benchmarks._cliworld import make_world

from tests.support.env import clean_env
from tests.support.importtime import loaded, without_importtime

#: A minute back: files not written just now (a run that looked at a file modified within the file
#: system's clock tick is never kept).
OLD = time.time() - 60


def backdate(*roots: Path) -> None:
    """Date every file and folder under *roots* a minute back (symlinks themselves, not their targets)."""
    for root in roots:
        for folder, dirs, names in os.walk(root):
            for name in [*dirs, *names]:
                os.utime(os.path.join(folder, name), (OLD, OLD), follow_symlinks=False)
        os.utime(root, (OLD, OLD))


def entries(cache: Path) -> dict[str, int]:
    """The kept answers in *cache*: file name -> modification time (a replay leaves it, a new record moves it)."""
    return {p.name: p.stat().st_mtime_ns for p in cache.glob("runs-*.marshal")}


ENTRY = "import sys; sys.argv[1:] = {argv!r}; from tierlock._entry import tierlock; tierlock()"
#: What the full path imports and a kept answer does not need.
HEAVY = {"tierlock.tiers.loader", "tierlock.lockfiles.check", "tierlock.census", "packaging.requirements", "argparse"}


class World:
    def __init__(self, root: Path) -> None:
        self.project, _wheels, self.python, _env = make_world(root)
        self.venv = self.python.parent.parent
        self.root = root
        self.cache = root / "kept-cache"

    def argv(self, command: str, *more: str) -> list[str]:
        target = [] if command == "check" else ["--python", str(self.python)]
        return ["--project", str(self.project), command, *target, *more]

    def run(self, argv: list[str], **env: str) -> tuple[subprocess.CompletedProcess[str], set[str]]:
        """One console-script run; its result and the modules it imported (``-X importtime``)."""
        environ = {**clean_env(), "TIERLOCK_CACHE_DIR": str(self.cache), **env}
        proc = subprocess.run(
            [sys.executable, "-X", "importtime", "-c", ENTRY.format(argv=argv)],
            capture_output=True,
            text=True,
            check=False,
            env=environ,
            cwd=self.root,
        )
        modules, stderr = loaded(proc.stderr), without_importtime(proc.stderr)
        return subprocess.CompletedProcess(proc.args, proc.returncode, proc.stdout, stderr), modules

    def full(self, argv: list[str]) -> subprocess.CompletedProcess[str]:
        """A run of *argv* that keeps nothing: the answer worked out in full, to compare a kept one with."""
        proc, modules = self.run(argv, TIERLOCK_CACHE_DIR="")
        assert "tierlock.lockfiles.check" in modules  # nothing kept: worked out in full
        return proc


@contextmanager
def put_back(world: World, saved: Iterable[str], added: Iterable[str] = ()) -> Iterator[World]:
    """*world* with an empty cache folder; after, the files *saved* as they were, the files or folders *added*
    gone, the cache folder emptied again."""
    kept = {rel: (world.project / rel).read_bytes() for rel in saved}
    shutil.rmtree(world.cache, ignore_errors=True)
    try:
        yield world
    finally:
        for rel, data in kept.items():
            (world.project / rel).write_bytes(data)
        for rel in added:
            path = world.project / rel
            if path.is_dir():
                shutil.rmtree(path)
            else:
                path.unlink(missing_ok=True)
        shutil.rmtree(world.cache, ignore_errors=True)


def twice(world: World, argv: list[str]) -> tuple[subprocess.CompletedProcess[str], set[str]]:
    """Run *argv* until it is kept (the first run may start the target interpreter, which is not kept);
    return the first full run's result and the modules of a run answered from the kept entry."""
    first, _ = world.run(argv)
    for _attempt in range(3):
        again, modules = world.run(argv)
        assert (again.returncode, again.stdout, again.stderr) == (first.returncode, first.stdout, first.stderr)
        if not modules & HEAVY:
            return first, modules
    raise AssertionError(f"{argv} was never answered from a kept entry")


def full_answer(world: World, argv: list[str]) -> subprocess.CompletedProcess[str]:
    """*argv*'s answer from a run that keeps nothing (no cache folder): what a kept answer must equal."""
    proc, _modules = world.run(argv, TIERLOCK_CACHE_DIR="")
    return proc


def same_answer(after: subprocess.CompletedProcess[str], full: subprocess.CompletedProcess[str]) -> None:
    """*after* gave the answer *full* gave: exit code, output and errors, byte for byte."""
    assert (after.returncode, after.stdout, after.stderr) == (full.returncode, full.stdout, full.stderr)
