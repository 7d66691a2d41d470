"""A kept answer against what a hostile or unlucky user does to what it rests on: the answer is always the one a
run that keeps nothing gives (``TIERLOCK_CACHE_DIR`` empty), with the same output and exit code.

Real console-script runs on the 3-tier project of ``tests/cli/test_kept_runs.py``: each command is run until its
answer is kept, then a kept entry is spoilt on disk, or an installed file of a tier is replaced by a symlink to an
equal file, by a folder, or by a file of the same size within the clock's tick, and the next run is compared with
a full one.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.kept import HEAVY, World, backdate, full_answer, put_back, same_answer, twice
from tierlock import keptseal


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> World:
    return World(tmp_path_factory.mktemp("hostile"))


@pytest.fixture
def kept(world: World) -> Iterator[World]:
    """The world with files dated back and an empty cache folder of its own (removed after)."""
    with put_back(world, ()):
        backdate(world.project, world.venv)
        yield world


@pytest.mark.parametrize("command", ["check", "probe"])
def test_a_kept_entry_whose_head_length_is_spoilt_gives_the_full_answer(kept: World, command: str) -> None:
    argv = kept.argv(command)
    twice(kept, argv)
    start = len(keptseal.SEAL2) + 32
    spoilt = 0
    for entry in kept.cache.glob("runs-*.marshal"):
        data = entry.read_bytes()
        if data.startswith(keptseal.SEAL2):
            entry.write_bytes(data[:start] + (2**62).to_bytes(8, "little") + data[start + 8 :])
            spoilt += 1
    assert spoilt
    after, _ = kept.run(argv)
    same_answer(after, full_answer(kept, argv))


def _library(world: World) -> Path:
    site = next(world.venv.glob("lib/python*/site-packages"))
    return next((site / "brainpkg03").glob("_speed*"))


@pytest.mark.parametrize("command", ["probe", "status", "admit"])
@pytest.mark.parametrize("replaced", ["symlink", "folder", "same-size-same-time"])
def test_an_installed_file_replaced_gives_the_answer_of_a_run_that_keeps_nothing(
    kept: World, command: str, replaced: str
) -> None:
    argv = kept.argv(command, "--deep") if command == "probe" else kept.argv(command)
    twice(kept, argv)
    library = _library(kept)
    data = library.read_bytes()
    was = library.stat()
    aside = kept.root / "aside.so"
    try:
        library.unlink()
        if replaced == "symlink":  # an equal file elsewhere
            aside.write_bytes(data)
            library.symlink_to(aside)
        elif replaced == "folder":
            library.mkdir()
        else:  # a byte changed past its ELF header, its time put back (a write within the tick), maybe a new inode
            library.write_bytes(data[:-1] + bytes([data[-1] ^ 1]))
            os.utime(library, ns=(was.st_atime_ns, was.st_mtime_ns))
        after, _ = kept.run(argv)
        same_answer(after, full_answer(kept, argv))
    finally:
        if library.is_symlink() or library.is_file():
            library.unlink()
        elif library.is_dir():
            library.rmdir()
        library.write_bytes(data)
        aside.unlink(missing_ok=True)
        backdate(kept.project, kept.venv)


#: A console-script run with a folder of the user's first on the module search path (``PYTHONPATH``).
EARLIER = "import sys; sys.argv[1:] = {argv!r}; from tierlock._entry import tierlock; tierlock()"


@pytest.mark.parametrize(
    "shadow",
    ["packaging.py", "packaging/__init__.py", "tomllib.py", "token.py"],
    ids=["module", "package", "stdlib-module", "stdlib-module-imported-by-one"],
)
@pytest.mark.parametrize("namespace", [False, True], ids=["new", "in-a-folder-of-its-name"])
def test_a_module_put_first_on_the_search_path_gives_the_answer_of_a_run_that_keeps_nothing(
    kept: World, tmp_path: Path, shadow: str, namespace: bool
) -> None:
    """A module of the name of one the full run imports, put in a folder before its own on sys.path (a file of
    the project's named like a module of the standard library, run with ``python -m``; a ``PYTHONPATH`` folder):
    the run that keeps nothing imports it; the kept answer is not given."""
    first = tmp_path / "first"
    first.mkdir()
    name = shadow.split("/", maxsplit=1)[0].removesuffix(".py")
    if namespace:  # a folder of its name there (a namespace portion: the path finder passes over it)
        (first / name).mkdir()
    backdate(first)
    argv = kept.argv("check")
    env = {"PYTHONPATH": str(first)}
    twice_with(kept, argv, env)
    (first / shadow).parent.mkdir(exist_ok=True)
    (first / shadow).write_text('raise ImportError("the module of the project")\n', encoding="utf-8")
    after, _ = kept.run(argv, **env)
    full, _ = kept.run(argv, **env, TIERLOCK_CACHE_DIR="")
    assert "the module of the project" in full.stderr
    # (the same error; its traceback goes through the recording of the run that could be kept)
    assert (after.returncode, after.stdout) == (full.returncode, full.stdout)
    assert "the module of the project" in after.stderr


def twice_with(world: World, argv: list[str], env: dict[str, str]) -> None:
    """Run *argv* with *env* until it is answered from a kept entry."""
    first, _ = world.run(argv, **env)
    for _attempt in range(3):
        again, modules = world.run(argv, **env)
        assert (again.returncode, again.stdout) == (first.returncode, first.stdout)
        if not modules & HEAVY:
            return
    raise AssertionError(f"{argv} was never answered from a kept entry")
