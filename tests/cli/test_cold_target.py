"""A cold ``probe``, ``status`` or ``admit`` (nothing kept for its target) asks its target interpreter exactly once;
a kept answer starts no interpreter at all.

The answer is the target's own, whatever Python tierlock runs on: on venvs of other Pythons (3.9, 3.12, 3.13) named
every way a user names one (``--python`` the interpreter or the folder, the active venv, the project's ``.venv``),
the cold run through the console script (cache folder empty), the runs after it (its answer kept) and a run of the
CLI itself that keeps nothing give the same exit code, output and errors, byte for byte. An interpreter that fails
gives the same error through the console script and the CLI, its secrets masked; an interrupt while the command
waits for its interpreter ends it and exits 130, and the command run again answers in full.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from benchmarks._cliworld import environ

from tests.support.env import clean_env
from tests.support.interpreters import PYENV, make_venv_with
from tests.support.kept import ENTRY, World, backdate
from tierlock.remedies import argv_of

pytestmark = pytest.mark.slow

#: The console script's entry, with the program and first two arguments of every process the run starts noted in
#: *note* (an audit hook: ``subprocess`` and ``os.posix_spawn`` alike).
NOTED = (
    "import sys; sys.addaudithook(lambda event, args: event in ('subprocess.Popen', 'os.posix_spawn')"
    " and open({note!r}, 'a').write(' '.join(map(str, list(args[1])[:3])) + '\\n')); " + ENTRY
)
#: The CLI itself (no console-script entry: nothing kept).
CLI = "import sys; from tierlock.cli import main; raise SystemExit(main({argv!r}))"
VERSIONS = ("3.9.18", "3.12.1", "3.13.0")


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> World:
    return World(tmp_path_factory.mktemp("cold") / "world")


@pytest.fixture(scope="module")
def venvs(world: World) -> dict[str, Path]:
    """A venv of each other Python with the base and ``brain`` tiers armed (``brain``'s compiled files are built for
    3.11: the target itself says they are not its own), and the project's ``.venv`` a copy of the 3.12 one's."""
    env = environ(world.root / "uv-cache", world.root / "wheels")
    made: dict[str, Path] = {}
    for version in VERSIONS:
        python = PYENV / version / "bin" / "python"
        if not python.exists():
            continue
        folder = world.root / f"venv-{version}"
        make_venv_with(python, folder)
        subprocess.run(
            [Path(sys.executable).parent / "install-tier", "--project", world.project, "--python", folder, "base"],
            env=env,
            capture_output=True,
            check=True,
        )
        made[version] = folder
    if "3.12.1" not in made:
        pytest.skip("Python 3.12.1 is not installed here")
    shutil.copytree(made["3.12.1"], world.project / ".venv", symlinks=True)
    backdate(world.project, *made.values())
    return made


def _run(world: World, code: str, cache: Path | str, **env: str) -> subprocess.CompletedProcess[str]:
    environment = {**clean_env(), "TIERLOCK_CACHE_DIR": str(cache), **env}
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=False, env=environment, cwd=world.project
    )


def _answer(proc: subprocess.CompletedProcess[str]) -> tuple[int, str, str]:
    return proc.returncode, proc.stdout, proc.stderr


SPELLINGS = ("interpreter", "folder", "VIRTUAL_ENV", "project")


def _named(world: World, venvs: dict[str, Path], version: str, spelling: str) -> tuple[list[str], dict[str, str], Path]:
    """The target's arguments, environment variables and interpreter for *spelling*."""
    folder = world.project / ".venv" if spelling == "project" else venvs[version]
    if spelling == "interpreter":
        return ["--python", str(folder / "bin" / "python")], {}, folder / "bin" / "python"
    if spelling == "folder":
        return ["--python", f"{folder}/"], {}, folder / "bin" / "python"
    if spelling == "VIRTUAL_ENV":
        return [], {"VIRTUAL_ENV": str(folder)}, folder / "bin" / "python"
    return [], {}, folder / "bin" / "python"


