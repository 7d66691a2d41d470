"""Writing an arming's receipts (:mod:`tierlock.installer.receipts`): what they say besides the packages, made
while the backend installs (:func:`prepare`), and the receipts themselves after the verification (:func:`record`).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from contextlib import suppress
from typing import TYPE_CHECKING, Any

from tierlock._version import __version__
from tierlock.frozen import Frozen
from tierlock.installer import receiptfiles
from tierlock.installer.location import environment_key, machine_of
from tierlock.installer.receipts import (
    STAMPED,
    InstalledDist,
    Receipt,
    build,
    executable_of,
    file_digest,
    load,
    receipt_path,
    receipts_dir,
    write,
)
from tierlock.lockfiles.projectpin import reaches_project

if TYPE_CHECKING:
    from packaging.utils import NormalizedName

    from tierlock.environment import Target
    from tierlock.lockfiles.locks import Lock
    from tierlock.tiers import Project, Tier


class Prepared(Frozen):
    """What the receipts of an arming say besides its packages: the same before the backend runs as after it (the
    project's and the lockfiles' bytes as this command read them, the target's names, the pins each tier's lock
    applies), so :func:`prepare` makes it while the backend installs (:mod:`tierlock.installer.ahead`)."""

    _fields = ("environment", "pyproject", "interpreter", "tiers")

    environment: str
    pyproject: tuple[str, str]
    interpreter: dict[str, Any]
    tiers: dict[str, tuple[dict[str, tuple[str, str]], frozenset[str], bool, frozenset[str], bool]]
    """Tier -> (its lockfile chain: tier -> (path, digest); the names its lock applies here; whether its lock
    reaches the project itself; every name its lock pins; whether a plain arming installs the project itself from
    its tree, :func:`tierlock.installer.projecttree.wanted`)."""

    def __init__(
        self,
        *,
        environment: str,
        pyproject: tuple[str, str],
        interpreter: dict[str, Any],
        tiers: dict[str, tuple[dict[str, tuple[str, str]], frozenset[str], bool, frozenset[str], bool]],
    ) -> None:
        self._init(environment, pyproject, interpreter, tiers)


def prepare(
    project: Project, *, tiers: Sequence[Tier], locks: Mapping[NormalizedName, Lock], target: Target
) -> Prepared:
    """The parts of the receipts of *tiers* that do not depend on what the backend installs; their folder made
    (a missing one is made again by :func:`write`, which says what stops it)."""
    environment = environment_key(target.prefix)  # one name whatever spelling reached it (the fast path's key)
    made: dict[str, tuple[dict[str, tuple[str, str]], frozenset[str], bool, frozenset[str], bool]] = {}
    for tier in tiers:
        lock = locks[tier.name]
        chain = {str(t.name): (str(t.lockfile), file_digest(t.lockfile)) for t in project.chain(tier.name)}
        wanted = frozenset(
            {e.name for e in lock.applicable(target.marker_env)}
            | {p.name for p in lock.local if p.applies(target.marker_env)}
        )
        pinned = frozenset(str(e.name) for e in lock.entries)
        itself = any(p.name == project.name for p in lock.local)
        made[str(tier.name)] = (chain, wanted, reaches_project(lock, project.name), pinned, itself)
    with suppress(OSError):
        receipts_dir(target.prefix).mkdir(exist_ok=True)
    return Prepared(
        environment=environment,
        pyproject=(str(project.pyproject), file_digest(project.pyproject)),
        interpreter={
            "executable": executable_of(target),
            "environment": environment,
            "prefix": str(target.prefix),
            "version": ".".join(str(v) for v in target.version),
            "platform": target.platform,
            "machine": machine_of(str(target.python)),  # (the no-op fast path compares it: a venv shared between hosts)
            "real": os.path.realpath(target.python),  # (and this: the interpreter a venv's link leads to replaced)
        },
        tiers=made,
    )


def record(
    project: Project,
    *,
    tiers: Sequence[Tier],
    locks: Mapping[NormalizedName, Lock],
    target: Target,
    dists: Sequence[InstalledDist],
    backend: str | None,
    backend_version: str | None,
    prepared: Prepared | None = None,
) -> list[str]:
    """One receipt per tier, unless an identical one (same lockfile, interpreter and files) is there already.

    *prepared*: :func:`prepare` of the same tiers, locks and target (made while the backend ran); else made now."""
    if prepared is None:
        prepared = prepare(project, tiers=tiers, locks=locks, target=target)
    written: list[str] = []
    environment, pyproject = prepared.environment, prepared.pyproject
    for tier in tiers:
        chain, applied, reaches, pinned, itself = prepared.tiers[str(tier.name)]
        wanted = set(applied)
        if reaches:  # the project itself, when a package of the tier requires it
            wanted |= {d.name for d in dists if d.project}
        tier_dists = sorted((d for d in dists if d.name in wanted), key=lambda d: d.name)
        left_out = sorted(pinned - {d.name for d in tier_dists})
        # armed without the project itself (--no-install-project): a plain install-tier must not be a no-op
        without = itself and not any(d.project and d.name == project.name for d in tier_dists)
        existing = load(receipt_path(target.prefix, tier.name))
        same = {
            "lockfiles": chain,
            "pyproject": pyproject,
            "environment": environment,
            "interpreter": prepared.interpreter,
            "left_out": left_out,
            "without_project": without,
        }
        if existing is not None and _kept(existing, same, tier_dists, target):
            continue
        if backend:
            backend_of = (backend, backend_version or "")
        elif existing is not None:  # no backend ran: the packages are the ones the replaced receipt's backend installed
            backend_of = existing.backend
        else:
            backend_of = ("none", "")
        document = build(
            tier=tier.name,
            pyproject=pyproject,
            lockfiles=chain,
            packages=tier_dists,
            backend=backend_of[0],
            backend_version=backend_of[1],
            interpreter=prepared.interpreter,
            project=str(project.root),
            tierlock_version=__version__,
            left_out=left_out,
            without_project=without,
        )
        written.append(str(write(target.prefix, document)))
    return written


def _kept(existing: Receipt, wanted: Mapping[str, Any], dists: Sequence[InstalledDist], target: Target) -> bool:
    """Whether *existing* already says what a new receipt would (:func:`_same`): then it is left as it is, dated again
    when a compiled file it lists changed since it was written (:func:`_dated`: for the no-op fast path)."""
    if not _same(existing, wanted, [d.to_dict() for d in dists]):
        return False
    if not _dated(existing, target):
        with suppress(OSError):  # (not dated again: the fast path steps aside, the full path vouches)
            os.utime(existing.path)
    return True


def _dated(existing: Receipt, target: Target) -> bool:
    """Whether *existing* is dated no earlier than the last change of every compiled file it lists, as the no-op
    fast path needs it (:func:`tierlock.installer.receiptfiles.compiled_changed`): one whose files changed since (a
    hard link made to them, a file repaired or rewritten in place and found whole now) or dated past the clock is
    dated again (what it says is what a new one would say)."""
    written = receiptfiles.written_at(str(existing.path))
    if written is None:
        return False
    packages = [p for p in existing.data.get("packages", ()) if isinstance(p, dict)]
    return not receiptfiles.compiled_changed(packages, str(target.prefix), written)


def _same(existing: Receipt, wanted: Mapping[str, Any], packages: list[dict[str, Any]]) -> bool:
    """Whether *existing* already says what a new receipt would (then it is not rewritten)."""
    return (
        existing.lockfile_paths == wanted["lockfiles"]
        and existing.pyproject == wanted["pyproject"]
        and existing.data.get("interpreter", {}).get("environment") == wanted["environment"]
        and existing.data.get("interpreter") == wanted["interpreter"]
        and existing.data.get("left_out") == wanted["left_out"]
        and bool(existing.data.get("without_project")) == wanted["without_project"]
        and "stale" not in existing.data
        and bool(existing.data.get(STAMPED))
        and existing.data.get("tierlock_version") == __version__
        and existing.packages == packages
    )
