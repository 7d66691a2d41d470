"""A :class:`tierlock.environment.Target` written by hand: what the target interpreter would have answered, for unit
tests that never start one."""

from __future__ import annotations

import sys
from pathlib import Path

from tierlock.environment import Target


def a_target(
    prefix: Path,
    site: Path | None = None,
    *,
    stdlib: Path | None = None,
    marker_env: dict[str, str] | None = None,
    version: tuple[int, int, int] = (3, 11, 7),
) -> Target:
    """A Linux venv at *prefix* whose one site folder is *site* (None: the prefix itself, no search path) and
    whose base is this interpreter's."""
    return Target(
        python=prefix / "bin" / "python",
        prefix=prefix,
        base_prefix=Path(sys.base_prefix),
        paths=() if site is None else (site,),
        purelib=prefix if site is None else site,
        platlib=prefix if site is None else site,
        stdlib=Path(sys.base_prefix) if stdlib is None else stdlib,
        marker_env={} if marker_env is None else marker_env,
        platform="linux-x86_64",
        version=version,
    )
