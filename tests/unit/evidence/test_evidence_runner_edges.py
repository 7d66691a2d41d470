"""Running one command where the system has no pidfd (macOS, Linux before 5.3: the waitpid loop), and the words
for a log that cannot be written."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from tierlock.evidence import process

SLEEP = "import sys, time; time.sleep(float(sys.argv[1])); raise SystemExit(int(sys.argv[2]))"


def _env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.startswith(("PIP_", "UV_"))}


@pytest.fixture
def no_pidfd(monkeypatch: pytest.MonkeyPatch) -> None:
    """The system has no pidfd_open: the wait polls waitpid."""
    monkeypatch.delattr(os, "pidfd_open", raising=False)


@pytest.mark.usefixtures("no_pidfd")
@pytest.mark.parametrize("code", [0, 5])
def test_without_pidfd_a_command_that_takes_a_while_ends_with_its_exit_code(tmp_path: Path, code: int) -> None:
    log = tmp_path / "log"
    outcome = process.run(
        [sys.executable, "-c", SLEEP + "; print('done')", "0.3", str(code)],
        cwd=tmp_path,
        env=_env(),
        log=log,
        timeout=60,
        interrupts=process.Interrupts(),
        grace=0.5,
    )
    assert (outcome.exit_code, outcome.signal, outcome.timed_out, outcome.interrupted) == (code, None, False, False)
    assert outcome.ok is (code == 0)


@pytest.mark.usefixtures("no_pidfd")
def test_without_pidfd_a_timeout_stops_the_command(tmp_path: Path) -> None:
    outcome = process.run(
        [sys.executable, "-c", SLEEP, "30", "0"],
        cwd=tmp_path,
        env=_env(),
        log=tmp_path / "log",
        timeout=1.5,
        interrupts=process.Interrupts(),
        grace=0.5,
    )
    assert (outcome.exit_code, outcome.signal, outcome.timed_out) == (None, 15, True)
    assert not outcome.ok


def test_a_log_that_cannot_be_written_is_named_in_the_reason(tmp_path: Path) -> None:
    log = tmp_path / "01-verification-unit.log"
    log.mkdir()  # a folder where the log goes: unwritable as a file, even for root
    outcome = process.run(
        [sys.executable, "-c", "pass"],
        cwd=tmp_path,
        env=_env(),
        log=log,
        timeout=None,
        interrupts=process.Interrupts(),
    )
    assert (outcome.stage, outcome.exit_code) == ("log", None)
    assert outcome.spawn_error is not None
    kind, reason = process.describe_spawn_error(outcome.spawn_error, sys.executable, outcome.stage)
    assert (kind, reason) == ("environment", f"the log {log} cannot be written: Is a directory")
