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
