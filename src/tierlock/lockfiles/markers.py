"""Environment markers: the one evaluation for a target, and whether two markers can hold at once.

:func:`applies` is how every part of tierlock (probe, admit, status, the
pytest plugin, the installer) decides whether a requirement or a lockfile
entry is needed in a target environment: its marker evaluated against the
*target interpreter's* marker environment (``Target.marker_env``), never
tierlock's own, with the tier's extras and dependency groups. A requirement or
entry whose marker does not hold there is simply not required.

:func:`overlap` tells a universal lock's legitimate forks (``numpy==2.2 ; python_version
< "3.11"`` and ``numpy==2.3 ; python_version >= "3.11"``) from real duplicates.
Both markers are evaluated on every environment built from the values they
compare against (and values just beside them); if any environment satisfies
both, they overlap. Python versions are varied together so that
``python_version`` and ``python_full_version`` stay consistent.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable, Mapping

from packaging.markers import Marker, default_environment
from packaging.utils import canonicalize_name

_VERSION_VARS = ("python_version", "python_full_version", "implementation_version")
_FORWARD = re.compile(r"\b([a-z_]+)\s*(?:<=|>=|==|!=|~=|===|<|>|not in|in)\s*\"([^\"]*)\"")
_BACKWARD = re.compile(r"\"([^\"]*)\"\s*(?:not in|in)\s*([a-z_]+)\b")
_LIMIT = 20000
_OTHER = "tierlock-other"


def applies(
    marker: Marker | None,
    environment: Mapping[str, str] | None = None,
    *,
    extras: Iterable[str] = (),
    groups: Iterable[str] = (),
) -> bool:
    """Whether *marker* holds in *environment* (a PEP 508 marker environment; default: this interpreter's).

    No marker holds everywhere. *extras* and *groups* are the extras and
    dependency groups the tier brings in: ``extra == "x"`` holds when ``x`` is
    one of *extras* (requirement markers, evaluated once per extra and once
    without any), ``"x" in extras`` and ``"g" in dependency_groups`` (lockfile
    markers, PEP 751) when they are in the sets. Names compare normalized.
    """
    if marker is None:
        return True
    env: dict[str, str | frozenset[str]] = {}
    if environment is None:
        env.update((k, str(v)) for k, v in default_environment().items())
    else:
        env.update(environment)
    wanted = frozenset(canonicalize_name(e) for e in extras)
    env["extras"] = wanted
    env["dependency_groups"] = frozenset(canonicalize_name(g) for g in groups)
    for extra in ("", *sorted(wanted)):
        env["extra"] = extra
        if marker.evaluate(env, context="lock_file"):
            return True
    return False


def overlap(first: Marker | None, second: Marker | None) -> bool:
    """Whether some environment satisfies both markers (no marker holds everywhere)."""
    if first is None or second is None:
        return True
    values: dict[str, set[str]] = {}
    for text in (str(first), str(second)):
        for var, value in _FORWARD.findall(text):
            values.setdefault(var, set()).add(value)
        for value, var in _BACKWARD.findall(text):
            values.setdefault(var, set()).add(value)
    versions: set[str] = set()
    strings: dict[str, list[str]] = {}
    for var, found in values.items():
        if var in _VERSION_VARS:
            versions.update(found)
        elif var != "extra":
            candidates = {_OTHER}
            for value in found:
                candidates.add(value)
                candidates.update(v for v in re.split(r"[\s,]+", value) if v)
            strings[var] = sorted(candidates)
    version_candidates = _python_candidates(versions) if versions else ["3.12.0"]
    names = list(strings)
    total = len(version_candidates)
    for var in names:
        total *= len(strings[var])
    if total > _LIMIT:
        return True  # too many combinations to try: assume the worst
    for full in version_candidates:
        short = ".".join(full.split(".")[:2])
        for combo in itertools.product(*(strings[n] for n in names)):
            env = {
                "python_version": short,
                "python_full_version": full,
                "implementation_version": full,
                "extra": "",
                **dict(zip(names, combo, strict=True)),
            }
            if _holds(first, env) and _holds(second, env):
                return True
    return False


def _holds(marker: Marker, env: dict[str, str]) -> bool:
    try:
        return marker.evaluate(env)
    except Exception:  # an uncomparable value (e.g. a non-version literal): treat as holding
        return True


def _python_candidates(literals: set[str]) -> list[str]:
    out: set[str] = set()
    for literal in literals:
        parts = [int(p) for p in re.findall(r"\d+", literal)[:3]]
        if not parts:
            continue
        while len(parts) < 3:
            parts.append(0)
        major, minor, micro = parts
        out.add(f"{major}.{minor}.{micro}")
        out.add(f"{major}.{minor}.{micro + 1}")
        out.add(f"{major}.{minor + 1}.0")
        if micro > 0:
            out.add(f"{major}.{minor}.{micro - 1}")
        if minor > 0:
            out.add(f"{major}.{minor - 1}.99")
    return sorted(out) or ["3.12.0"]
