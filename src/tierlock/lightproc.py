"""A process started with :func:`os.posix_spawn` before :mod:`subprocess` loads, read later as a ``Popen``.

:mod:`tierlock.targetfirst` starts a read-only command's target interpreter at the command's entry, before
tierlock's own modules and the standard library's load (:mod:`subprocess` brings ``signal``, ``enum``,
``threading``, ``selectors`` and ``locale``): starting it needs only ``os``. :func:`tierlock.subproc.run` reads it
(``started=``) as it reads a process it started: :class:`Spawned` has the parts of ``subprocess.Popen`` that it and
:func:`tierlock.subproc.stop` use, with their meaning (text mode, as :func:`tierlock.subproc.start` starts every
process: stdin from the null device, stdout and stderr on pipes, its own process group, the signals ``subprocess``
restores set back to their defaults).
"""

from __future__ import annotations

import os
import sys
from time import monotonic, perf_counter

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any


class Spawned:
    """A process :func:`spawn` started: its output read to the end and its exit reaped by :meth:`communicate`."""

    def __init__(self, args: tuple[str, ...], pid: int, pipes: dict[int, list[bytes]]) -> None:
        self.args = args
        self.pid = pid
        self.returncode: int | Any = None
        """Its exit code once reaped (:meth:`poll`), else None (typed as ``subprocess.Popen`` types it)."""
        self.began = perf_counter()
        """When it was started (:func:`tierlock.subproc.run` counts its time from there)."""
        self._pipes = pipes
        """Each pipe still open (stdout's descriptor first) -> what was read from it so far."""
        self._read: dict[int, list[bytes]] = dict(pipes)
        self._text: tuple[str, str] | None = None

    def poll(self) -> int | None:
        """Its exit code once it ended (reaped), else None."""
        if self.returncode is None:
            try:
                pid, status = os.waitpid(self.pid, os.WNOHANG)
            except ChildProcessError:  # (reaped elsewhere: nothing more to learn)
                pid, status = self.pid, 0
            if pid == self.pid:
                self.returncode = os.waitstatus_to_exitcode(status)
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        """Its exit code, waiting at most *timeout* seconds (``subprocess.TimeoutExpired`` after them)."""
        deadline = None if timeout is None else monotonic() + timeout
        delay = 0.0005
        while self.poll() is None:
            if deadline is None:
                try:
                    self.returncode = os.waitstatus_to_exitcode(os.waitpid(self.pid, 0)[1])
                except ChildProcessError:
                    self.returncode = 0
                break
            left = deadline - monotonic()
            if left <= 0:
                raise _timeout(self.args, timeout)
            from time import sleep

            sleep(min(delay, left))
            delay = min(delay * 2, 0.05)
        assert self.returncode is not None
        return self.returncode

    def communicate(self, timeout: float | None = None) -> tuple[str, str]:
        """Everything it printed on stdout and stderr (decoded as ``subprocess`` decodes text) once it ended,
        within *timeout* seconds (``subprocess.TimeoutExpired`` after them; a later call reads on)."""
        if self._text is not None:
            return self._text
        deadline = None if timeout is None else monotonic() + timeout
        if self._pipes:
            import select

            poller = select.poll()
            for fd in self._pipes:
                poller.register(fd, select.POLLIN | select.POLLHUP)
            while self._pipes:
                left = None if deadline is None else max(0.0, deadline - monotonic())
                ready = poller.poll(None if left is None else left * 1000)
                if not ready and left is not None:
                    raise _timeout(self.args, timeout)
                for fd, _event in ready:
                    chunk = os.read(fd, 1 << 16)
                    if chunk:
                        self._pipes[fd].append(chunk)
                    else:
                        poller.unregister(fd)
                        os.close(fd)
                        del self._pipes[fd]
        self.wait(None if deadline is None else max(0.0, deadline - monotonic()))
        out, err = (_text(b"".join(chunks)) for chunks in self._read.values())
        self._text = (out, err)
        return self._text

    def kill(self) -> None:
        """End it at once (SIGKILL) when it still runs."""
        if self.poll() is None:
            try:  # noqa: SIM105 (contextlib: an import more before the command's modules)
                os.kill(self.pid, 9)
            except ProcessLookupError:
                pass

    def close(self) -> None:
        """Its pipes closed (what it prints from now on is lost)."""
        for fd in list(self._pipes):
            os.close(fd)
            del self._pipes[fd]


def spawn(args: Sequence[str]) -> Spawned:
    """Start *args* (``args[0]`` a path) as :func:`tierlock.subproc.start` would: ``OSError`` when it cannot be."""
    argv = tuple(args)
    out_read, out_write = os.pipe()
    err_read, err_write = os.pipe()
    try:
        pid = os.posix_spawn(
            argv[0],
            argv,
            os.environ,
            file_actions=[
                (os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
                (os.POSIX_SPAWN_DUP2, out_write, 1),
                (os.POSIX_SPAWN_DUP2, err_write, 2),
            ],
            setpgroup=0,
            setsigdef=_restored(),
        )
    except BaseException:
        os.close(out_read)
        os.close(err_read)
        raise
    finally:
        os.close(out_write)
        os.close(err_write)
    return Spawned(argv, pid, {out_read: [], err_read: []})


def _restored() -> tuple[int, ...]:
    """The signals ``subprocess`` sets back to their default action in the child (Python ignores them)."""
    import _signal  # type: ignore[import-not-found,unused-ignore]  # (the C module, built in: ``signal`` loads enum)

    return tuple(getattr(_signal, name) for name in ("SIGPIPE", "SIGXFZ", "SIGXFSZ") if hasattr(_signal, name))


def _text(data: bytes) -> str:
    """*data* as ``subprocess`` gives a text-mode process's output: decoded with its default encoding, newlines
    translated."""
    import locale

    encoding = "utf-8" if sys.flags.utf8_mode else locale.getencoding()
    return data.decode(encoding).replace("\r\n", "\n").replace("\r", "\n")


def _timeout(args: tuple[str, ...], timeout: float | None) -> Exception:
    import subprocess

    return subprocess.TimeoutExpired(list(args), timeout or 0.0)


#: The processes started ahead of the command that will read them (:mod:`tierlock.targetfirst`): the interpreter's
#: path, as the command spells it, -> the process and the interpreter's files as it was started.
held: dict[str, tuple[Spawned, tuple[object, ...]]] = {}


def peek(exe: str | os.PathLike[str]) -> tuple[Spawned, tuple[object, ...]] | None:
    """What was started ahead for the interpreter at *exe* (spelt exactly so), left where it is."""
    return held.get(os.fspath(exe))


def take(exe: str | os.PathLike[str] | None) -> tuple[Spawned, tuple[object, ...]] | None:
    """What was started ahead for the interpreter at *exe*, handed over; every other one is ended (*exe* None:
    every one)."""
    found = held.pop(os.fspath(exe), None) if exe is not None else None
    close()
    return found


def close() -> None:
    """End every process started ahead that nobody took (the command asked another interpreter, none, or ended
    first), each reaped."""
    while held:
        process = held.popitem()[1][0]
        process.kill()
        process.communicate()
