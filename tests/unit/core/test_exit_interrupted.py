"""An interrupt that lands while the console script writes what the run learnt (its caches, as the process ends)
does not turn a finished command into a crash: the command's exit code stands, and the caches not yet written
simply wait for a later run."""

from __future__ import annotations

import subprocess
import sys
import textwrap


def test_an_interrupt_while_the_caches_are_written_at_exit_keeps_the_commands_exit_code() -> None:
    code = textwrap.dedent(
        """
        import sys, types
        from tierlock import _entry
        written = []
        def interrupted():
            raise KeyboardInterrupt
        first = types.ModuleType("tierlock.probing.libraries")
        first.save_all = interrupted
        later = types.ModuleType("tierlock.lockfiles.keptparse")
        later.save_all = lambda: written.append(1) or print("written")
        sys.modules["tierlock.probing.libraries"] = first
        sys.modules["tierlock.lockfiles.keptparse"] = later
        print("answer")
        _entry._exit(1)
        """
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False, timeout=60)
    assert proc.returncode == 1
    assert proc.stdout == "answer\n"  # flushed; the caches after the interrupted one are left for a later run
    assert "Traceback" not in proc.stderr
    assert "KeyboardInterrupt" not in proc.stderr
