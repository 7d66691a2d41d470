"""Single-platform locks (pip-tools): which platform a lock was made for, and whether it fits a target; a uv.lock
resolved for some environments only (``[tool.uv] environments``): whether the target is one of them.

A platform id is ``<sysconfig platform>/<implementation>-<major>.<minor>``,
e.g. ``linux-x86_64/cpython-3.11``: what pip-compile's resolution depended on.
"""

from __future__ import annotations

import re
import sys
import sysconfig
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from packaging.markers import InvalidMarker, Marker

from tierlock.lockfiles.locks import Lock
from tierlock.lockfiles.markers import overlap

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
        f"but the target is {wanted}; regenerate it on a machine of the target's platform ({lock.header.command}) "
        "or make a universal lock (--backend uv)"
    )


def outside_environments(lock: Lock, target: Target) -> str | None:
    """Why *target* is in none of the environments *lock* was resolved for (uv.lock's ``supported-markers``,
    which ``[tool.uv] environments`` sets), or None. Nothing was resolved for it there, so a dependency only
    it needs is in no entry: ``uv sync`` refuses such a target, and so does ``install-tier``."""
    environment = dict(target.marker_env)
    if inside(lock, environment):
        return None
    shown = " or ".join(f"`{text}`" for text in lock.environments)
    where = ", ".join(f"{key} {environment.get(key, '?')}" for key in ("sys_platform", "platform_machine"))
    return (
        f"{lock.path.name} was resolved only for the environments [tool.uv] environments names ({shown}), and the "
        f"target ({where}, Python {environment.get('python_full_version', '?')}) is in none of them, so no entry "
        "was resolved for it (uv sync refuses it too)"
    )


def environment_to_add(lock: Lock, target: Target) -> str:
    """The ``[tool.uv] environments`` entry that takes *target* in and overlaps none of *lock*'s (uv refuses
    environments that overlap): the widest of the target's ``sys_platform``, then with its machine, its Python's
    minor version, its full version; else every variable the lock's environments name, pinned to the target's
    value (no environment that holds it can tell the target apart from them)."""
    return environment_for(lock.environments, target.marker_env)


def inside(lock: Lock, environment: Mapping[str, str]) -> bool:
    """Whether one of the environments *lock* was resolved for holds *environment* (a marker environment; a lock
    of every environment, or a marker this packaging cannot judge: yes, as :func:`outside_environments`)."""
    for text in lock.environments:
        try:
            if Marker(text).evaluate(dict(environment)):
                return True
        except (InvalidMarker, KeyError, ValueError):
            return True  # a marker this packaging cannot judge: uv decides (never refused on a guess)
    return not lock.environments


def environment_for(environments: Sequence[str], env: Mapping[str, str]) -> str:
    """:func:`environment_to_add` for the marker environment *env* (a declared platform's, a target's), beside a
    lock's *environments*."""
    named = {m for text in environments for m in _VARIABLES.findall(text)} | {"sys_platform"}
    named = {"python_full_version" if n == "python_version" else n for n in named}
    pinned = " and ".join(f"{n} == '{env.get(n, '')}'" for n in sorted(named, key=_VARIABLE_ORDER.index))
    platform = f"sys_platform == '{env.get('sys_platform', '')}'"
    machine = f"{platform} and platform_machine == '{env.get('platform_machine', '')}'"
    for candidate in (
        platform,
        machine,
        f"{machine} and python_version == '{env.get('python_version', '')}'",
        f"{machine} and python_full_version == '{env.get('python_full_version', '')}'",
    ):
        if not any(overlap(Marker(candidate), Marker(text)) for text in environments):
            return candidate
    return pinned


#: The marker variables of PEP 508, in the order a pinned environment names them.
_VARIABLE_ORDER = (
    "sys_platform",
    "platform_machine",
    "python_full_version",
    "implementation_name",
    "implementation_version",
    "platform_python_implementation",
    "platform_system",
    "platform_release",
    "platform_version",
    "os_name",
)
_VARIABLES = re.compile(r"\b(" + "|".join(("python_version", *_VARIABLE_ORDER)) + r")\b")
