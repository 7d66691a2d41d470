"""The no-op fast path of ``install-tier``: prove from receipts that there is nothing to do.

A receipt records the digests of ``pyproject.toml`` and of every lockfile the
tier was armed from (the tier and what it is layered on), the interpreter,
and the size of every installed file. When all of them still match, the
offline drift check would give the same verdict it gave at install time (it
is a function of exactly those files), the plan would be all ``satisfied``,
and the probe would find every file - so nothing is loaded, planned or
started: this module stats files and uses only the standard library.
Whenever anything differs, the caller goes the full way.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from tierlock.installer import receipts


@dataclass(frozen=True)
class NoOp:
    tiers: list[str]
    prefix: Path
    packages: int
    files: int
    pins: list[tuple[str, str]]
    """(name, version) of every package the receipts vouch for."""


def canonical(name: str) -> str:
    """PEP 503 normalization (as :func:`packaging.utils.canonicalize_name`)."""
    return re.sub(r"[-_.]+", "-", name).lower()


def find_pyproject(project_arg: str | None) -> Path | None:
    """The nearest ``pyproject.toml`` at or above the project argument (as the tier loader finds it)."""
    start = Path(project_arg or ".").resolve()
    if start.is_file():
        return start
    for folder in (start, *start.parents):
        candidate = folder / "pyproject.toml"
        if candidate.is_file():
            return candidate
    return None


def quick_target(python: str | None, system: bool) -> tuple[Path, str] | None:
    """The target's prefix and executable without asking the interpreter, when that is safe to guess.

    Only for virtual environments (a ``pyvenv.cfg`` beside ``bin/``) or this
    interpreter; anything else goes the full way through :func:`tierlock.environment.resolve`.
    """
    if python is not None:
        exe = Path(python)
        if exe.is_dir():
            exe = exe / "bin" / "python"
        exe = Path(os.path.abspath(exe))
        prefix = exe.parent.parent
        return (prefix, str(exe)) if (prefix / "pyvenv.cfg").is_file() else None
    active = os.environ.get("VIRTUAL_ENV")
    if active and os.path.realpath(active) != os.path.realpath(sys.prefix):
        prefix = Path(os.path.abspath(active))
        return (prefix, str(prefix / "bin" / "python")) if (prefix / "pyvenv.cfg").is_file() else None
    if sys.prefix == sys.base_prefix and not system:
        return None
    return Path(sys.prefix), os.path.abspath(sys.executable)


def check(
    tiers: Sequence[str],
    prefix: Path,
    executable: str,
    pyproject: Path,
) -> tuple[NoOp | None, str]:
    """A :class:`NoOp` when every tier's receipt still holds, else None and the first difference."""
    if not tiers:
        return None, "no tier named"
    try:
        pyproject_digest = receipts.file_digest(pyproject)
    except OSError:
        return None, f"cannot read {pyproject}"
    packages = files = 0
    names: list[str] = []
    pins: dict[str, str] = {}
    for raw in dict.fromkeys(canonical(t) for t in tiers):
        receipt = receipts.load(receipts.receipt_path(prefix, raw))
        if receipt is None:
            return None, f"no receipt for {raw} in {prefix}"
        recorded = receipt.pyproject
        if recorded != (str(pyproject), pyproject_digest):
            return None, f"{pyproject} changed since {raw} was installed"
        for tier, (path, digest) in receipt.lockfile_paths.items():
            try:
                if receipts.file_digest(Path(path)) != digest:
                    return None, f"the lockfile of {tier} changed since {raw} was installed"
            except OSError:
                return None, f"cannot read {path}"
        result = receipts.verify(receipt, prefix=prefix, executable=executable)
        if not result.ok:
            return None, result.why
        packages += result.packages
        files += result.files
        names.append(raw)
        pins.update((str(p.get("name")), str(p.get("version"))) for p in receipt.packages)
    return NoOp(names, prefix, len(pins), files, sorted(pins.items())), ""


def try_noop(
    tiers: Sequence[str], *, project_arg: str | None, python: str | None, system: bool
) -> tuple[NoOp | None, str]:
    """The whole fast path: find the project and the target cheaply, then :func:`check`."""
    pyproject = find_pyproject(project_arg)
    if pyproject is None:
        return None, "no pyproject.toml"
    target = quick_target(python, system)
    if target is None:
        return None, "the target needs inspecting"
    return check(tiers, target[0], target[1], pyproject)
