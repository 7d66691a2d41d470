"""Strict or lenient, and the tiers of a matrix job: read from flags and the environment (pure).

* ``--tierlock-strict`` / ``--tierlock-lenient`` win over ``TIERLOCK_STRICT``,
  which wins over CI detection (:func:`tierlock.ci.is_ci`).
* ``TIERLOCK_TIERS`` (``"base brain"``, set by ``tierlock matrix`` per job)
  names the tiers a CI job armed: their tests run, strict; the tests of every
  other tier are not collected, because another job runs them.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

import pytest

from tierlock.ci import is_ci

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}
COVERAGE_LOSS = "a skipped tier on a green run is silent coverage loss"
#: The variable that names the tiers of a matrix job.
JOB_TIERS_VAR = "TIERLOCK_TIERS"


def parse_strict_env(value: str | None) -> bool | None:
    """``TIERLOCK_STRICT``: ``1/true/yes/on`` -> True, ``0/false/no/off`` -> False, unset or empty -> None."""
    if value is None or not value.strip():
        return None
    text = value.strip().lower()
    if text in _TRUE:
        return True
    if text in _FALSE:
        return False
    raise pytest.UsageError(f"TIERLOCK_STRICT={value!r} is not understood; use 1 (strict) or 0 (lenient)")


def strictness(strict_flag: bool, lenient_flag: bool, environ: Mapping[str, str]) -> tuple[bool, str]:
    """Whether the run is strict, and why (flags win over ``TIERLOCK_STRICT``, which wins over CI detection)."""
    if strict_flag and lenient_flag:
        raise pytest.UsageError("--tierlock-strict and --tierlock-lenient contradict each other; pass one")
    if strict_flag:
        return True, "--tierlock-strict"
    if lenient_flag:
        return False, "--tierlock-lenient"
    env = parse_strict_env(environ.get("TIERLOCK_STRICT"))
    if env is not None:
        return env, f"TIERLOCK_STRICT={environ['TIERLOCK_STRICT']}"
    if is_ci(environ):
        return True, "CI detected"
    return False, "not CI"


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def job_tiers(environ: Mapping[str, str], declared: list[str], layers: Mapping[str, str | None]) -> list[str] | None:
    """The tiers of this matrix job (``TIERLOCK_TIERS``, with the tiers they are layered on), or None outside one.

    An unknown name is a usage error naming the declared tiers.
    """
    text = environ.get(JOB_TIERS_VAR, "")
    names = [_norm(n) for n in re.split(r"[\s,]+", text.strip()) if n]
    if not names:
        return None
    unknown = [n for n in names if n not in declared]
    if unknown:
        raise pytest.UsageError(
            f"{JOB_TIERS_VAR}={text!r} names {', '.join(unknown)}, not a tier of this project; "
            f"declared: {', '.join(declared)}"
        )
    chosen = set(names)
    for name in names:
        lower = layers.get(name)
        while lower is not None and lower not in chosen:
            chosen.add(lower)
            lower = layers.get(lower)
    chosen.add("base")
    return [t for t in declared if t in chosen]
