"""Everything ``tierlock verify`` decides before the first command starts, and every refusal (exit 2).

:func:`prepare` finds and validates the config, binds the run to the checkout (refusing a dirty
tree), reads the base's config for ``--config-from`` (its checks always run, its setup is the
setup), chooses the setup (the config's list, explicitly empty, or derived from the lockfiles),
the target environment and the evidence folder. Nothing runs here.
"""

from __future__ import annotations

import os
import shlex
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tierlock.errors import ConfigError, UsageError
from tierlock.evidence import activation, discovery, gitbind, gitcall, hiddenedits, refconfig, steps, store
from tierlock.evidence.answer import listed, verify_command
from tierlock.evidence.config import VALIDATION_CACHE, Validated, find_config, sha256, validated
from tierlock.evidence.process import GRACE_SECONDS
from tierlock.setup_derivation import from_lockfiles

if TYPE_CHECKING:
    from tierlock.evidence.refconfig import BaseConfig, RefTree

#: Config env values at least this long are masked in tails too (shorter ones, like "0", would mask noise).
MIN_MASKED_VALUE = 4


class DirtyTree(UsageError):
    """The working tree has changes: verify refuses (exit 2) without --allow-dirty."""

    kind = "dirty-tree"


@dataclass(eq=False, repr=False)  # no comparison or repr: cheaper to define at start-up
class Options:
    config: Path | None = None
    project: Path | None = None
    only: list[str] | None = None
    no_setup: bool = False
    allow_dirty: bool = False
    config_from: str | None = None
    evidence_dir: Path | None = None
    keep: int = store.DEFAULT_KEEP
    grace: float = GRACE_SECONDS
    fail_fast: bool = False
    twice: bool = False
    """Run the setup twice and require the second run to change nothing."""
    repair: bool = True
    """Install the tier a failing check misses, once, and verify again."""


@dataclass(eq=False, repr=False)
class Prepared:
    """Everything decided before the first command runs."""

    config_path: Path | None
    """None: the working tree has no runtime config, and ``--config-from REF`` runs the base's alone."""
    config_dir: Path
    config_file: str | None
    """The config as the receipt names it: relative to the checkout, else its absolute path (None: none)."""
    root: Path
    """The checkout top (or, outside git, the config's folder): where cwd values point."""
    checkout: gitbind.Checkout | None
    dirty: list[str]
    config_digest: str | None
    config_from: dict[str, Any] | None
    setup: list[steps.Step]
    setup_source: dict[str, Any]
    checks: list[steps.Step]
    evidence_dir: Path
    options: Options
    target: activation.Target
    project_root: Path
    not_checked: list[str] = field(default_factory=list)
    """Folders inside the tree left out of every tree check (an evidence folder there)."""
    masked: list[tuple[str, str]] = field(default_factory=list)
    """(env name, value) of config env values masked in tails."""
    redact_args: bool = False
    """A command or argument is credential-shaped (accepted by the config): record and show them redacted."""
    dirty_state: dict[str, str] = field(default_factory=dict)
    """Content digests of the dirty paths at the start (``--allow-dirty``)."""

    @property
    def top(self) -> Path | None:
        return self.checkout.top if self.checkout is not None else None

    @property
    def bound(self) -> bool:
        return self.checkout is not None and self.checkout.commit is not None


