"""Starting a process before the rest of tierlock has loaded: ``os.posix_spawn``, no :mod:`subprocess`.

A kept lock (:mod:`tierlock.lockkept`) and an install's backend started early (:mod:`tierlock.earlyarm`) start
their process as the first thing the command does; :mod:`subprocess` (with ``re``, ``locale``, ``threading``,
``signal`` and ``selectors`` behind it) costs more than the start itself, and the process waits for it. So the
process is started here on :mod:`os` alone - in a process group of its own, no input, its output into pipes or
dropped - and, when the command later wants to handle it as one of its own (its output read, waited for,
stopped with a grace period by :mod:`tierlock.subproc`), :func:`as_popen` gives the same process as a
:class:`subprocess.Popen` (by then the rest of tierlock has loaded :mod:`subprocess` anyway).
"""

from __future__ import annotations

import _signal  # type: ignore[import-not-found,unused-ignore]  # the C module: ``signal`` loads enum
import os
import time

TYPE_CHECKING = False
if TYPE_CHECKING:
    import subprocess
    from collections.abc import Callable, Mapping, Sequence

SIGNALS_RESET = (_signal.SIGPIPE, _signal.SIGXFSZ)
"""The interpreter ignores these; the started process gets them back at their defaults (as :class:`subprocess.Popen`
restores them)."""


class Spawned:
    """A process started by :func:`spawn`: its id and the read ends of its output pipes (-1: dropped)."""

    __slots__ = ("began", "ended", "err", "out", "pid")

    def __init__(self, pid: int, out: int, err: int, began: float = 0.0) -> None:
        self.pid = pid
        self.out = out
        self.err = err
        self.began = began
        """When it was started (:func:`time.perf_counter`): its run is timed from there."""
        self.ended: float | None = None
        """When it ended, as a watcher saw it (:func:`watch`); None until then, or without one."""


def watch(spawned: Spawned, then: Callable[[], None] | None = None) -> None:
    """Note when *spawned* ends, in a thread of the C module (no :mod:`threading` to load) that waits on it without
    reaping it (``WNOWAIT``: its starter still waits for it and reads its exit code). A process taken over after it
    ended is then timed to its end, not to the takeover. *then* runs in that thread once it has ended."""
    import _thread

    def wait() -> None:
        try:
            os.waitid(os.P_PID, spawned.pid, os.WEXITED | os.WNOWAIT)
        except OSError:  # reaped already by its starter, which then timed it itself
            pass
        else:
            spawned.ended = time.perf_counter()
        if then is not None:
            then()

    mask = getattr(_signal, "pthread_sigmask", None)  # (born blocking SIGINT and SIGTERM: tierlock.interrupts)
    previous = None if mask is None else mask(_signal.SIG_BLOCK, {_signal.SIGINT, _signal.SIGTERM})
    try:
        _thread.start_new_thread(wait, ())
    except RuntimeError:  # no thread to be had (a process limit): timed to its takeover's read of its end instead
        pass
    finally:
        if previous is not None:
            _signal.pthread_sigmask(_signal.SIG_SETMASK, previous)


def spawn(
    argv: Sequence[str], *, cwd: str | None = None, env: Mapping[str, str] | None = None, capture: bool = False
) -> Spawned:
    """Start *argv* in *cwd* (None: here) with *env* (None: this environment), in a process group of its own,
    input from the null device; with *capture*, its output and its errors into two pipes, else dropped.

    ``posix_spawn`` has no working folder of its own: the caller's is changed for the start and put back, so
    this is for a process with no other thread yet. ``OSError`` (``FileNotFoundError``: no such program) when
    it cannot start; nothing is left open then.
    """
    null = os.devnull
    actions: list[tuple[int | str, ...]] = [(os.POSIX_SPAWN_OPEN, 0, null, os.O_RDONLY, 0)]
    ours: list[int] = []
    theirs: list[int] = []
    try:
        for fd in (1, 2):
            if capture:
                read, write = os.pipe()
                ours.append(read)
                theirs.append(write)
                actions.append((os.POSIX_SPAWN_DUP2, write, fd))
            else:
                actions.append((os.POSIX_SPAWN_OPEN, fd, null, os.O_WRONLY, 0))
        began = time.perf_counter()
        pid = _spawn(list(argv), cwd, os.environ if env is None else env, actions)
    except BaseException:
        for fd in ours:
            os.close(fd)
        raise
    finally:
        for fd in theirs:  # the child's ends: it holds its own copies now
            os.close(fd)
    out, err = ours or (-1, -1)
    return Spawned(pid, out, err, began)


def _spawn(argv: list[str], cwd: str | None, env: Mapping[str, str], actions: list[tuple[int | str, ...]]) -> int:
    here = os.getcwd() if cwd is not None else None
    if cwd is not None:
        os.chdir(cwd)
    try:
        start = os.posix_spawn if os.sep in argv[0] else os.posix_spawnp  # a bare name is looked up on PATH
        return start(argv[0], argv, env, file_actions=actions, setpgroup=0, setsigdef=SIGNALS_RESET, setsigmask=())
    finally:
        if here is not None:
            os.chdir(here)


def as_popen(argv: Sequence[str], spawned: Spawned) -> subprocess.Popen[str]:
    """The process *spawned* (started with *capture*) as a :class:`subprocess.Popen` reading its output as text,
    as :func:`tierlock.subproc.start` would have started it: waited for, read and stopped like one started there.

    Made once per process; its pipes are the Popen's from then on (it closes them)."""
    return _adopted()(list(argv), spawned)


def _adopted() -> Callable[[list[str], Spawned], subprocess.Popen[str]]:
    """:class:`subprocess.Popen` for a process that runs already: its handles are the pipes given, nothing started."""
    import subprocess

    class Adopted(subprocess.Popen[str]):
        def __init__(self, argv: list[str], spawned: Spawned) -> None:
            self._given = spawned
            self.began = spawned.began
            """When the process was started (:func:`tierlock.subproc.run` times it from there)."""
            super().__init__(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

        def _get_handles(self, stdin: object, stdout: object, stderr: object) -> tuple[int, ...]:
            return (-1, -1, self._given.out, -1, self._given.err, -1)

        @property
        def ended(self) -> float | None:
            """When the process ended, when a watcher saw it (:func:`watch`)."""
            return self._given.ended

        def _execute_child(self, *args: object, **kwargs: object) -> None:
            self.pid = self._given.pid
            self._child_created = True

    return Adopted
