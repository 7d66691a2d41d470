"""Running one tier's compile in the background: the backend in a thread, or the compile started early.

:func:`start_compile` hands back what :func:`tierlock.lockfiles.locktier.lock_tier`
waits on (or cancels when it is interrupted meanwhile). A uv compile that
:mod:`tierlock.lockstart` started before the project was read is taken when it
is exactly the one due now; otherwise the backend runs here, at most as many at
once as *slots* allows.
"""

from __future__ import annotations

import shutil
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from tierlock import interrupts, lockstart, subproc
from tierlock.lockfiles.resolvers import UV_COMPILE, Backend, CompileRequest, UvBackend, compile_remedy


def start_compile(
    backend: Backend, request: CompileRequest, lockfile: Path, slots: threading.Semaphore | None
) -> _Background | _Adopted:
    """Start *request*'s compile, or take the one :mod:`tierlock.lockstart` started early when it is exactly it.

    *lockfile* is the tier's; its bytes are in the request's output file when they are the previous lock.
    """
    if not isinstance(backend, UvBackend):
        return _Background(_bounded(backend.compile, slots), request, None)
    work = str(request.input_file.parent)
    argv = backend.command(request)
    seeded = request.output_file.is_file()
    files = [(request.input_file.name, request.input_file.read_text(encoding="utf-8"))]
    if request.constraints is not None:
        files.append((request.constraints.name, request.constraints.read_text(encoding="utf-8")))
    command = lockstart.Command(
        tier=request.input_file.stem,
        argv=tuple(a.replace(work, lockstart.WORK) for a in argv),
        files=tuple(files),
        seed=str(lockfile) if seeded else None,
        lockfile=str(lockfile),
        existed=lockfile.is_file(),
        cwd=str(request.cwd),
        what=UV_COMPILE,
        remedy=compile_remedy(request),
    )
    started = lockstart.take(command, request.output_file.read_bytes() if seeded else None)
    if started is None:
        lockstart.expect(argv)
        return _Background(_bounded(backend.compile, slots), request, command)
    if backend.log is not None:
        backend.log(f"running: {subproc.display(argv)} (started before the project was read)")
    return _Adopted(started, request.output_file)


@dataclass
class _Adopted:
    """A compile started early (:mod:`tierlock.lockstart`): :meth:`wait` hands over its lock, or what it raised."""

    started: lockstart.Started
    output: Path

    def wait(self) -> None:
        try:
            subproc.join_workers([self.started.thread] if self.started.thread is not None else [])
            if self.started.error is not None:
                raise self.started.error
            produced = self.started.work / self.output.name
            if produced.is_file():  # else, as when uv runs here, no lock (or only the previous one) is read back
                shutil.copyfile(produced, self.output)
                lockstart.produced(self.started.command, self.output, self.started.work)
        finally:
            shutil.rmtree(self.started.work, ignore_errors=True)

    def cancel(self) -> None:
        subproc.end_workers([self.started.thread] if self.started.thread is not None else [])
        shutil.rmtree(self.started.work, ignore_errors=True)


def _bounded(
    call: Callable[[CompileRequest], None], slots: threading.Semaphore | None
) -> Callable[[CompileRequest], None]:
    """*call*, run only while one of *slots* is free (always, without slots)."""
    if slots is None:
        return call

    def bounded(request: CompileRequest) -> None:
        with slots:
            call(request)

    return bounded


@dataclass
class _Background:
    """Run ``call(argument)`` in a thread; :meth:`wait` joins it and re-raises what it raised."""

    call: Callable[[CompileRequest], None]
    argument: CompileRequest
    command: lockstart.Command | None
    """The uv compile as :mod:`tierlock.lockstart` knows it (None for another backend)."""

    def __post_init__(self) -> None:
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._target, name="tierlock-backend", daemon=True)
        try:
            with interrupts.sheltered():  # signals go to the main thread, which waits for this one
                self._thread.start()
        except BaseException:  # an interrupt held while it started, landing as the block ends: nobody waits for it
            self.cancel()
            raise

    def _target(self) -> None:
        try:
            self.call(self.argument)
        except BaseException as exc:  # handed to the waiting thread
            self._error = exc

    def wait(self) -> None:
        """Join the thread (an interrupt meanwhile ends its backend: :func:`tierlock.subproc.join_workers`)."""
        subproc.join_workers([self._thread])
        if self._error is not None:
            error, self._error = self._error, None
            raise error
        if self.command is not None and self.argument.output_file.is_file():
            lockstart.produced(self.command, self.argument.output_file, self.argument.input_file.parent)

    def cancel(self) -> None:
        """End the backend with its process group and wait for the thread to clean up; drop what it raised."""
        subproc.end_workers([self._thread])
        self._error = None


Compiling = _Background | _Adopted
