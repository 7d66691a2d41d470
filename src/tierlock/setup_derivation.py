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
from typing import TYPE_CHECKING, Any, Protocol

from tierlock import fsutil
from tierlock.errors import TierlockError
from tierlock.tiers import BASE
from tierlock.tiers.loader import parse_project, parse_toml

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
PYPROJECT = "pyproject.toml"
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


class Tree(Protocol):
    """The files of a folder: on disk (:class:`Folder`), or as a commit holds them (``--config-from``)."""

    @property
    def root(self) -> Path: ...

    def is_file(self, rel: str) -> bool: ...

    def read_text(self, rel: str) -> str | None: ...


@dataclass(frozen=True)
class Folder:
    """A folder on disk."""

    root: Path

    def is_file(self, rel: str) -> bool:
        return (self.root / rel).is_file()

    def read_text(self, rel: str) -> str | None:
        """The file's text through the safe reader (a FIFO or an oversized file is no file here)."""
        try:
            return fsutil.read_text(self.root / rel)
        except (OSError, UnicodeDecodeError, TierlockError):
            return None


def _tree(root: Path | Tree) -> Tree:
    return Folder(root) if isinstance(root, Path) else root


def _tierlock_project(tree: Tree) -> Project | None:
    if not tree.is_file(PYPROJECT):
        return None
    text = tree.read_text(PYPROJECT)
    if text is None:
        return None

    pyproject = tree.root / PYPROJECT
    try:
        project = parse_project(parse_toml(text, pyproject), pyproject=pyproject, text=text)
    except TierlockError:
        return None
    return project if project.configured else None


def tierlock_lockfile(root: Path | Tree) -> str | None:
    """The base tier's lockfile of the project at *root*, relative, if it exists."""
    tree = _tree(root)
    project = _tierlock_project(tree)
    if project is None:
        return None

    rel = project.relpath(project.tiers[BASE].lockfile)
    return rel if tree.is_file(rel) else None


def tierlock_command(root: Path | Tree) -> list[str]:
    """``install-tier base`` plus every ``ci-require`` tier of the project at *root*.

    The tiers CI requires are what a verification run needs armed: arming base
    alone would leave their tests to fail closed (or be skipped) in the run.
    """
    project = _tierlock_project(_tree(root))
    required = [str(t) for t in project.ci_require if t != "base"] if project is not None else []
    return [*TIERLOCK_COMMAND, *dict.fromkeys(required)]


def from_lockfiles(root: Path | Tree) -> Proposal:
    """The one setup command the lockfiles at *root* (a folder, or a commit's tree) name, or why there is none."""
    tree = _tree(root)
    found: list[str] = []
    own = tierlock_lockfile(tree)
    if own:
        found.append(own)
    found.extend(name for name in [*LOCKFILE_COMMANDS, *NEEDS_EXPLICIT] if name != own and tree.is_file(name))
    if not found:
        known = ", ".join(["tierlock lockfiles", *LOCKFILE_COMMANDS, *NEEDS_EXPLICIT])
        return Proposal([], "none", f"no recognised lockfile at the root (looked for: {known})")
    if len(found) > 1:
        return Proposal([], "none", f"several lockfiles at the root ({', '.join(found)}): say which in setup", found)
    name = found[0]
    if name in NEEDS_EXPLICIT:
        return Proposal([], "none", NEEDS_EXPLICIT[name], found)
    command = tierlock_command(tree) if name == own else list(LOCKFILE_COMMANDS[name])
    return Proposal([command], "lockfile", f"the only lockfile at the root is {name}", found)


def propose(root: Path, config: dict[str, Any] | None, config_name: str | None) -> Proposal:
    """The setup commands for the repository at *root* (*config*: a valid normalized runtime config)."""
    setup = config.get("setup", []) if config is not None else []
    if setup:
        commands = [[c["command"], *c["args"]] for c in setup]
        return Proposal(commands, "runtime-config", f"the setup list of {config_name or 'the runtime config'}")
    return from_lockfiles(root)