def prepare(options: Options) -> Prepared:
    """Validate, bind and plan; raise (exit 2) on anything that refuses the run. Nothing runs here."""
    config_path, missing = _config_path(options)
    start = options.project or Path(".")
    config_dir = config_path.resolve().parent if config_path else Path(discovery.folders(str(start))[0])
    checkout = gitbind.find(config_dir)
    root = checkout.top if checkout is not None else config_dir
    if missing is not None and checkout is None:
        raise missing
    evidence_dir, not_checked = _evidence_dir(options, checkout, root)
    if config_path is None:
        found = Validated({"verification": []}, shaped=False, setup_declared=False)
    else:
        found = validated(config_path, root, evidence_dir / VALIDATION_CACHE if checkout is not None else None)
    dirty = _dirty(checkout, options.allow_dirty, not_checked)
    config_file = None
    if config_path is not None:
        config_file = (gitbind.relative(root, config_path) if checkout else None) or str(config_path.resolve())
    checks = steps.steps(found.config, "verification", config_dir=config_dir, checkout=root, config_file=config_file)
    base = _base(options, checkout) if options.config_from is not None else None
    if missing is not None and (base is None or base.config is None):
        raise missing  # no config here, and none at REF either
    if base is not None and base.config is not None:
        ref_checks = steps.steps(
            base.config, "verification", config_dir=base.config_dir, checkout=root, source="ref", config_file=base.name
        )
        checks = steps.merge(ref_checks, checks)
    checks = steps.select(checks, options.only)
    setup, setup_source = _setup(found, base, config_dir, root, config_file)
    if options.twice and (options.no_setup or not setup):
        raise UsageError(
            "--twice runs the setup twice, and there is no setup command to run"
            + (" (--no-setup)" if options.no_setup else f": {setup_source['reason']}"),
            remedy="add a setup list to the runtime config, or drop --twice",
        )
    project_root = activation.project_root(config_dir, root)
    return Prepared(
        config_path=config_path,
        config_dir=config_dir,
        config_file=config_file,
        root=root,
        checkout=checkout,
        dirty=dirty,
        config_digest=sha256(config_path.read_bytes()) if config_path is not None else None,
        config_from=base.where if base is not None else None,
        setup=setup,
        setup_source=setup_source,
        checks=checks,
        evidence_dir=evidence_dir,
        options=options,
        target=activation.locate(project_root),
        project_root=project_root,
        not_checked=not_checked,
        masked=_masked([*setup, *checks]),
        redact_args=found.shaped or (base is not None and base.shaped),
        dirty_state=snapshot_paths(checkout.top, dirty) if checkout is not None and dirty else {},
    )


def _config_path(options: Options) -> tuple[Path | None, ConfigError | None]:
    """The runtime config, or (None, why) when the working tree has none and ``--config-from REF`` may run the
    base's alone (a branch that deleted its config is still held to the base's gate, never refused for it)."""
    try:
        return find_config(options.config, options.project), None
    except ConfigError as missing:
        start = str(options.project or Path("."))
        if options.config is not None or options.config_from is None or discovery.on_disk(start) is not None:
            raise
        return None, missing


def _evidence_dir(options: Options, checkout: gitbind.Checkout | None, root: Path) -> tuple[Path, list[str]]:
    """The evidence folder, and the folder inside the tree to leave out of the tree check (when it lies there)."""
    evidence_dir = (options.evidence_dir or store.default_dir(checkout.git_dir if checkout else None, root)).resolve()
    _refuse_unwritable(evidence_dir, options, root)
    if checkout is None:
        if options.evidence_dir is None:
            store.ignore_outside_git(evidence_dir)
        return evidence_dir, []
    if evidence_dir == checkout.top.resolve():
        raise UsageError(
            f"--evidence-dir {evidence_dir} is the working tree itself: every run folder would change the tree",
            remedy=f"tierlock --project {root} verify   # the default evidence folder is in the git dir",
        )
    rel = gitbind.relative(checkout.top, evidence_dir)
    if rel is None or gitbind.relative(checkout.git_dir, evidence_dir) is not None:
        return evidence_dir, []  # outside the tree, or in the git dir: git status never shows it
    return evidence_dir, [rel]


def _refuse_unwritable(evidence_dir: Path, options: Options, root: Path) -> None:
    """Refuse (exit 2, before anything runs) an evidence folder that cannot be made (a file on its path, no access).

    The remedy drops a chosen ``--evidence-dir`` (the default folder), or moves the default one to the temporary folder.
    """
    existing = evidence_dir
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    if existing.is_dir() and os.access(existing, os.W_OK | os.X_OK):
        return
    problem = "is not a folder" if not existing.is_dir() else "is not writable"
    why = problem if existing == evidence_dir else f"cannot be made: {existing} {problem}"
    config = str(options.config) if options.config is not None else None
    instead = (
        None
        if options.evidence_dir is not None
        else str(Path(tempfile.gettempdir()) / f"tierlock-evidence-{root.name}")
    )
    raise UsageError(
        f"evidence folder {evidence_dir} {why}: nothing was run",
        remedy=verify_command(config, options.config_from, instead, str(root)),
    )


