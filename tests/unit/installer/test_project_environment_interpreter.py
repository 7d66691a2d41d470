"""The Python of the interpreter chosen to make the project environment: whether tierlock's own pip runs there."""

from __future__ import annotations

import sys

from tierlock.installer import creation


def test_the_interpreter_running_tierlock_is_its_own_version_and_a_python3_n_on_path_is_its_minor() -> None:
    assert creation.version_of(creation.base_interpreter()) == tuple(sys.version_info[:3])
    assert creation.version_of("/usr/bin/python3.9") == (3, 9, 0)
    assert creation.version_of("/opt/bin/python3.13") == (3, 13, 0)
    assert creation.version_of("/opt/bin/python3.13-config") == tuple(sys.version_info[:3])  # not a python3.N
