"""SIGINT and SIGTERM: one way to end a command (exit 130), handlers put back for whoever called ``main``."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.env import clean_env
from tierlock import interrupts
from tierlock.cli import main


def test_main_puts_back_the_callers_signal_handlers(project_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (project_dir / "pyproject.toml").write_text('[project]\nname = "p"\nversion = "0"\n')

    def own(signum: int, frame: object) -> None:
        del signum, frame

    previous = signal.signal(signal.SIGTERM, own)
    try:
        assert main(["--project", str(project_dir), "tiers"]) == 0
        assert signal.getsignal(signal.SIGTERM) is own
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    finally:
        signal.signal(signal.SIGTERM, previous)
    capsys.readouterr()


def test_sigterm_raises_keyboard_interrupt_and_is_named() -> None:
    restore = interrupts.install()
    try:
        with pytest.raises(KeyboardInterrupt):
            signal.raise_signal(signal.SIGTERM)
        assert interrupts.name() == "SIGTERM"
    finally:
        restore()
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL


CHILD = """
import os, signal, sys
from tierlock import cli

def slow(args, ctx):
    os.kill(os.getpid(), signal.SIGTERM)
    signal.pause()
    return 0

module = cli._command_module("tiers")
module.run = slow
sys.exit(cli.main(["tiers", "--json"]))
"""


def test_a_command_ended_by_sigterm_exits_130_with_one_message_and_a_json_exit_code_of_130(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "p"\nversion = "0"\n')
    proc = subprocess.run(
        [sys.executable, "-c", CHILD], cwd=tmp_path, env=clean_env(), capture_output=True, text=True, check=False
    )
    assert proc.returncode == 130, proc.stderr
    document = json.loads(proc.stdout)
    assert document["error"]["exit_code"] == 130
    assert document["error"]["kind"] == "interrupted"
    assert proc.stderr.splitlines() == [
        "ERROR interrupted (SIGTERM); nothing more was done",
        "  to fix: tierlock tiers --json",
    ]


WRAPPED = """
import os, signal, sys
from tierlock import cli

class Named:
    def __set_name__(self, owner, name):
        os.kill(os.getpid(), signal.SIGTERM)
        signal.pause()

def set_name(args, ctx):  # Python 3.11 wraps what __set_name__ raises in a RuntimeError
    class Model:
        field = Named()
    return 0

def reraised(args, ctx):  # a library that says an interrupt as its own error
    try:
        os.kill(os.getpid(), signal.SIGTERM)
        signal.pause()
    except KeyboardInterrupt as exc:
        raise OSError("read cancelled") from exc
    return 0

