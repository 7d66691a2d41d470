"""When all that is wrong with probed distributions is shared libraries the system lacks: the remedy is the system's.

A distribution whose files are whole but whose extension needs a library the dynamic loader cannot find
(:mod:`tierlock.probing.libraries`) is not mended by reinstalling it: the system's package manager is
(:mod:`tierlock.probing.provider`). This module decides when that is the one remedy; it imports nothing of the
probe (:mod:`tierlock.probing.libraries` gives its names too).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol


class Probed(Protocol):
    """What the remedies need of a :class:`~tierlock.probing.distprobe.DistributionProbe` (named by its
    shape, so that this module imports nothing of it)."""

    @property
    def present(self) -> bool: ...

    @property
    def reasons(self) -> list[str]: ...

    @property
    def missing_libraries(self) -> tuple[tuple[str, str, str | None], ...]: ...


def only_libraries(result: Probed) -> bool:
    """Whether everything wrong with a probed distribution is a library the system lacks (its files are
    whole: reinstalling it cannot help). A library its wheel vendors (:func:`~tierlock.probing.libproblems.vendored`)
    is none the system lacks: an extension asking for one that is not there is another build's, and the package's
    reinstall mends it."""
    if not result.missing_libraries or len(result.reasons) != len(result.missing_libraries):
        return False
    from tierlock.probing.libproblems import vendored

    return not any(vendored(library) for _artifact, library, _via in result.missing_libraries)


def system_remedy(results: Iterable[Probed]) -> str | None:
    """How to make these probed distributions present when all that is wrong is libraries the system lacks
    (:mod:`tierlock.probing.provider`); None when anything else is wrong too, or nothing."""
    broken = [d for d in results if not d.present]
    if not broken or not all(only_libraries(d) for d in broken):
        return None
    from tierlock.probing import provider

    return provider.remedy([lib for d in broken for _artifact, lib, _via in d.missing_libraries])
