"""What a recorded run learnt from a file, told to the recorder by the code that read it.

:mod:`tierlock.keptrecord` keeps a file a command read by its bytes. The census reads every test file
and keeps only a few facts of each (imports, markers, flags, tests and their lines): when that is all a
run took from a file, the recorder keeps those facts too, and a later run whose only change is such a
file gives the kept answer when the file's facts, read again (:mod:`tierlock.census.summary`), are the
same. The reader tells what it read here; nothing listens unless a run is being recorded.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

#: The recorder's listener while a run is recorded (at most one).
_sinks: list[Callable[[str, str, object], None]] = []


def recording() -> bool:
    """Whether a run is being recorded (else telling costs nothing and is skipped)."""
    return bool(_sinks)


def tell(kind: str, path: str, detail: object = None) -> None:
    """Tell the recorder that *path* was read (*kind* ``"read"``: one open of it) or what was taken from it
    (``"census"``: ``[name, words, facts]``, see :func:`tierlock.census.summary.facts_hold`)."""
    for sink in _sinks:
        sink(kind, path, detail)


def listen(sink: Callable[[str, str, object], None]) -> None:
    _sinks.append(sink)


def stop() -> None:
    _sinks.clear()
