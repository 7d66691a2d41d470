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


def _ended(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, check=False, timeout=60
    )


def test_an_interrupt_while_the_output_is_flushed_at_exit_keeps_the_commands_exit_code_and_its_output() -> None:
    proc = _ended(
        """
        import io, os, signal, sys
        from tierlock import _entry

        class Slow(io.TextIOWrapper):
            def flush(self):
                os.kill(os.getpid(), signal.SIGINT)  # the user's Ctrl-C, as the answer is flushed
                for _ in range(1000):
                    pass
                super().flush()

        sys.stdout = Slow(open(sys.stdout.fileno(), "wb", closefd=False), write_through=False)
        print("answer")
        _entry._exit(1)
        """
    )
    assert (proc.returncode, proc.stdout) == (1, "answer\n")
    assert "Traceback" not in proc.stderr


def test_an_interrupt_while_a_cache_file_is_written_at_exit_leaves_no_temporary_file(tmp_path: object) -> None:
    proc = _ended(
        f"""
        import os, signal, sys, types
        from tierlock import _entry
        from tierlock.probing.libcache import put

        real = os.replace

        def replace(source, target):  # the user's Ctrl-C, between the temporary file and its rename
            os.kill(os.getpid(), signal.SIGINT)
            for _ in range(1000):
                pass
            real(source, target)

        def save_all():
            os.replace = replace
            put({str(tmp_path)!r} + "/cache/kept", b"x" * 1000)

        sys.modules["tierlock.lockfiles.keptparse"] = types.SimpleNamespace(save_all=save_all)
        print("answer")
        _entry._exit(0)
        """
    )
    assert (proc.returncode, proc.stdout) == (0, "answer\n")
    assert "Traceback" not in proc.stderr
    import os

    assert [name for name in os.listdir(f"{tmp_path}/cache") if name.endswith(".tmp")] == []
