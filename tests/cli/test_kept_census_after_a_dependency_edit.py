"""After a dependency edit, a full run given the census's kept result answers as a run that keeps nothing, and so
does every later run answered from what it kept.

Real console-script runs of ``check`` and ``admit`` on the 3-tier project of ``tests/cli/test_kept_runs.py``
(armed by ``install-tier``, files dated a minute back, a conftest and a helper module the tests import). A
dependency bound of pyproject.toml is widened: the command runs in full, and its census is the result kept by the
run before (its kept file is not written again). What that run keeps - each test file's facts as the kept result
held them, as bytes not decoded - must then answer the next edit of a test file, conftest or helper exactly as a run
with an empty cache folder does: an edit that leaves the census's result (worked out again from those facts), one
that changes it, a same-size rewrite with its modification time put back, the kept census file with a byte
flipped, and another Python (3.12) sharing the cache folder.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

import tierlock
from tests.support.env import clean_env
from tests.support.interpreters import interpreter
from tests.support.kept import ENTRY, World, backdate, put_back, same_answer, twice

CONFTEST = "tests/conftest.py"
HELPER = "tests/helpers.py"
PLAIN = "tests/test_plain.py"
BRAIN = "tests/brain/test_brain.py"
FILES = {
    CONFTEST: "import pytest\n\n\n@pytest.fixture\ndef viz():\n    import vizpkg00\n\n    return vizpkg00\n",
    HELPER: "import zzzzzzzz\n\n\ndef value():\n    return 1\n",
    PLAIN: "from helpers import value\n\n\ndef test_plain():\n    assert value()\n",
}
#: What only a census worked out loads (a result kept needs none of it).
WORKING_OUT = {
    "tierlock.census.attribute",
    "tierlock.census.firstparty",
    "tierlock.census.fixtures",
    "tierlock.census.filefacts",  # the files' reader, and what its facts are made of and summed up by
    "tierlock.census.marks",
    "tierlock.census.records",
    "tierlock.census.summary",
    "tierlock.census.visible",
}
#: Edits of a test file, a conftest or a helper after the dependency edit's run was kept.
EDITS = {
    "a helper added to a test file (the result as it was)": (
        BRAIN,
        "VALUE == 0\n",
        "VALUE == 0\n\n\ndef h():\n    return 1\n",
    ),
    "a test file gains an import of a tier's root": (PLAIN, "from helpers", "import vizpkg01\nfrom helpers"),
    "the conftest's fixture made autouse": (CONFTEST, "@pytest.fixture\n", "@pytest.fixture(autouse=True)\n"),
    "the helper's import swapped, same size and modification time": (HELPER, "zzzzzzzz", "vizpkg00"),
}


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> World:
    return World(tmp_path_factory.mktemp("depedit"))


@pytest.fixture
def kept(world: World) -> Iterator[World]:
    with put_back(world, (BRAIN, PLAIN, "pyproject.toml"), (CONFTEST, HELPER)):
        for rel, text in FILES.items():
            (world.project / rel).write_text(text)
        backdate(world.project, world.venv)
        yield world


def _replace(world: World, rel: str, old: str, new: str) -> None:
    path = world.project / rel
    text = path.read_text()
    assert old in text, (rel, old)
    path.write_text(text.replace(old, new, 1))


def _census_files(world: World) -> dict[Path, int]:
    return {path: path.stat().st_mtime_ns for path in world.cache.glob("census-*.marshal")}


def _widen(world: World, to: str) -> None:
    """A dependency bound of an extra widened (the lock no longer matches), dated back as an edit a minute old."""
    _replace(world, "pyproject.toml", '"brainpkg00>=1"', f'"brainpkg00>={to}"')
    backdate(world.project / "pyproject.toml")


@pytest.mark.parametrize("command", ["check", "admit"])
@pytest.mark.parametrize("edit", list(EDITS), ids=list(EDITS))
def test_a_run_after_a_dependency_edit_and_every_run_answered_from_it_answer_as_a_run_keeping_nothing(
    kept: World, command: str, edit: str
) -> None:
    argv = kept.argv(command)
    twice(kept, argv)
    census = _census_files(kept)
    assert census  # the census's result kept by the first run
    _widen(kept, "0.5")
    after, modules = kept.run(argv)
    same_answer(after, kept.full(argv))
    assert "tierlock.lockfiles.check" in modules  # a full run ...
    assert _census_files(kept) == census  # ... given the census's kept result (not worked out, not kept again)
    assert modules.isdisjoint(WORKING_OUT), sorted(modules & WORKING_OUT)  # (nor what working it out loads)
    again, _ = kept.run(argv)  # answered from what the full run kept
    same_answer(again, after)
    rel, old, new = EDITS[edit]
    was = (kept.project / rel).stat()
    _replace(kept, rel, old, new)
    if "same size" in edit:
        os.utime(kept.project / rel, ns=(was.st_atime_ns, was.st_mtime_ns))
    edited, modules = kept.run(argv)
    same_answer(edited, kept.full(argv))
    if "the result as it was" in edit:
        assert "tierlock.census.rerun" in modules  # worked out again from the facts the full run kept
        assert "tierlock.lockfiles.check" not in modules


@pytest.mark.parametrize("command", ["check", "admit"])
def test_a_kept_census_file_with_a_byte_flipped_is_worked_out_after_a_dependency_edit(
    kept: World, command: str
) -> None:
    argv = kept.argv(command)
    twice(kept, argv)
    for path in _census_files(kept):
        data = bytearray(path.read_bytes())
        data[len(data) // 2] ^= 0x01
        path.write_bytes(bytes(data))
    _widen(kept, "0.6")
    after, _ = kept.run(argv)
    same_answer(after, kept.full(argv))
    _replace(kept, *EDITS["a helper added to a test file (the result as it was)"])
    edited, _ = kept.run(argv)
    same_answer(edited, kept.full(argv))


@pytest.mark.parametrize("command", ["check", "admit"])
def test_a_census_result_kept_by_another_interpreter_sharing_the_cache_is_not_given(kept: World, command: str) -> None:
    """Python 3.12 runs tierlock on the same project with the same cache folder after the dependency edit: the
    result 3.11 kept (its key holds the interpreter) is not given to it, and each interpreter answers as a run that
    keeps nothing."""
    other = interpreter("3.12.1").python
    argv = kept.argv(command)
    twice(kept, argv)
    _widen(kept, "0.7")
    site = Path(sys.executable).parent.parent / "lib" / f"python{sys.version_info[0]}.{sys.version_info[1]}"
    path = os.pathsep.join([str(Path(tierlock.__file__).parent.parent), str(site / "site-packages")])
    env = {**clean_env(), "TIERLOCK_CACHE_DIR": str(kept.cache), "PYTHONPATH": path}
    code = ENTRY.format(argv=argv)
    for turn in range(2):  # the first run on 3.12 finds 3.11's result, the second its own
        census = _census_files(kept)
        by_other = subprocess.run([str(other), "-c", code], capture_output=True, text=True, check=False, env=env)
        if turn == 0:  # 3.11's result not given: worked out, and kept in its place
            assert _census_files(kept) != census
        full = subprocess.run(
            [str(other), "-c", code], capture_output=True, text=True, check=False, env={**env, "TIERLOCK_CACHE_DIR": ""}
        )
        same_answer(by_other, full)
    after, _ = kept.run(argv)  # 3.11 again, with 3.12's result kept in the same file
    same_answer(after, kept.full(argv))
    assert (by_other.returncode, by_other.stdout) == (after.returncode, after.stdout)  # (3.12 ran the command)
