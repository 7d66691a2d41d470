"""A second signal that lands while an interrupt is being handled ends the command as interrupted (exit 130), not
as a bug in tierlock.

SIGINT then SIGTERM (a user's Ctrl-C, then the CI runner's cancel) can land the second ``KeyboardInterrupt`` inside
the standard library's own cleanup of the first (``threading.Condition.wait`` restoring its lock while a thread
starts), which then raises ``RuntimeError`` with the interrupt as its context: seen on ``install-tier`` with a
backend started early. The command was interrupted: exit 130, the interrupted message and the rerun command.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap


def _run(argv: list[str]) -> subprocess.CompletedProcess[str]:
    code = textwrap.dedent(
        f"""
        import sys
        from tierlock import cli
        from tierlock.commands import status

        def run(args, ctx):
            try:
                raise KeyboardInterrupt  # the first signal
            finally:
                raise RuntimeError("cannot release un-acquired lock")  # its cleanup cut by the second

        status.run = run
        sys.exit(cli.main({argv!r}))
        """
    )
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False, timeout=60)


def test_an_error_raised_while_an_interrupt_is_handled_ends_the_command_as_interrupted() -> None:
    proc = _run(["status"])
    assert proc.returncode == 130, proc.stderr
    assert "internal error" not in proc.stderr
    assert "interrupted" in proc.stderr


def test_its_json_document_says_interrupted_with_the_rerun_command() -> None:
    proc = _run(["--json", "status"])
    assert proc.returncode == 130, proc.stderr
    error = json.loads(proc.stdout)["error"]
    assert error["exit_code"] == 130
    assert error["kind"] == "interrupted"
    assert error["remedy_argv"] == [["tierlock", "--json", "status"]]