module = cli._command_module("tiers")
module.run = {"set_name": set_name, "reraised": reraised}[sys.argv[1]]
sys.exit(cli.main(["tiers"]))
"""


@pytest.mark.parametrize("where", ["set_name", "reraised"])
def test_an_interrupt_wrapped_in_another_error_on_its_way_up_still_exits_130(tmp_path: Path, where: str) -> None:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "p"\nversion = "0"\n')
    proc = subprocess.run(
        [sys.executable, "-c", WRAPPED, where],
        cwd=tmp_path,
        env=clean_env(),
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 130, proc.stderr
    said = ["ERROR interrupted (SIGTERM); nothing more was done", "  to fix: tierlock tiers"]
    assert proc.stderr.splitlines() == said


def test_an_error_holding_a_keyboard_interrupt_no_signal_raised_is_not_an_interrupt() -> None:
    restore = interrupts.install()
    try:
        try:
            raise KeyboardInterrupt
        except KeyboardInterrupt as exc:
            wrapped = RuntimeError("wrapped")
            wrapped.__cause__ = exc
        assert not interrupts.inside(wrapped)
        with pytest.raises(KeyboardInterrupt):
            signal.raise_signal(signal.SIGTERM)
        assert interrupts.inside(wrapped)
        context = ValueError("context")
        context.__context__ = OSError("plain")
        assert not interrupts.inside(context)
        looped = ValueError("loop")
        looped.__context__ = looped
        assert not interrupts.inside(looped)
        assert interrupts.inside(KeyboardInterrupt())
    finally:
        restore()


def test_a_signal_during_a_deferred_cleanup_lands_after_the_cleanup_finished() -> None:
    done = []

    def cleanup() -> None:
        with interrupts.deferred():
            signal.raise_signal(signal.SIGINT)  # held back: the cleanup goes on
            done.append("cleaned")

    with pytest.raises(KeyboardInterrupt):
        cleanup()
    assert done == ["cleaned"]


def test_a_scratch_folder_is_gone_when_an_interrupt_lands_in_the_middle_of_its_removal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import shutil
    import tempfile

    from tierlock import scratch

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    real_rmtree = shutil.rmtree
    calls: list[str] = []

    def rmtree_hit_by_ctrl_c(path: Path, ignore_errors: bool = False) -> None:
        calls.append(str(path))
        for child in sorted(Path(path).iterdir())[:1]:
            child.unlink()  # half-way through...
        signal.raise_signal(signal.SIGINT)  # ...Ctrl-C arrives
        real_rmtree(path, ignore_errors=ignore_errors)

    monkeypatch.setattr(shutil, "rmtree", rmtree_hit_by_ctrl_c)

    def install() -> None:
        with scratch.scratch_dir("tierlock-install-") as folder:
            for name in ("a", "b", "c"):
                (folder / name).write_text(name)

    with pytest.raises(KeyboardInterrupt):
        install()
    assert list(tmp_path.iterdir()) == []
    assert len(calls) == 1


def test_a_scratch_folder_interrupted_in_its_body_is_removed_and_the_interrupt_goes_on(tmp_path: Path) -> None:
    from tierlock import scratch

    used: list[Path] = []

    def lock() -> None:
        with scratch.scratch_dir("tierlock-lock-") as folder:
            used.append(folder)
            (folder / "lock.txt").write_text("x")
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        lock()
    assert used
    assert not used[0].exists()


def test_a_signal_after_the_command_closed_is_noted_and_raises_nothing() -> None:
    restore = interrupts.install()
    try:
        interrupts.close()
        try:
            signal.raise_signal(signal.SIGTERM)
        except KeyboardInterrupt:
            pytest.fail("a signal after close() raised: the process is ending, it is only noted")
        assert interrupts.received == [signal.SIGTERM]
    finally:
        restore()


def test_install_outside_the_main_thread_changes_no_handler() -> None:
    import threading

    outcome: list[object] = []

    def install_here() -> None:
        outcome.append(interrupts.install())

    worker = threading.Thread(target=install_here)
    worker.start()
    worker.join()
    assert outcome == [interrupts._nothing]
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL


@pytest.mark.parametrize(
    ("prog", "argv", "again"),
    [
        ("install-tier", ["install", "brain", "--python", "a b"], "install-tier brain --python 'a b'"),
        ("tierlock", ["install", "brain"], "tierlock install brain"),
        ("install-tier", ["brain"], "install-tier brain"),
    ],
)
def test_the_command_run_again_is_said_as_the_user_typed_it(prog: str, argv: list[str], again: str) -> None:
    assert interrupts.rerun(prog, argv) == again


def _python(script: str, *args: str) -> subprocess.CompletedProcess[str]:
    """*script* run by a Python of its own (``python -c SCRIPT ARGS``), its output captured."""
    return subprocess.run(
        [sys.executable, "-c", script, *args], check=False, capture_output=True, text=True, env=clean_env(), timeout=60
    )


SWALLOWED = """
import os, signal, sys
from tierlock import interrupts

late = []
if sys.argv[2] == "callers-own-handlers":  # its own SIGURG and SIGINT handlers, and a command inside the command
    signal.signal(signal.SIGURG, lambda signum, frame: late.append(signum))
    signal.signal(signal.SIGINT, lambda signum, frame: None)
urg = signal.getsignal(signal.SIGURG)
restore = interrupts.install()
if sys.argv[2] == "callers-own-handlers":
    interrupts.install()()
woken = interrupts._woken
lost = []


def first_wake_lost(signum, frame):  # as when the wake lands before the system call: Python never runs it
    if not lost and sys.argv[2] == "first-wake-lost":
        lost.append(signum)
        return
    woken(signum, frame)


