"""What a run will execute: setup steps, then verification steps, each with its real cwd.

Pure over a normalized runtime config (see :func:`tierlock.validators.core.normalize`):
no process is started here.

With a config from a ref (``--config-from``), the ref's verification
list always runs, whatever the working tree's config says; checks only the
working tree adds run after it. A working-tree check replaces nothing: one
with a key the ref also has is dropped, and so is one without a key that is
identical to a ref check.
"""

from __future__ import annotations

import builtins
import difflib
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tierlock.errors import UsageError

Source = str
"""``worktree`` (the config in the working tree), ``ref`` (the config committed at --config-from),
``derived`` (a setup derived from the lockfiles) or ``repair`` (the install of a missing tier)."""


@dataclass(frozen=True)
class Step:
    """One command to run."""

    list: str
    """``setup``, ``verification`` or ``repair``."""
    index: int
    key: str | None
    label: str | None
    command: str
    args: tuple[str, ...]
    cwd: str
    """The cwd as configured (relative), ``.`` for the root."""
    cwd_path: Path
    """Where it runs."""
    env: dict[str, str] = field(repr=False)
    timeout_ms: int | None
    source: Source
    config_file: str | None = None
    """The config the command comes from: ``REF:PATH`` for a ref's, the path for the working tree's."""

    @property
    def name(self) -> str:
        return self.key or self.label or self.command

    @property
    def argv(self) -> builtins.list[str]:
        return [self.command, *self.args]

    def log_name(self, position: int) -> str:
        slug = re.sub(r"[^A-Za-z0-9._-]+", "-", self.key or Path(self.command).name).strip("-.") or "command"
        return f"{position:02d}-{self.list}-{slug[:60]}.log"


def _root(config: dict[str, Any], command: dict[str, Any], config_dir: Path, checkout: Path) -> Path:
    repos = config.get("repositories") or []
    if not repos:
        return checkout
    rid = command.get("repositoryId")
    repo = next((r for r in repos if r["id"] == rid), repos[0] if len(repos) == 1 else None)
    return (config_dir / repo["path"]) if repo is not None else checkout


def steps(
    config: dict[str, Any],
    name: str,
    *,
    config_dir: Path,
    checkout: Path,
    source: Source = "worktree",
    config_file: str | None = None,
) -> list[Step]:
    """The commands of list *name* (``setup`` or ``verification``) of a normalized *config*."""
    out: list[Step] = []
    for index, command in enumerate(config.get(name, [])):
        cwd = command.get("cwd") or "."
        root = _root(config, command, config_dir, checkout)
        out.append(
            Step(
                list=name,
                index=index,
                key=command.get("key"),
                label=command.get("label"),
                command=command["command"],
                args=tuple(command.get("args", [])),
                cwd=cwd,
                cwd_path=Path(os.path.normpath(root / cwd)),
                env=dict(command.get("env") or {}),
                timeout_ms=command.get("timeoutMs"),
                source=source,
                config_file=config_file,
            )
        )
    return out


def _same(a: Step, b: Step) -> bool:
    return (a.command, a.args, a.cwd_path, a.env) == (b.command, b.args, b.cwd_path, b.env)


def merge(ref: list[Step], worktree: list[Step]) -> list[Step]:
    """The ref's checks, then the checks only the working tree adds."""
    ref_keys = {s.key for s in ref if s.key}
    added = [s for s in worktree if not (s.key in ref_keys if s.key else any(not r.key and _same(r, s) for r in ref))]
    return [*ref, *added]


def select(checks: list[Step], only: list[str] | None) -> list[Step]:
    """The checks named by ``--only`` (all when *only* is empty); an unknown key is a usage error."""
    if not only:
        return checks
    keys = [s.key for s in checks if s.key]
    for wanted in only:
        if wanted not in keys:
            close = difflib.get_close_matches(wanted, keys, n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise UsageError(
                f"--only {wanted}: no verification check has that key{hint}; keys: {', '.join(keys) or '(none)'}",
                remedy=f"tierlock verify --only {close[0] if close else (keys[0] if keys else 'KEY')}",
            )
    return [s for s in checks if s.key in only]


def derived(commands: list[list[str]], root: Path) -> list[Step]:
    """Setup steps derived from the repository's lockfiles (``tierlock setup-command``)."""
    return [
        Step("setup", i, None, "derived from the lockfiles", c[0], tuple(c[1:]), ".", root, {}, None, "derived")
        for i, c in enumerate(commands)
    ]


def repair(executable: str, tiers: list[str], root: Path) -> Step:
    """The one install of the tiers a verification found missing (``install-tier TIER...``)."""
    return Step("repair", 0, None, "install the missing tiers", executable, tuple(tiers), ".", root, {}, None, "repair")


def inside(path: Path, top: Path) -> bool:
    """Whether *path*, symlinks followed, is *top* or inside it."""
    real, root = os.path.realpath(path), os.path.realpath(top)
    return real == root or real.startswith(root.rstrip(os.sep) + os.sep)
