"""A uv.lock resolved only for some environments (``supported-markers``): which targets are outside them, and the
environment that takes a target in without overlapping any of them (uv refuses overlapping environments).

Pure: a Lock and a Target written by hand. The install that refuses such a target, and its fix run as printed,
are in ``tests/cli/test_uv_lock_environments.py``.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from packaging.markers import Marker

from tests.support.targets import a_target
from tierlock.lockfiles.lockplatform import environment_to_add, outside_environments
from tierlock.lockfiles.locks import Lock
from tierlock.lockfiles.markers import overlap

LINUX = {
    "sys_platform": "linux",
    "platform_machine": "x86_64",
    "python_version": "3.11",
    "python_full_version": "3.11.7",
    "implementation_name": "cpython",
    "implementation_version": "3.11.7",
    "platform_python_implementation": "CPython",
    "platform_system": "Linux",
    "platform_release": "6.1.0",
    "platform_version": "#1 SMP",
    "os_name": "posix",
}


def _lock(*environments: str) -> Lock:
    return Lock(Path("/p/uv.lock"), "uv", None, (), "0" * 64, environments=environments)


def _target(**changes: str) -> object:
    return a_target(Path("/p/.venv"), marker_env={**LINUX, **changes})


@pytest.mark.parametrize(
    "environments",
    [
        (),
        ("sys_platform == 'linux'",),
        ("sys_platform == 'darwin'", "sys_platform == 'linux' and python_full_version >= '3.11'"),
        ("platform_machine ~= 'x86'",),  # a comparison packaging cannot answer: never refused on a guess
        ("sys_platform === ",),  # no marker at all: uv judges it
    ],
    ids=["none declared", "this platform", "the second one", "no answer", "not a marker"],
)
def test_a_target_that_one_environment_holds_or_that_none_can_judge_is_inside(environments: tuple[str, ...]) -> None:
    assert outside_environments(_lock(*environments), _target()) is None  # type: ignore[arg-type]


def test_a_target_no_environment_holds_is_outside_with_what_it_is_and_what_the_lock_is_for() -> None:
    why = outside_environments(_lock("sys_platform == 'darwin'", "sys_platform == 'win32'"), _target())  # type: ignore[arg-type]
    assert why == (
        "uv.lock was resolved only for the environments [tool.uv] environments names (`sys_platform == 'darwin'` or "
        "`sys_platform == 'win32'`), and the target (sys_platform linux, platform_machine x86_64, Python 3.11.7) is "
        "in none of them, so no entry was resolved for it (uv sync refuses it too)"
    )
    bare = a_target(Path("/p/.venv"), marker_env={"sys_platform": "linux"})
    assert "(sys_platform linux, platform_machine ?, Python ?)" in str(
        outside_environments(_lock("os_name == 'nt'"), bare)
    )


@pytest.mark.parametrize(
    ("environments", "added"),
    [
        (("sys_platform == 'darwin'",), "sys_platform == 'linux'"),
        (
            ("sys_platform == 'linux' and platform_machine == 'aarch64'",),
            "sys_platform == 'linux' and platform_machine == 'x86_64'",
        ),
        (
            ("python_full_version >= '3.12'", "sys_platform == 'darwin' and python_full_version < '3.12'"),
            "sys_platform == 'linux' and platform_machine == 'x86_64' and python_version == '3.11'",
        ),
        (
            ("python_full_version >= '3.11.8'", "python_full_version < '3.11.7'"),
            "sys_platform == 'linux' and platform_machine == 'x86_64' and python_full_version == '3.11.7'",
        ),
        (
            ("implementation_name == 'pypy'", "os_name == 'nt' and implementation_name == 'cpython'"),
            "sys_platform == 'linux' and implementation_name == 'cpython' and os_name == 'posix'",
        ),
        (
            ("platform_release < '6' and python_version >= '3.11'", "platform_release >= '7'"),
            "sys_platform == 'linux' and python_full_version == '3.11.7' and platform_release == '6.1.0'",
        ),
    ],
    ids=["another platform", "another machine", "other pythons", "patch releases", "pinned", "pinned versions"],
)
def test_the_environment_to_add_takes_the_target_in_and_overlaps_none_of_the_locks(
    environments: tuple[str, ...], added: str
) -> None:
    lock = _lock(*environments)
    target = _target()
    found = environment_to_add(lock, target)  # type: ignore[arg-type]
    assert found == added
    assert Marker(found).evaluate(LINUX)
    assert outside_environments(_lock(found), target) is None  # type: ignore[arg-type]
    assert not any(overlap(Marker(found), Marker(text)) for text in environments)
