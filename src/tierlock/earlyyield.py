"""tierlock's own priority while its backend, started early (:mod:`tierlock.earlyarm`), runs: lowered, then given back.

The backend is what an arming waits for; tierlock's own start runs beside it on the same cores. It yields: its
priority goes down once the backend is started (the backend keeps the one tierlock was started with) and comes back
when the backend has ended, where the system lets it (:class:`Yielded`).
"""

from __future__ import annotations

import os
import sys

#: How much lower tierlock's own priority goes once its backend runs early (``nice``): with no idle core, the
#: backend (what the command waits for) is not slowed by the start-up running beside it. The backend itself
#: is started before and keeps the priority tierlock was started with. Once the backend has ended, tierlock's
#: own work is what the command waits for: its priority goes back where the system lets it (:class:`Yielded`).
#: With pip too (its own start is Python work, but it is still what the command waits for): measured on 2 cores
#: under load, pip's arming no slower with it (docs/benchmarks.md, "pip's early start"). This is how low it goes
#: where the priority cannot be given back (:func:`regained`): the verification after the backend then runs there too.
YIELD = 10
#: How much lower it goes where the priority is given back once the backend has ended (:func:`regained`): as low as
#: ``nice`` goes. The scheduler's weight at +10 is still ~10% of each backend thread's, and on 2 cores that share took
#: ~20-70 ms from a 46-package uv's wall (docs/benchmarks.md, "bigtier3"); at +19 it is ~1.5%.
DEEP = 19


class Yielded:
    """The priority of the thread that made it (the main thread, where tierlock's start runs), lowered by
    :meth:`lower` while the backend runs and given back by :meth:`restore` when it has ended (called by the thread
    that watches it: :func:`tierlock.spawning.watch`), to it and to every thread it started meanwhile (which
    inherited the lowered priority: the readers of the backend's output the install waits for, the read-ahead).
    Giving a priority back is allowed to root and where the ``RLIMIT_NICE`` limit reaches it (Linux, where ``nice``
    is a thread's own); elsewhere the start stays lowered."""

    def __init__(self) -> None:
        import _thread

        self.thread = _thread.get_native_id()
        self.before = os.nice(0)
        self.lowered = False
        self.low = self.before
        """The priority it was lowered to (``nice`` stops at 19)."""
        self.ended = False

    def lower(self, by: int) -> None:
        self.low = os.nice(by)
        self.lowered = True
        if self.ended:  # the backend ended before the priority went down: give it back at once
            self.restore()

    def restore(self) -> None:
        self.ended = True
        self.give(self.thread)
        if not self.lowered or not sys.platform.startswith("linux"):
            return
        try:  # every other thread of this process still at the lowered priority: started by the lowered one
            threads = os.listdir("/proc/self/task")
        except OSError:
            return
        for name in threads:
            try:
                thread = int(name)
                low = thread != self.thread and os.getpriority(os.PRIO_PROCESS, thread) == self.low
            except OSError:  # (a thread that ended meanwhile: the folder holds only thread ids)
                continue
            if low:
                self.give(thread)

    def give(self, thread: int) -> None:
        """The priority before :meth:`lower` to the thread *thread* (a native id: a thread the lowered main thread
        started inherited the lowered priority), where the system allows it; nothing when it was not lowered."""
        if not self.lowered or not sys.platform.startswith("linux"):
            return
        try:  # noqa: SIM105 (contextlib is an import more on the early start)
            os.setpriority(os.PRIO_PROCESS, thread, self.before)
        except OSError:  # not allowed to this user: the thread goes on at the lowered priority
            pass


def regained(before: int) -> bool:
    """Whether a thread lowered from ``nice`` *before* can be given that priority back (:meth:`Yielded.restore`: Linux,
    where ``nice`` is a thread's own; root, or within the ``RLIMIT_NICE`` limit, whose lowest ``nice`` allowed is 20
    less the limit). Elsewhere nothing is given back."""
    if not sys.platform.startswith("linux"):
        return False
    if os.geteuid() == 0:
        return True
    try:
        import resource

        return 20 - resource.getrlimit(resource.RLIMIT_NICE)[0] <= before
    except (ImportError, OSError, ValueError):
        return False
