"""Verify's one repair of the environment: the tier a failing check misses, installed once.

A verification check that fails on the environment (its command not found, a shell's exit
127, ``ModuleNotFoundError`` of a tier's import root) names what is missing
(:func:`tierlock.evidence.causes.missing`); :func:`needs` finds the tier that provides it in
the project's tier model: a tier provides a module that is one of its import roots (as the
pytest plugin reads them), and a command named like one of its distributions. Verify then
runs ``install-tier`` of those tiers once (:func:`installer`) and verifies again.
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from packaging.utils import canonicalize_name

from tierlock.errors import TierlockError
from tierlock.evidence import causes
from tierlock.evidence.runreceipt import CommandRecord
from tierlock.importnames import import_names
from tierlock.tiers import load_project

if TYPE_CHECKING:
    from tierlock.tiers import Project


@dataclass(frozen=True)
class Need:
    """What a failed check misses, and the tier that provides it (None: no tier does)."""

    key: str | None
    missing: str
    """``module`` or ``command``."""
    name: str
    tier: str | None

    def to_dict(self) -> dict[str, Any]:
        return {"key": self.key, "missing": self.missing, "name": self.name, "tier": self.tier}


def _project(root: Path) -> Project | None:
    if not (root / "pyproject.toml").is_file():
        return None

    try:
        project = load_project(root / "pyproject.toml")
    except TierlockError:
        return None
    return project if project.configured else None


def provider(project: Project, missing: str, name: str) -> str | None:
    """The first tier (in the project's order) that provides the module or command *name*."""

    wanted = canonicalize_name(name)
    for tier in project.tiers.values():
        if missing == "module":
            roots = {r for dist in tier.probe for r in (tier.import_roots.get(dist) or import_names(dist))}
            if name in roots:
                return str(tier.name)
        elif wanted in {*tier.probe, *(canonicalize_name(r.name) for r in tier.requirements)}:
            return str(tier.name)
    return None


def needs(records: Sequence[CommandRecord], project_root: Path) -> list[Need]:
    """What the failed verification checks among *records* miss, each with the tier that provides it."""
    found: list[tuple[str | None, str, str]] = []
    for record in records:
        if record.list != "verification" or record.status == "passed":
            continue
        if record.status == "not-found":
            found.append((record.key, "command", Path(record.command).name))
            continue
        what = causes.missing(record.tail, record.exit_code)
        if what is not None:
            found.append((record.key, *what))
    if not found:
        return []
    project = _project(project_root)
    return [Need(key, kind, name, provider(project, kind, name) if project else None) for key, kind, name in found]


def installer(env_path: str | None) -> str:
    """The ``install-tier`` to run: the one beside the running tierlock, else the first on *env_path*."""

    own = Path(sys.executable).parent / "install-tier"
    if own.is_file() and os.access(own, os.X_OK):
        return str(own)
    return shutil.which("install-tier", path=env_path) or "install-tier"
