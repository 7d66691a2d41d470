"""What a recorded run's output and environment are seen through (:mod:`tierlock.keptrecord`).

The run's ``sys.stdout``/``sys.stderr`` are :class:`Tee` streams that note every text written (the output to give
again); ``os.environ`` is a :class:`WatchedEnviron` that notes every variable read, and taints the run when the
whole of it is read (iterated, counted, copied).
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:  # (``typing`` is not loaded for this: a recorded run may not need it otherwise)
    from typing import Any, Protocol, TextIO

    class Watcher(Protocol):
        """The recorder, as the streams and the environment see it."""

        out: list[tuple[int, str]]
        env: dict[str, str | None]

        def taint(self, why: str) -> None: ...

        def taint_env(self) -> None: ...


class Tee:
    """A text stream that notes what is written to it (the run's output, to give again)."""

    def __init__(self, stream: TextIO, fd: int, recorder: Watcher) -> None:
        self._stream = stream
        self._fd = fd
        self._recorder = recorder

    def write(self, text: str) -> int:
        self._recorder.out.append((self._fd, text))
        return self._stream.write(text)

    def __getattr__(self, name: str) -> Any:
        if name == "buffer":  # bytes written past the text layer would not be seen
            self._recorder.taint("wrote to a stream's bytes")
        return getattr(self._stream, name)


class WatchedEnviron(os._Environ[str]):
    """``os.environ`` that notes every variable read (and the whole of it when it is iterated)."""

    recorder: Watcher

    def __getitem__(self, key: str) -> str:
        try:
            value = super().__getitem__(key)
        except KeyError:
            self.recorder.env.setdefault(key, None)
            raise
        self.recorder.env.setdefault(key, value)
        return value

    def __contains__(self, key: object) -> bool:
        if isinstance(key, str):
            self.recorder.env.setdefault(key, super().get(key))
        return super().__contains__(key)

    def __iter__(self) -> Any:
        self.recorder.taint_env()
        return super().__iter__()

    def __len__(self) -> int:
        self.recorder.taint_env()
        return super().__len__()

    def copy(self) -> dict[str, str]:
        self.recorder.taint_env()
        return super().copy()
