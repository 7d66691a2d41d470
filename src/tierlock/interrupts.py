"""SIGINT and SIGTERM end every command the same way: as ``KeyboardInterrupt``, exit 130.

:func:`install` is called once when a command starts. Python raises
``KeyboardInterrupt`` for SIGINT already; SIGTERM (what ``kill``, CI
cancellation and container stops send) is made to do the same, so every
``finally`` runs, no temporary file is left, and :func:`tierlock.cli.main`
reports one message. :mod:`tierlock.subproc` then asks a running backend to
stop and gives it :data:`GRACE` seconds to clean up before killing it.

One interrupt per command: the first signal raises ``KeyboardInterrupt``; every later one (a second Ctrl-C,
the CI runner's SIGTERM after it) is only noted in :data:`received` - it cuts the backend's grace period short
(:func:`again`) but never raises inside the cleanup of the first, where a second exception would leave a backend
running or the standard library's own state half restored. A cleanup that must not be cut holds signals
(:class:`deferred`): one that comes meanwhile is raised when it ends.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from types import FrameType
    from typing import Any

GRACE = 5.0
"""Seconds a backend gets to stop after being asked (it cleans its temporary folders), before it is killed."""

received: list[int] = []
"""The signals received by this command so far (the first one is what interrupted it)."""

_state = {"held": 0, "raised": 0, "main": 0, "pending": 0}
"""*held*: how many :class:`deferred` cleanups run (signals are noted, not raised); *raised*: the command's one
``KeyboardInterrupt`` was raised (later signals are noted only); *main*: the thread that installed the handler
(the one it raises in), 0 while it is not installed; *pending*: an interrupt Python swallowed waits to be raised
again (:func:`_unraisable`)."""

_WAKE = "SIGURG"
"""The signal that wakes the main thread for an interrupt raised again: one nothing else sends a command, whose
default action is to ignore it, so a wake that comes after the command put its handler back does nothing."""

_wake_previous: list[object] = []
"""The handler :data:`_WAKE` had before :func:`_unraisable` set :func:`_woken` (put back by :func:`install`'s
``restore``)."""


def _handler(signum: int, frame: FrameType | None) -> None:
    received.append(signum)
    if _state["held"] or _state["raised"]:  # a cleanup runs, or the command is being interrupted already
        return
    _state["raised"] = 1
    raise KeyboardInterrupt


def _unraisable(unraisable: object) -> None:
    """``sys.unraisablehook`` while the handler is installed: the command's interrupt raised where Python can only
    print it and go on (the handler ran inside a weakref callback, such as the import system's module-lock callback,
    or a ``__del__``) is raised again at the main thread's next step; anything else goes to the hook that was there
    before. Without it the interrupt is lost: the command goes on as if nothing came, and every later signal is only
    noted.

    The signal stays noted once in :data:`received`. A thread of its own wakes the main thread with :data:`_WAKE`
    until :func:`_woken` has raised it (:func:`_wake`): one wake may land before the main thread enters the system
    call it then waits in (a backend's end), and Python runs a handler only at its next step, which such a call
    never takes. A wake is never counted as a second signal."""
    import _signal as signal  # type: ignore[import-not-found,unused-ignore]
    import _thread

    exc_type = getattr(unraisable, "exc_type", None)
    main = _state["main"]
    if (
        isinstance(exc_type, type)
        and issubclass(exc_type, KeyboardInterrupt)
        and _state["raised"]
        and main == _thread.get_ident()
    ):
        _state["raised"] = 0
        wake = getattr(signal, _WAKE, None)
        if wake is None or not hasattr(signal, "pthread_kill"):  # (no POSIX threads' signals: the next step)
            signum = received.pop() if received else signal.SIGINT  # (the handler notes it again as it raises)
            _thread.start_new_thread(_thread.interrupt_main, (signum,))  # type: ignore[arg-type,unused-ignore]
            return
        if not _wake_previous:
            before = signal.signal(wake, _woken)
            _wake_previous.append(signal.SIG_DFL if before is None else before)
        _state["pending"] = 1
        _thread.start_new_thread(_wake, (main, wake))
        return
    _previous_hook[0](unraisable)


def _woken(signum: int, frame: FrameType | None) -> None:
    """The handler of :data:`_WAKE`: raise the pending interrupt (noted already), or do nothing (a late wake)."""
    if not _state["pending"]:
        return
    _state["pending"] = 0
    if _state["held"] or _state["raised"]:  # a cleanup runs (it raises at its end), or a second signal raised
        return
    _state["raised"] = 1
    raise KeyboardInterrupt


def _wake(main: int, wake: int) -> None:
    """Send :data:`_WAKE` to the main thread until the pending interrupt is raised (every millisecond at first, at
    most every 50), or the command has ended."""
    import _signal as signal  # type: ignore[import-not-found,unused-ignore]
    import time

    # (SIGINT and SIGTERM go to the main thread: not blocked by a sheltered block in this hook, whose end would
    # raise a second signal where Python only prints it)
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
    pause = 0.001
    while _state["pending"] and _state["main"] == main:
        try:
            signal.pthread_kill(main, wake)
        except OSError:  # (the main thread is gone: the process ends)
            return
        time.sleep(pause)
        pause = min(pause * 2, 0.05)


_previous_hook: list[Callable[[Any], object]] = []
"""The ``sys.unraisablehook`` :func:`install` replaced (put back by its ``restore``)."""


def inside(exc: BaseException) -> bool:
    """Whether *exc* carries this command's interrupt: raised by the handler and wrapped on its way up (Python 3.11
    wraps one raised inside a ``__set_name__`` in a ``RuntimeError``; a library may re-raise it as its own error)."""
    if not _state["raised"]:
        return False
    seen: set[int] = set()
    link: BaseException | None = exc
    while link is not None and id(link) not in seen:
        if isinstance(link, KeyboardInterrupt):
            return True
        seen.add(id(link))
        link = link.__cause__ or link.__context__
    return False


def again(seen: int) -> bool:
    """Whether more than *seen* signals came (1 once the command is interrupted: a second one): no more grace."""
    return len(received) > seen


def install() -> Callable[[], None]:
    """Turn SIGINT and SIGTERM into ``KeyboardInterrupt`` (only the main thread can; elsewhere nothing changes).

    Returns what puts the previous handlers back (:func:`tierlock.cli.main` does, so
    an application or a test process that calls it keeps its own). Uses the C
    module ``_signal`` (``signal`` imports ``enum``: milliseconds on the no-op path).
    """
    import _signal as signal  # type: ignore[import-not-found,unused-ignore]
    import _thread
    import sys

    try:
        previous = [(signum, signal.getsignal(signum)) for signum in (signal.SIGTERM, signal.SIGINT)]
        if previous[0][1] is not _handler:  # a command starts (not one inside another): nothing received yet
            received.clear()
            _state.update(held=0, raised=0, main=_thread.get_ident(), pending=0)
        signal.signal(signal.SIGTERM, _handler)
        if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
            signal.signal(signal.SIGINT, _handler)
    except ValueError:  # not the main thread (an embedding application): its own handlers stay
        return _nothing
    hook = sys.unraisablehook
    if hook is not _unraisable:
        _previous_hook[:] = [hook]
        sys.unraisablehook = _unraisable

    def restore() -> None:
        for signum, handler in previous:
            if handler is not None:
                signal.signal(signum, handler)
        if hook is not _unraisable:
            sys.unraisablehook = hook
        if previous[0][1] is not _handler:  # the caller's own handler is back: nothing is held by this module
            _state.update(main=0, pending=0)
            if _wake_previous:
                signal.signal(getattr(signal, _WAKE), _wake_previous.pop())

    return restore


def _nothing() -> None:
    return None


class deferred:
    """Hold SIGINT and SIGTERM back while a cleanup runs; a signal that came meanwhile lands right after.

    A ``KeyboardInterrupt`` in the middle of removing a temporary folder would leave half of it behind. Under
    :func:`install`'s handler the hold is the handler's own (a signal is noted, whichever thread the system
    gave it to) and the interrupt is raised when the outermost cleanup ends, unless one is on its way already.
    Under another handler the main thread blocks the signals (POSIX); elsewhere nothing is held.
    """

    def __enter__(self) -> None:
        import _signal as signal  # type: ignore[import-not-found,unused-ignore]
        import _thread

        self._previous: object = None
        self._ours = _state["main"] == _thread.get_ident()  # the thread the handler raises in (other threads: none)
        mask = getattr(signal, "pthread_sigmask", None)
        if self._ours:
            _state["held"] += 1
        elif mask is not None:
            self._previous = mask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})

    def __exit__(self, kind: type[BaseException] | None, *exc: object) -> None:
        import _signal as signal  # type: ignore[import-not-found,unused-ignore]

        if self._previous is not None:
            signal.pthread_sigmask(signal.SIG_SETMASK, self._previous)
        if not self._ours:
            return
        _state["held"] -= 1
        if _state["held"] or _state["raised"] or not received:
            return
        _state["raised"] = 1
        if kind is None or not issubclass(kind, KeyboardInterrupt):  # (one on its way already: it is the one)
            raise KeyboardInterrupt


class _Mask:
    """SIGINT and SIGTERM blocked (``SIG_BLOCK``) or unblocked (``SIG_UNBLOCK``) in this thread for the block; the
    thread's own mask put back after (POSIX; elsewhere nothing)."""

    _how = "SIG_BLOCK"

    def __enter__(self) -> None:
        import _signal as signal  # type: ignore[import-not-found,unused-ignore]

        mask = getattr(signal, "pthread_sigmask", None)
        self._previous = None if mask is None else mask(getattr(signal, self._how), {signal.SIGINT, signal.SIGTERM})

    def __exit__(self, *exc: object) -> None:
        import _signal as signal  # type: ignore[import-not-found,unused-ignore]

        if self._previous is not None:
            signal.pthread_sigmask(signal.SIG_SETMASK, self._previous)


class sheltered(_Mask):
    """Start helper threads in this block: they are born with SIGINT and SIGTERM blocked (POSIX), so the system
    gives every signal to the main thread.

    A signal the system hands to a helper thread (it does when the main thread has one pending already: a second
    signal right after the first) runs the handler's C part there and leaves the main thread asleep in the system
    call it waits in (``waitpid`` on a backend, a lock): the interrupt would land only when the backend ends by
    itself. The block's own thread holds the signals only while the threads start; one that comes meanwhile is
    delivered when it ends.
    """


def close() -> None:
    """The command has given its answer: every signal from now on is noted only (the process is ending)."""
    _state["held"] += 1


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

    return signal.Signals(received[0]).name if received else "SIGINT"


class passed_on(_Mask):
    """Start a process in this block: SIGINT and SIGTERM reach it, whatever this thread blocks. A process inherits
    the signal mask of the thread that starts it, and a thread born :class:`sheltered` blocks both: a backend started
    there would ignore :func:`tierlock.subproc.stop`'s request to stop and be killed only when its grace ran out.
    The thread unblocks them for the start only (a signal that comes meanwhile may run its handler's C part here,
    as before the thread blocked them)."""

    _how = "SIG_UNBLOCK"
