"""A read-only command run again with nothing changed is answered from what it kept; any change is seen.

Real console-script runs (``tierlock check/probe/status/admit``) in fresh processes on a 3-tier project
whose tiers are armed by ``install-tier`` (uv, offline) into a real virtual environment. Every file is
dated a minute back, as files are that were not just written (a run that looked at something modified
within the file system's clock tick is never kept). The second run of a command gives the same output
and exit code without importing the tier model, the lockfile model or packaging; then each kind of input
is changed - pyproject.toml, a lockfile, a test file, an installed compiled file, an environment variable
the command read - and the answer follows the change.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.kept import HEAVY, World, backdate, put_back, twice


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> World:
    return World(tmp_path_factory.mktemp("kept"))


@pytest.fixture
def kept(world: World) -> Iterator[World]:
    """The world with files dated back and an empty cache folder of its own (removed after)."""
    with put_back(world, ()):
        backdate(world.project, world.venv)
        yield world


@pytest.mark.parametrize("command", ["check", "probe", "status", "admit"])
def test_a_second_run_gives_the_same_answer_without_loading_the_model(kept: World, command: str) -> None:
    first, modules = twice(kept, kept.argv(command))
    assert first.returncode == 0, first.stdout + first.stderr
    assert modules.isdisjoint(HEAVY)
    assert {m for m in modules if m.startswith("tierlock")} <= {
        "tierlock",
        "tierlock._entry",
        "tierlock._version",
        "tierlock._lazy",
        "tierlock.exitcodes",
        "tierlock.fasthash",  # (the seals' sha256, from the interpreter's C module)
        "tierlock.interrupts",
        "tierlock.keptfirst",  # (the cache folder, the entry's file, the files' digests)
        "tierlock.keptrun",
        "tierlock.keptseal",  # (the entry's two parts: the look-ups read once the files read hold)
    }


#: What a first run of a read-only command on a valid project does not need: the temporary-file helpers (only
#: a command that writes uses them), did-you-mean hints (only for a mistyped name) and the ini parser (only
#: for a project with a pytest.ini).
UNNEEDED = {"tempfile", "random", "tierlock.scratch", "difflib", "configparser"}


@pytest.mark.parametrize("command", ["check", "probe", "status"])
def test_a_first_run_of_a_read_only_command_loads_only_what_a_valid_project_needs(kept: World, command: str) -> None:
    first, modules = kept.run(kept.argv(command))
    assert first.returncode == 0, first.stdout + first.stderr
    assert "tierlock.lockfiles.check" in modules or "tierlock.tiers.loader" in modules  # not a kept answer
    assert modules.isdisjoint(UNNEEDED), sorted(modules & UNNEEDED)


def _edit(path: Path, old: str, new: str) -> str:
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new, 1))
    return text


def _restore(path: Path, text: str, world: World) -> None:
    path.write_text(text)
    backdate(world.project, world.venv)


@pytest.mark.parametrize(
    ("where", "old", "new", "said"),
    [
        ("pyproject.toml", '"brainpkg01>=1"', '"brainpkg01>=2"', "brain"),
        ("lockfiles/viz.txt", "vizpkg02==1.0", "vizpkg02==1.1", "viz"),
        ("tests/test_plain.py", "def test_plain", "import brainpkg00\n\n\ndef test_plain", "brainpkg00"),
    ],
    ids=["pyproject", "lockfile", "test-file"],
)
def test_check_follows_an_edit_of_each_file_it_read(kept: World, where: str, old: str, new: str, said: str) -> None:
    argv = kept.argv("check")
    twice(kept, argv)
    path = kept.project / where
    text = _edit(path, old, new)
    try:
        after, modules = kept.run(argv)
        assert after.returncode == 1, after.stdout + after.stderr
        assert said in after.stdout
        assert "lockfiles.check" in " ".join(modules)  # worked out again, in full
    finally:
        _restore(path, text, kept)
    again, _ = kept.run(argv)
    assert again.returncode == 0, again.stdout


def test_check_follows_a_lockfile_removed(kept: World) -> None:
    argv = kept.argv("check")
    twice(kept, argv)
    lockfile = kept.project / "lockfiles" / "brain.txt"
    text = lockfile.read_text()
    lockfile.unlink()
    try:
        after, _ = kept.run(argv)
        assert after.returncode == 1
        assert "brain" in after.stdout
    finally:
        _restore(lockfile, text, kept)


@pytest.mark.parametrize("command", ["probe", "status", "admit"])
def test_a_compiled_file_deleted_after_a_kept_run_makes_the_tier_partial(kept: World, command: str) -> None:
    argv = kept.argv(command)
    twice(kept, argv)
    site = next(kept.venv.glob("lib/python*/site-packages"))
    library = next((site / "brainpkg03").glob("_speed*"))
    data = library.read_bytes()
    library.unlink()
    try:
        after, _ = kept.run(argv)
        assert "partial" in after.stdout
        assert after.returncode == (0 if command == "status" else 1)
    finally:
        library.write_bytes(data)
        backdate(kept.project, kept.venv)


def test_a_file_changed_in_place_with_the_same_size_is_seen(kept: World) -> None:
    argv = kept.argv("probe", "--deep")
    twice(kept, argv)
    site = next(kept.venv.glob("lib/python*/site-packages"))
    module = site / "vizpkg01" / "__init__.py"
    text = module.read_text()
    module.write_text(text.replace("1", "7"))  # same size; its time moves
    try:
        after, _ = kept.run(argv)
        assert after.returncode == 1
        assert "viz" in after.stdout
        assert "partial" in after.stdout
    finally:
        _restore(module, text, kept)


def test_an_environment_variable_the_command_read_is_part_of_the_key(kept: World, tmp_path: Path) -> None:
    """Without ``--python``, probe looks at the active environment ($VIRTUAL_ENV): another one, another answer."""
    argv = ["--project", str(kept.project), "probe"]
    first, _ = kept.run(argv, VIRTUAL_ENV=str(kept.venv))
    for _attempt in range(3):
        again, modules = kept.run(argv, VIRTUAL_ENV=str(kept.venv))
        if not modules & HEAVY:
            break
    assert (first.returncode, again.stdout) == (0, first.stdout)
    other = tmp_path / "other"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(other)], check=True)
    elsewhere, _ = kept.run(argv, VIRTUAL_ENV=str(other))
    assert elsewhere.returncode == 1
    assert "absent" in elsewhere.stdout


def test_a_run_on_files_modified_just_now_is_not_kept(kept: World) -> None:
    argv = kept.argv("check")
    (kept.project / "tests" / "test_plain.py").touch()  # within the file system's clock tick
    try:
        for _ in range(2):
            _, modules = kept.run(argv)
            assert "tierlock.lockfiles.check" in modules
    finally:
        backdate(kept.project)


def test_an_empty_cache_setting_keeps_nothing(kept: World) -> None:
    argv = kept.argv("check")
    for _ in range(2):
        proc, modules = kept.run(argv, TIERLOCK_CACHE_DIR="")
        assert proc.returncode == 0
        assert "tierlock.lockfiles.check" in modules
