"""What the part of an install under the environment lock works from (:func:`tierlock.installer.run.install`): all
read before the lock is taken. A :class:`~tierlock.frozen.Frozen` value, as every class an arming loads beside its
backend: building a dataclass there runs ``exec`` for each method it writes and loads :mod:`inspect`, CPU taken from
the backend's cores.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from tierlock.frozen import Frozen

if TYPE_CHECKING:
    from packaging.utils import NormalizedName

    from tierlock.environment import Target
    from tierlock.installer.builds import Policy
    from tierlock.lockfiles.locks import LocalPackage, Lock, LockEntry
    from tierlock.tiers import Tier


class Job(Frozen):
    """What the part under the lock works from (all read before the lock is taken)."""

    _fields = ("tiers", "target", "locks", "entries", "roots", "forced", "rules", "local", "pins_project")

    tiers: Sequence[Tier]
    target: Target
    locks: Mapping[NormalizedName, Lock]
    entries: Sequence[LockEntry]
    roots: Mapping[NormalizedName, Sequence[str]]
    forced: frozenset[str]
    rules: Policy
    """Which packages must come from wheels (their tier is no-build), and what the locks record of each."""
    local: tuple[LocalPackage, ...]
    """The packages of the project's tree to arm from their folders (:mod:`tierlock.installer.projecttree`)."""
    pins_project: bool
    """The locks reach the project itself: a package of the tiers may require it (verified after the backend)."""

    def __init__(  # noqa: PLR0917 (the signature it had as a dataclass)
        self,
        tiers: Sequence[Tier],
        target: Target,
        locks: Mapping[NormalizedName, Lock],
        entries: Sequence[LockEntry],
        roots: Mapping[NormalizedName, Sequence[str]],
        forced: frozenset[str],
        rules: Policy,
        local: tuple[LocalPackage, ...] = (),
        pins_project: bool = False,
    ) -> None:
        self._init(tiers, target, locks, entries, roots, forced, rules, local, pins_project)
