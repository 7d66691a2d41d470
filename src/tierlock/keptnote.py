"""What a recorded run learnt from a file, told to the recorder by the code that read it.

:mod:`tierlock.keptrecord` keeps a file a command read by its bytes. The census reads every test file
and keeps only a few facts of each (imports, markers, flags, tests and their lines): when that is all a
run took from a file, the recorder keeps those facts too, and a later run whose only change is such a
file gives the kept answer when the file's facts, read again (:mod:`tierlock.census.summary`), are the
same. The reader tells what it read here; nothing listens unless a run is being recorded.
"""

from __future__ import annotations

import marshal
import os

from tierlock.fasthash import sha256  # (no OpenSSL start-up: hashlib loads it)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Sequence
    from typing import Any

#: The recorder's listener while a run is recorded (at most one).
_sinks: list[Callable[[str, str, object], None]] = []
#: Whether the run being recorded can no longer be kept (:func:`give_up`).
_given_up: list[bool] = []
#: The recorder's way of looking many paths up at once (:func:`stat_all`), while it notes look-ups.
_lookers: list[Callable[[Sequence[str]], list[os.stat_result]]] = []


def recording() -> bool:
    """Whether a run is being recorded (else telling costs nothing and is skipped)."""
    return bool(_sinks)


def keeping() -> bool:
    """Whether a run is being recorded that may still be kept: what was kept with a census's result needs to be
    told again only then (a census worked out still tells what it took, to keep with its result, while
    :func:`recording`)."""
    return bool(_sinks) and not _given_up


def give_up() -> None:
    """The run being recorded cannot be kept (it read a file modified just now): :func:`keeping` is False, and
    :func:`stat_all` notes nothing."""
    _given_up[:] = [True]
    _lookers.clear()


def tell(kind: str, path: str, detail: object = None) -> None:
    """Tell the recorder that *path* was read (*kind* ``"read"``: one open of it), looked up for its kind
    (``"stat"``: one look-up), or what was taken from it (``"census"``: ``[name, words, facts]``, see
    :func:`tierlock.census.summary.facts_hold`)."""
    for sink in _sinks:
        sink(kind, path, detail)


def listen(sink: Callable[[str, str, object], None]) -> None:
    _sinks.append(sink)


def stop() -> None:
    _sinks.clear()
    _given_up.clear()
    _lookers.clear()


def stat_all(paths: Sequence[str]) -> Iterable[os.stat_result]:
    """:func:`os.stat` of each of *paths* in order (``OSError`` from the first that cannot be looked up): while a
    run is recorded, each noted as the recorder notes one look-up (:meth:`tierlock.keptrecord.Recorder.stat_all`),
    the look-ups made in C all the same (the probe's one ``stat`` per file of the closure)."""
    if _lookers:
        return _lookers[0](paths)
    return map(os.stat, paths)


def noting() -> bool:
    """Whether :func:`stat_all` notes its look-ups (a run is recorded that may be kept): a caller that looks paths up
    another way (from a folder's descriptor) does so only when not."""
    return bool(_lookers)


def look_with(looker: Callable[[Sequence[str]], list[os.stat_result]]) -> None:
    """*looker* answers :func:`stat_all` until :func:`stop` (or :func:`give_up`)."""
    _lookers[:] = [looker]


def plain(value: Any) -> Any:
    """*value* (facts as :meth:`FileFacts.to_json` gives them, or as JSON read them back) with every tuple a
    list and every mapping its list of ``[key, value]`` pairs in order: two readings compare equal exactly
    when they say the same."""
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, dict):
        return [[k, plain(v)] for k, v in value.items()]
    return value


def fingerprint(facts: Any) -> bytes:
    """A digest of *facts* as the census kept them (or None: the file named none of the words), equal for two
    readings exactly when they say the same (:func:`plain`)."""
    return bytes(sha256(repr(plain(facts)).encode("utf-8", "surrogatepass")).digest())


class Packed:
    """What the census took from a file (``[name, words, facts]``, a ``"census"`` tell) as a kept census result
    keeps it (:mod:`tierlock.census.keptresult`): its ``marshal`` bytes (*blob*) and the digest of its facts
    (:func:`tierlock.census.factdigest.facts_digest`), made once when it was kept. A recorder takes the digest and
    keeps the bytes as they are; the facts are decoded only when something asks for them (iterated, compared)."""

    __slots__ = ("blob", "digest", "name", "words")

    def __init__(self, name: str, words: Any, digest: bytes, blob: bytes) -> None:
        self.name, self.words, self.digest, self.blob = name, words, digest, blob

    def told(self) -> list[Any]:
        """``[name, words, digest of the facts]``: what a recorded run keeps of this reading."""
        return [self.name, self.words, self.digest]

    def value(self) -> list[Any]:
        """The ``[name, words, facts]`` it stands for."""
        found: list[Any] = marshal.loads(self.blob)
        return found

    def __iter__(self) -> Any:
        return iter(self.value())

    def __getitem__(self, index: int) -> Any:
        return self.value()[index]

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Packed):
            return self.blob == other.blob or self.value() == other.value()
        return isinstance(other, list) and self.value() == other

    __hash__ = None  # type: ignore[assignment]  # (equal to a list: unhashable as a list is)

    def __repr__(self) -> str:
        return f"Packed({self.name!r})"


def unpacked(value: Any) -> Any:
    """*value* as it was told: a :class:`Packed` reading decoded (else *value* itself)."""
    return value.value() if isinstance(value, Packed) else value


def packed_bytes(calls: list[Any]) -> bytes:
    """The ``marshal`` bytes of one file's readings as :class:`tierlock.keptedit.Decoded` decodes them, a
    :class:`Packed` one as its own bytes (not decoded)."""
    return marshal.dumps([call.blob if isinstance(call, Packed) else call for call in calls])
