"""The cyclic garbage collector held off over work that builds many objects and no cycles worth collecting.

A recorded run of a read-only command, or a census worked out again from kept facts, builds ~10^5 objects
that live until it ends; the collector walked them again and again (on narwhals ~70 of a check's ~500 ms).
"""

from __future__ import annotations

import gc

TYPE_CHECKING = False
if TYPE_CHECKING:
    from types import TracebackType


class Paused:
    """``with Paused():`` the collector off, and on again after (when it was on before), however the work ends."""

    def __enter__(self) -> None:
        self.collecting = gc.isenabled()
        gc.disable()

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        if self.collecting:
            back()


def back() -> None:
    """Switch the collector on again, every object made while it was off moved to the oldest generation first
    (``freeze`` then ``unfreeze``: two list splices). Else the first allocation after would walk them all at once
    (~25 ms on narwhals, as the process ends); a long-lived caller gets them collected with its other old objects."""
    gc.freeze()
    gc.unfreeze()
    gc.enable()
