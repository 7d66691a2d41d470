"""SIGINT and SIGTERM end every command the same way: as ``KeyboardInterrupt``, exit 130.

:func:`install` is called once when a command starts. Python raises
``KeyboardInterrupt`` for SIGINT already; SIGTERM (what ``kill``, CI
cancellation and container stops send) is made to do the same, so every
``finally`` runs, no temporary file is left, and :func:`tierlock.cli.main`
reports one message. :mod:`tierlock.subproc` then asks a running backend to
stop and gives it :data:`GRACE` seconds to clean up before killing it.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from types import FrameType

GRACE = 5.0
"""Seconds a backend gets to stop after being asked (it cleans its temporary folders), before it is killed."""

received: list[int] = []
"""The signals received so far (the last one is what interrupted the command)."""


def _handler(signum: int, frame: FrameType | None) -> None:
    received.append(signum)
    raise KeyboardInterrupt


def install() -> Callable[[], None]:
    """Turn SIGINT and SIGTERM into ``KeyboardInterrupt`` (only the main thread can; elsewhere nothing changes).

    Returns what puts the previous handlers back (:func:`tierlock.cli.main` does, so
    an application or a test process that calls it keeps its own). Uses the C
    module ``_signal`` (``signal`` imports ``enum``: milliseconds on the no-op path).
    """
    import _signal as signal  # type: ignore[import-not-found,unused-ignore]

    try:
        previous = [(signum, signal.getsignal(signum)) for signum in (signal.SIGTERM, signal.SIGINT)]
        signal.signal(signal.SIGTERM, _handler)
        if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
            signal.signal(signal.SIGINT, _handler)
    except ValueError:  # not the main thread (an embedding application): its own handlers stay
        return _nothing

    def restore() -> None:
        for signum, handler in previous:
            if handler is not None:
                signal.signal(signum, handler)

    return restore


def _nothing() -> None:
    return None


class deferred:
    """Hold SIGINT and SIGTERM back while a cleanup runs; a signal that came meanwhile lands right after.

    A ``KeyboardInterrupt`` in the middle of removing a temporary folder would
    leave half of it behind. Where threads cannot block signals (Windows, or
    not the main thread) this does nothing and the cleanup runs as before.
    """

    def __enter__(self) -> None:
        import _signal as signal  # type: ignore[import-not-found,unused-ignore]

        self._previous: object = None
        mask = getattr(signal, "pthread_sigmask", None)
        if mask is not None:
            self._previous = mask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})

    def __exit__(self, *exc: object) -> None:
        import _signal as signal  # type: ignore[import-not-found,unused-ignore]

        if self._previous is not None:
            signal.pthread_sigmask(signal.SIG_SETMASK, self._previous)


def rerun(prog: str, argv: Sequence[str]) -> str:
    """The command line that runs the interrupted command again (``install-tier`` is ``tierlock install``)."""
    import shlex

    args = list(argv)
    if prog != "tierlock" and args[:1] == ["install"]:
        args = args[1:]
    return shlex.join([prog, *args])


def name() -> str:
    """The name of the signal that interrupted the command (``SIGINT`` when unknown: Ctrl-C)."""
    import signal

    return signal.Signals(received[-1]).name if received else "SIGINT"
