"""Which setup command a repository needs, without reading any lockfile.

Used by ``tierlock setup-command`` and by ``tierlock verify`` when the runtime
config has no ``setup``. It lives outside :mod:`tierlock.validators` so that
``tierlock verify`` derives a setup without loading the validator
(:mod:`tierlock.validators.setup_command` re-exports it).

An explicit, non-empty ``setup`` list in the runtime config wins. Otherwise exactly one
recognised lockfile at the repository root names one fixed command
(:data:`LOCKFILE_COMMANDS`); with none, or more than one, nothing is proposed
and the proposal says why. Yarn is recognised but never proposed: its two
lockfile formats (classic and Berry) need different flags.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tierlock.tiers import Project

#: Lockfile name -> the one command it implies (documented in docs/reference/runtime-config.md).
LOCKFILE_COMMANDS: dict[str, tuple[str, ...]] = {
    "uv.lock": ("uv", "sync", "--locked"),
    "poetry.lock": ("poetry", "sync"),
    "pdm.lock": ("pdm", "sync"),
    "Pipfile.lock": ("pipenv", "sync"),
    "package-lock.json": ("npm", "ci", "--prefer-offline", "--no-audit", "--no-fund"),
    "npm-shrinkwrap.json": ("npm", "ci", "--prefer-offline", "--no-audit", "--no-fund"),
    "pnpm-lock.yaml": ("pnpm", "install", "--frozen-lockfile", "--prefer-offline"),
    "bun.lock": ("bun", "install", "--frozen-lockfile"),
    "bun.lockb": ("bun", "install", "--frozen-lockfile"),
    "Cargo.lock": ("cargo", "fetch", "--locked"),
    "go.sum": ("go", "mod", "download"),
}
TIERLOCK_COMMAND = ("install-tier", "base")
"""For a tierlock project; every ``ci-require`` tier is appended (:func:`tierlock_command`)."""
NEEDS_EXPLICIT = {"yarn.lock": "Yarn needs an explicit setup: its classic and Berry lockfiles need different flags"}


@dataclass
class Proposal:
    """The proposed setup commands (empty when nothing is proposed) and why."""

    commands: list[list[str]]
    source: str
    """``runtime-config``, ``lockfile`` or ``none``."""
    reason: str
    lockfiles: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.source != "none"

    def to_dict(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "source": self.source,
            "reason": self.reason,
            "lockfiles": self.lockfiles,
            "commands": [{"command": c[0], "args": c[1:], "line": shlex.join(c)} for c in self.commands],
        }


def _tierlock_project(root: Path) -> Project | None:
    pyproject = root / "pyproject.toml"
    if not pyproject.is_file():
        return None
    from tierlock.errors import TierlockError
    from tierlock.tiers import load_project

    try:
        project = load_project(pyproject)
    except TierlockError:
        return None
    return project if project.configured else None


def tierlock_lockfile(root: Path) -> str | None:
    """The base tier's lockfile of the project at *root*, relative, if it exists."""
    project = _tierlock_project(root)
    if project is None:
        return None
    from tierlock.tiers import BASE

    lockfile = project.tiers[BASE].lockfile
    return project.relpath(lockfile) if lockfile.is_file() else None


def tierlock_command(root: Path) -> list[str]:
    """``install-tier base`` plus every ``ci-require`` tier of the project at *root*.

    The tiers CI requires are what a verification run needs armed: arming base
    alone would leave their tests to fail closed (or be skipped) in the run.
    """
    project = _tierlock_project(root)
    required = [str(t) for t in project.ci_require if t != "base"] if project is not None else []
    return [*TIERLOCK_COMMAND, *dict.fromkeys(required)]


def from_lockfiles(root: Path) -> Proposal:
    found: list[str] = []
    own = tierlock_lockfile(root)
    if own:
        found.append(own)
    found.extend(name for name in [*LOCKFILE_COMMANDS, *NEEDS_EXPLICIT] if (root / name).is_file() and name != own)
    if not found:
        known = ", ".join(["tierlock lockfiles", *LOCKFILE_COMMANDS, *NEEDS_EXPLICIT])
        return Proposal([], "none", f"no recognised lockfile at the root (looked for: {known})")
    if len(found) > 1:
        return Proposal([], "none", f"several lockfiles at the root ({', '.join(found)}): say which in setup", found)
    name = found[0]
    if name in NEEDS_EXPLICIT:
        return Proposal([], "none", NEEDS_EXPLICIT[name], found)
    command = tierlock_command(root) if name == own else list(LOCKFILE_COMMANDS[name])
    return Proposal([command], "lockfile", f"the only lockfile at the root is {name}", found)


def propose(root: Path, config: dict[str, Any] | None, config_name: str | None) -> Proposal:
    """The setup commands for the repository at *root* (*config*: a valid normalized runtime config)."""
    setup = config.get("setup", []) if config is not None else []
    if setup:
        commands = [[c["command"], *c["args"]] for c in setup]
        return Proposal(commands, "runtime-config", f"the setup list of {config_name or 'the runtime config'}")
    return from_lockfiles(root)
