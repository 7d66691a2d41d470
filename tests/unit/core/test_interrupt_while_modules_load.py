"""A signal while a command's modules load ends it with the one interrupt message, never a traceback (runtime12).

The console scripts install the SIGINT/SIGTERM handler first (:mod:`tierlock.interrupts`), then load the
command's modules: the CLI (``tierlock verify``), the gate's fast path (``tierlock verified``), the install
path. A CI cancellation's SIGTERM landing there raised ``KeyboardInterrupt`` outside every command's own handling
of it: Python printed a traceback (found by sending ``tierlock verify`` SIGTERM or SIGINT at random moments of
its first 50 ms: 3 tracebacks in 40 runs). Now both console scripts end such a run with exit 130 and
``interrupted (SIGTERM); nothing was changed``. Here the signal is real and goes through the real handler; the
step it lands in is made to wait for it.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

#: (the console script, the module and function the signal lands in, its arguments)
STEPS = {
    "tierlock verify (the CLI loading)": ("tierlock", "tierlock._entry", "_kept", ["verify"]),
    "tierlock verified (the gate's fast path)": ("tierlock", "tierlock.evidence.fastgate", "fast", ["verified"]),
    "install-tier (the install path)": ("install_tier", "tierlock._entry", "_arm", ["brain"]),
}


@pytest.mark.parametrize("step", list(STEPS))
@pytest.mark.parametrize("signal", ["SIGTERM", "SIGINT"])
def test_a_signal_while_a_command_loads_ends_it_with_the_interrupt_message(step: str, signal: str) -> None:
    script, module, where, argv = STEPS[step]
    code = textwrap.dedent(
        f"""
        import importlib, os, signal, sys, time
        from tierlock import _entry

        def loading(*args, **kwargs):
            os.kill(os.getpid(), signal.{signal})
            time.sleep(30)  # the handler raises here, as it does in the middle of an import
            return 0

        setattr(importlib.import_module("{module}"), "{where}", loading)
        sys.argv = ["{script}", *{argv!r}]
        _entry.{script}()
        """
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False, timeout=60)
    assert proc.returncode == 130, proc.stderr
    assert "Traceback" not in proc.stderr
    assert f"interrupted ({signal}); nothing was changed" in proc.stderr