@pytest.mark.parametrize("command", ["probe", "status", "admit"])
@pytest.mark.parametrize(
    ("version", "spelling"),
    [("3.12.1", spelling) for spelling in SPELLINGS] + [("3.9.18", "interpreter"), ("3.13.0", "folder")],
)
def test_a_cold_answer_on_another_pythons_venv_is_the_kept_answer_and_the_answer_of_a_run_keeping_nothing(
    world: World, venvs: dict[str, Path], tmp_path: Path, *, command: str, version: str, spelling: str
) -> None:
    if version not in venvs:
        pytest.skip(f"Python {version} is not installed here")
    target, env, python = _named(world, venvs, version, spelling)
    argv = ["--project", str(world.project), command, *target, "--json"]
    note, cache = tmp_path / "started", tmp_path / "cache"
    cold = _run(world, NOTED.format(note=str(note), argv=argv), cache, **env)
    assert note.read_text() == f"{python} -I -c\n"  # its target asked once, nothing else started
    kept = [_run(world, NOTED.format(note=str(note), argv=argv), cache, **env) for _ in range(2)]
    assert note.read_text() == f"{python} -I -c\n"  # a kept answer starts no interpreter
    plain = _run(world, CLI.format(argv=argv), "", **env)
    assert _answer(cold) == _answer(kept[0]) == _answer(kept[1]) == _answer(plain)
    document = json.loads(cold.stdout)
    said = json.dumps(document)
    assert f"python{version.rsplit('.', 1)[0]}" in said  # (the target's own site folder, not tierlock's 3.11)
    if command == "probe":
        assert document["tiers_checked"] == 3
        assert document["python"] == str(python)


def test_a_target_interpreter_that_fails_gives_the_same_masked_error_through_the_console_script_and_the_cli(
    world: World, tmp_path: Path
) -> None:
    fake = tmp_path / "broken" / "bin" / "python"
    fake.parent.mkdir(parents=True)
    fake.write_text("#!/bin/sh\necho 'it broke: https://me:hunter2secret@index.example' >&2\nexit 3\n")
    fake.chmod(0o755)
    for command in ("probe", "status", "admit"):
        for form in ([], ["--json"]):
            argv = ["--project", str(world.project), command, "--python", str(fake), *form]
            note = tmp_path / f"started-{command}{len(form)}"
            entry = _run(world, NOTED.format(note=str(note), argv=argv), tmp_path / "cache")
            assert note.read_text() == f"{fake} -I -c\n"  # asked once, not again
            cli = _run(world, CLI.format(argv=argv), "")
            assert _answer(entry) == _answer(cli)
            assert entry.returncode != 0
            assert "(exit 3)" in entry.stdout + entry.stderr
            assert "hunter2secret" not in entry.stdout + entry.stderr


HOLD = (
    "import os, time; open({started!r}, 'w').write(str(os.getpid()));"
    ' exec("while not os.path.exists({go!r}): time.sleep(0.02)")\n'
)


def _held(venvs: dict[str, Path], tmp_path: Path) -> tuple[Path, Path, Path]:
    """A copy of the 3.12 venv whose interpreter, at its start, writes its process id to the file *started* and then
    waits for the file *go*: (the venv, *started*, *go*)."""
    venv = tmp_path / "held"
    shutil.copytree(venvs["3.12.1"], venv, symlinks=True)
    site = next(venv.glob("lib/python3.*/site-packages"))
    started, go = tmp_path / "started", tmp_path / "go"
    (site / "zz_hold.pth").write_text(HOLD.format(started=str(started), go=str(go)))
    backdate(venv)
    return venv, started, go