interrupts._woken = first_wake_lost


class Dropped:
    def __del__(self):  # Python can only print what is raised here, and goes on
        signal.raise_signal(getattr(signal, sys.argv[1]))


read, _write = os.pipe()
signal.alarm(20)  # (a lost interrupt: this process ends by SIGALRM instead)
try:
    Dropped()
    if sys.argv[2] == "second-signal":  # (a second one before the first is raised again: it raises, and counts)
        signal.raise_signal(getattr(signal, sys.argv[1]))
    os.read(read, 1)  # waits in the system, as the command waits for a backend's end: only a signal wakes it
    print("went on", flush=True)
except KeyboardInterrupt:
    print("interrupted", interrupts.name(), len(interrupts.received), "lost", len(lost), flush=True)
finally:
    restore()
print("hook put back", sys.unraisablehook is sys.__unraisablehook__, signal.getsignal(signal.SIGURG) == urg)
signal.raise_signal(signal.SIGURG)  # a wake after the command ended does nothing (or what the caller's handler does)
print("late wake ignored", late, flush=True)
"""


@pytest.mark.parametrize(
    ("signame", "case", "count", "lost"),
    [
        ("SIGINT", "one", 1, 0),
        ("SIGTERM", "one", 1, 0),
        ("SIGTERM", "first-wake-lost", 1, 1),
        ("SIGINT", "first-wake-lost", 1, 1),
        ("SIGTERM", "second-signal", 2, 0),
        ("SIGTERM", "callers-own-handlers", 1, 0),
    ],
)
def test_an_interrupt_raised_where_python_can_only_print_it_still_interrupts_the_command(
    signame: str, case: str, count: int, lost: int
) -> None:
    """The signal's handler may run inside a ``__del__`` or a weakref callback (the import system's module-lock
    callback, under a loaded machine): Python prints "Exception ignored" and goes on. The interrupt is raised again,
    noted once, with nothing printed, and wakes the system call the command waits in (a backend's end), even when
    the first wake lands before that call (on a loaded machine: Python runs no handler inside it); a second signal
    still counts as one, a wake never does. The caller's hooks and handlers are put back (a command inside the
    command leaves them to the outer one), and a wake that comes later does nothing."""
    done = _python(SWALLOWED, signame, case)
    assert done.stdout.splitlines() == [
        f"interrupted {signame} {count} lost {lost}",
        "hook put back True True",
        f"late wake ignored {[int(signal.SIGURG)] if case == 'callers-own-handlers' else []}",
    ], (done.returncode, done.stderr)
    assert "Exception ignored" not in done.stderr
    assert done.returncode == 0, done.stderr


def test_a_swallowed_interrupt_raised_again_during_a_deferred_cleanup_lands_when_the_cleanup_ends() -> None:
    script = (
        "import signal, sys, time\nfrom tierlock import interrupts\nrestore = interrupts.install()\n"
        "class D:\n    def __del__(self):\n        signal.raise_signal(signal.SIGTERM)\n"
        "order = []\ntry:\n    with interrupts.deferred():\n        D()\n"
        "        for _ in range(200):\n            time.sleep(0.005)\n        order.append('cleanup ended')\n"
        "    order.append('went on')\nexcept KeyboardInterrupt:\n    order.append('interrupted')\n"
        "finally:\n    restore()\nprint(order, len(interrupts.received))\n"
    )
    done = _python(script)
    assert done.stdout.strip() == "['cleanup ended', 'interrupted'] 1", done.stderr


def test_anything_else_python_can_only_print_still_reaches_the_hook_that_was_there() -> None:
    script = (
        "import sys\nfrom tierlock import interrupts\nseen = []\nsys.unraisablehook = seen.append\n"
        "restore = interrupts.install()\nclass D:\n    def __del__(self):\n        raise ValueError('x')\n"
        "D()\nrestore()\nprint([type(u.exc_value).__name__ for u in seen], sys.unraisablehook == seen.append)\n"
    )
    done = _python(script)
    assert done.stdout.strip() == "['ValueError'] True", done.stderr