def _dirty(checkout: gitbind.Checkout | None, allow_dirty: bool, not_checked: list[str]) -> list[str]:
    """The uncommitted changes at the start; refuses the run (DirtyTree) when there are any, unless allowed."""
    if checkout is None or checkout.commit is None:
        return []
    dirty = gitbind.changes(checkout.top, not_checked)
    if dirty and not allow_dirty:
        raise DirtyTree(
            f"the working tree of {checkout.top} has {len(dirty)} uncommitted change(s) ({listed(dirty)}): "
            "a receipt must belong to one commit's tree",
            remedy=f"{stash_command(checkout.top, not_checked)}   # or commit; "
            "--allow-dirty runs anyway, and its receipt never satisfies tierlock verified",
        )
    return dirty


def stash_command(top: Path, not_checked: list[str]) -> str:
    """``git stash`` of every uncommitted change but what tierlock writes in *not_checked* (an evidence folder); the
    flags that hide an edit from git (assume-unchanged, skip-worktree) cleared first, and each submodule's own edits
    stashed in the submodule and each submodule checked out again at HEAD's commit, else the stash passes them by."""
    spec = gitbind.pathspec(not_checked)
    flagged = hiddenedits.hidden(str(top), spec)
    steps = hiddenedits.reveal(str(top), flagged) if flagged else []
    steps.extend(gitcall.remedy(str(top), spec, gitbind.changed_submodules(top, not_checked)))
    return " && ".join(map(shlex.join, steps))


def _base(options: Options, checkout: gitbind.Checkout | None) -> BaseConfig:
    ref = str(options.config_from)
    if checkout is None:
        raise UsageError(
            f"--config-from {ref} needs the config inside a git checkout",
            remedy="run it inside the repository, or drop --config-from",
        )
    try:
        return refconfig.read(checkout.top, ref, options.project or Path("."))
    except refconfig.BaseNotFound as err:
        if err.fix is not None:
            config = str(options.config) if options.config is not None else None
            evidence = str(options.evidence_dir) if options.evidence_dir is not None else None
            project = str(options.project) if options.project is not None else None
            err.remedy = verify_command(config, err.fix, evidence, project)
        raise


def _setup(
    found: Validated, base: BaseConfig | None, config_dir: Path, root: Path, config_file: str | None
) -> tuple[list[steps.Step], dict[str, Any]]:
    """The setup steps and where they come from: the base's (``--config-from``), the config's, or derived."""
    if base is not None and base.config is not None:
        if base.setup_declared:
            setup = steps.steps(
                base.config, "setup", config_dir=base.config_dir, checkout=root, source="ref", config_file=base.name
            )
            return setup, {"source": "ref", "reason": _listed(base.name, setup)}
        return _derived(config_dir, f"{base.name} has no setup list: ", refconfig.tree(root, base))
    if found.setup_declared:
        setup = steps.steps(found.config, "setup", config_dir=config_dir, checkout=root, config_file=config_file)
        return setup, {"source": "runtime-config", "reason": _listed(Path(str(config_file)).name, setup)}
    return _derived(config_dir, "")


def _listed(name: str, setup: list[steps.Step]) -> str:
    return f"the setup list of {name}" if setup else f"the setup list of {name} is explicitly empty: no setup"


def _derived(config_dir: Path, why: str, base: RefTree | None = None) -> tuple[list[steps.Step], dict[str, Any]]:
    """The setup the lockfiles name: the base's at its commit (``--config-from``), else the tree's."""

    proposal = from_lockfiles(base if base is not None else config_dir)
    if base is not None:
        why += f"derived from the lockfiles at {base.commit[:12]}: "
    return steps.derived(proposal.commands, config_dir), {"source": proposal.source, "reason": why + proposal.reason}


def _masked(planned: list[steps.Step]) -> list[tuple[str, str]]:
    found = {(name, value) for step in planned for name, value in step.env.items() if len(value) >= MIN_MASKED_VALUE}
    return sorted(found, key=lambda pair: -len(pair[1]))


def snapshot_paths(top: Path, paths: list[str]) -> dict[str, str]:
    """sha256 (or a marker) of each changed path's content: a dirty file edited further is a change too."""
    out: dict[str, str] = {}
    for rel in paths:
        path = top / rel
        try:
            out[rel] = sha256(path.read_bytes()) if path.is_file() else ("folder" if path.is_dir() else "missing")
        except OSError:
            out[rel] = "unreadable"
    return out
