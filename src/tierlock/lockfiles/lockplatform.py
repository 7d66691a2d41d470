"""Single-platform locks (pip-tools): which platform a lock was made for, and whether it fits a target.

A platform id is ``<sysconfig platform>/<implementation>-<major>.<minor>``,
e.g. ``linux-x86_64/cpython-3.11``: what pip-compile's resolution depended on.
"""

from __future__ import annotations

import sys
import sysconfig
from typing import TYPE_CHECKING

from tierlock.lockfiles.locks import Lock

if TYPE_CHECKING:
    from tierlock.environment import Target


def platform_id(target: Target | None = None) -> str:
    """The platform id of *target* (default: the running interpreter)."""
    if target is None:
        return f"{sysconfig.get_platform()}/{sys.implementation.name}-{sys.version_info[0]}.{sys.version_info[1]}"
    implementation = target.marker_env.get("implementation_name", "cpython")
    return f"{target.platform}/{implementation}-{target.version[0]}.{target.version[1]}"


def platform_mismatch(lock: Lock, target: Target | str | None = None) -> str | None:
    """Why *lock* must not be installed on *target*, or None when it may.

    A universal lock (uv) fits every target; its markers pick the entries. A
    single-platform lock (pip-tools) fits only the platform it was made on.
    """
    if lock.header is None or lock.header.platform is None:
        return None
    wanted = target if isinstance(target, str) else platform_id(target)
    if wanted == lock.header.platform:
        return None
    return (
        f"{lock.path} was locked for {lock.header.platform} only (pip-tools makes single-platform locks), "
        f"but the target is {wanted}; regenerate it on the target platform ({lock.header.command}) "
        f"or make a universal lock: tierlock lock {lock.header.tier} --backend uv"
    )