@pytest.mark.parametrize("command", ["probe", "status", "admit"])
def test_an_interrupt_while_a_cold_command_waits_for_its_target_ends_it_and_the_rerun_answers(
    world: World, venvs: dict[str, Path], tmp_path: Path, command: str
) -> None:
    venv, started, go = _held(venvs, tmp_path)
    argv = ["--project", str(world.project), command, "--python", str(venv)]
    env = {**clean_env(), "TIERLOCK_CACHE_DIR": str(tmp_path / "cache")}
    proc = subprocess.Popen(
        [sys.executable, "-c", ENTRY.format(argv=argv)],
        env=env,
        cwd=world.project,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 60
    while not (started.exists() and started.read_text()) and time.monotonic() < deadline:
        time.sleep(0.02)
    held = int(started.read_text())
    time.sleep(0.5)  # (the command has loaded its modules and waits for the interpreter)
    proc.send_signal(signal.SIGINT)
    _out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "interrupted" in err
    assert "Traceback" not in err
    _ended(held)
    go.touch()
    again = _run(world, ENTRY.format(argv=argv), tmp_path / "cache")
    plain = _run(world, CLI.format(argv=argv), "")
    assert _answer(again) == _answer(plain)


def _running(python: Path) -> list[int]:
    """The processes of the interpreter *python* asked about itself (``python -I -c ...``), running or unreaped."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            argv = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:  # (not a process, or one that ended meanwhile)
            continue
        if argv[:2] == [os.fsencode(python), b"-I"]:
            found.append(int(entry.name))
    return found


@pytest.mark.skipif(not Path("/proc/self/cmdline").exists(), reason="processes are listed from /proc")
@pytest.mark.parametrize("command", ["probe", "status"])
def test_a_command_that_ends_before_it_asks_its_target_leaves_no_target_interpreter_running(
    world: World, venvs: dict[str, Path], tmp_path: Path, command: str
) -> None:
    """Its target started early, then a usage error (a tier that is not declared) ends the command before it asks:
    the interpreter it started (here one whose start-up never ends) is ended with it, not left running."""
    venv, _started, go = _held(venvs, tmp_path)
    python = venv / "bin" / "python"
    try:
        for code in (ENTRY, CLI):
            argv = ["--project", str(world.project), command, "no-such-tier", "--python", str(python)]
            ended = _run(world, code.format(argv=argv), tmp_path / "cache")
            assert ended.returncode == 2, ended.stderr
            assert "unknown tier 'no-such-tier'" in ended.stderr
            assert _running(python) == [], "the target interpreter still runs after the command ended"
    finally:
        go.touch()


@pytest.mark.parametrize("command", ["probe", "status", "admit"])
def test_a_venv_whose_interpreter_cannot_be_run_is_said_so_and_the_printed_fix_makes_it_run(
    world: World, venvs: dict[str, Path], tmp_path: Path, command: str
) -> None:
    """Its ``bin/python`` a file without the execute permission (a copy gone wrong, a mount without exec): no
    internal error, but what and where, and the command that makes its interpreter again; run as printed, the next
    run answers as for the venv it was."""
    venv = tmp_path / "unrunnable"
    shutil.copytree(venvs["3.12.1"], venv, symlinks=True)
    exe = venv / "bin" / "python"
    real = exe.resolve()
    exe.unlink()
    shutil.copyfile(real, exe)
    exe.chmod(0o644)
    argv = ["--project", str(world.project), command, "--python", str(exe)]
    for code in (ENTRY.format(argv=argv), CLI.format(argv=argv)):  # (the console script, the CLI itself)
        broken = _run(world, code, tmp_path / "cache")
        assert broken.returncode == (1 if command == "admit" else 2), broken.stderr  # (admit: its probe part failed)
        assert f"cannot run the interpreter at {exe} (Permission denied)" in broken.stderr
        assert "internal error" not in broken.stderr
    printed = broken.stderr.split("to fix: ", 1)[1].splitlines()[0]
    assert printed.startswith(f"rm -f {exe} ")
    assert argv_of(printed) is not None  # (a command, carried as argv lists in --json)
    fixed = subprocess.run(printed, shell=True, env=clean_env(), capture_output=True, text=True, check=False)
    assert fixed.returncode == 0, fixed.stderr
    again = _run(world, ENTRY.format(argv=argv), tmp_path / "cache")
    healthy = ["--project", str(world.project), command, "--python", str(venvs["3.12.1"] / "bin" / "python")]
    expected = _run(world, CLI.format(argv=healthy), "")
    assert again.returncode == expected.returncode
    assert again.stdout.replace(str(venv), "VENV") == expected.stdout.replace(str(venvs["3.12.1"]), "VENV")


def _ended(pid: int) -> None:
    """*pid* ended: gone, or gone within seconds (killed by the command and reaped by it, or left to the system's
    first process to reap when the command ended first: a loaded machine). One still running after that is a
    leftover: it would wait for its "go" file for a minute."""
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.05)
    pytest.fail(f"the target interpreter ({pid}) still runs after the command ended")
