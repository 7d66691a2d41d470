"""The ``verified`` gate a pre-push hook runs starts without the error classes, dataclasses or typing.

Its exit codes come from :mod:`tierlock.exitcodes`, which imports nothing; :mod:`tierlock.errors`
(dataclasses, typing: tens of milliseconds) loads only when an error is raised.
"""

from __future__ import annotations

import subprocess
import sys

from tests.support.env import clean_env

HEAVY = ("tierlock.errors", "dataclasses", "typing")


def _loaded_after(module: str) -> list[str]:
    code = f"import sys, {module}; print(' '.join(m for m in {HEAVY!r} if m in sys.modules))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=clean_env())
    return done.stdout.split()


def test_the_verified_gate_imports_neither_the_error_classes_nor_dataclasses_nor_typing() -> None:
    assert _loaded_after("tierlock.evidence.fastgate") == []


def test_the_console_script_reads_its_exit_codes_without_the_error_classes() -> None:
    assert _loaded_after("tierlock._entry") == []


def test_the_error_classes_name_the_same_exit_codes_the_fast_paths_read() -> None:
    import tierlock.errors
    import tierlock.exitcodes

    names = [n for n in dir(tierlock.exitcodes) if n.startswith("EXIT_")]
    assert len(names) == 6
    assert all(getattr(tierlock.errors, n) is getattr(tierlock.exitcodes, n) for n in names)
