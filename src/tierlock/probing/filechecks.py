"""The checks of the files RECORD lists: one ``stat`` of each (the probe's hot path), the hashes with ``--deep``.

The common case, every file there with its recorded size, is decided in C (:func:`os.stat` mapped over the
paths, the sizes compared with :func:`operator.eq`) keeping nothing but the identities of the compiled files,
which the shared-library check then uses instead of a second ``stat``. Anything else is looked at row by row
and said as reasons.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from functools import partial
from itertools import chain
from operator import attrgetter

from tierlock.keptnote import noting, stat_all
from tierlock.probing import compiled, distinfo
from tierlock.probing.compiled import is_compiled
from tierlock.probing.regular import open_bytes

_SHOWN = 3
"""How many file names a reason lists before saying 'and N more'."""
_SIZE = attrgetter("st_size")
_STAMP = attrgetter("st_ino", "st_size", "st_mtime_ns", "st_ctime_ns")
_AT = os.stat in os.supports_dir_fd
"""Whether a path can be looked up from a folder's descriptor here (POSIX)."""
_FOLDER = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_CLOEXEC", 0)
WHOLE: tuple[list[str], list[str], list[str]] = ([], [], [])
"""What :func:`stat_rows` answers when every file is there with its size (never mutated)."""
STALE: tuple[list[str], list[str], list[str]] = ([], [], [])
"""What :func:`stat_rows` answers when the facts it was given are no longer the folder's (compared by identity)."""


def stat_rows(
    facts: distinfo.DistInfo, confirm: bool, seen: dict[str, tuple[int, int, int, int]]
) -> tuple[list[str], list[str], list[str]]:
    """Stat every file RECORD lists (this is the probe's hot path): (the RECORD paths missing, the sizes that
    differ as reasons say them, the RECORD paths resized). With *confirm*, METADATA and RECORD are stat-ed
    first, and :data:`STALE` is the answer when they are not the files the facts were read from. The compiled
    files' identities go into *seen* (the shared-library check stats none of them again)."""
    if confirm and not distinfo.own_unchanged(facts):
        return STALE
    if facts.sizes is not None and facts.meta_resized is None:
        try:  # the common case, every file there with its size: stat and compare in C, keeping nothing
            if _stat_compiled(facts, seen) and _sizes(facts) == facts.sizes:
                return WHOLE
        except OSError:
            pass  # one is missing: the loop below says which
    stat = os.stat
    missing: list[str] = []
    resized: list[str] = []
    changed: list[str] = []
    for full, size, rel in facts.rows:
        try:
            actual = stat(full).st_size
        except OSError:
            missing.append(rel)
            continue
        if size is not None and actual != size:
            resized.append(f"{rel} ({actual} bytes, RECORD says {size})")
            changed.append(rel)
    if facts.meta_resized is not None:
        resized.append(facts.meta_resized)
        changed.append(facts.meta_resized.partition(" (")[0])
    return missing, resized, changed


def _sizes(facts: distinfo.DistInfo) -> list[int]:
    """The sizes of :attr:`~distinfo.DistInfo.paths`, one ``stat`` of each in C (``OSError`` from the first that
    cannot be looked up): from the site folder's descriptor (:attr:`~distinfo.DistInfo.near`: the kernel walks the
    folders above it once, not once per file; ~8% of a closure's look-ups), but while a run is recorded (its
    look-ups are noted by their paths: :func:`tierlock.keptnote.stat_all`)."""
    if _AT and not noting() and len(facts.near) == len(facts.paths):
        try:
            folder = os.open(facts.site, _FOLDER)
        except OSError:
            pass  # (looked up by their paths: the first that cannot be says so)
        else:
            try:
                return list(map(_SIZE, map(partial(os.stat, dir_fd=folder), facts.near)))
            finally:
                os.close(folder)
    return list(map(_SIZE, stat_all(facts.paths)))


def still_whole(facts: distinfo.DistInfo, stamps: list[tuple[int, int, int, int]]) -> bool:
    """Whether the folder, METADATA, RECORD and the compiled files still have the identities (inode, size,
    modification time, status change time) *stamps* (what they had when the distribution was last found whole)
    and every other file RECORD lists is there with its recorded size: each file stat-ed once, in C. The fast way
    for a distribution found whole before; False says nothing of what is wrong: the caller takes the full way
    (:func:`stat_rows`)."""
    try:
        return (
            list(map(_STAMP, stat_all(facts.watched))) == stamps
            and list(map(_SIZE, stat_all(facts.paths))) == facts.sizes
        )
    except OSError:
        return False


def all_still_whole(kept: Sequence[tuple[distinfo.DistInfo, list[tuple[int, int, int, int]]]]) -> bool:
    """:func:`still_whole` of many distributions at once (facts, stamps): each file stat-ed once, in two C passes
    over them all; False when any one is not (without saying which)."""
    watched = list(chain.from_iterable(facts.watched for facts, _stamps in kept))
    paths = list(chain.from_iterable(facts.paths for facts, _stamps in kept))
    try:
        return list(map(_STAMP, stat_all(watched))) == list(
            chain.from_iterable(stamps for _facts, stamps in kept)
        ) and list(map(_SIZE, stat_all(paths))) == list(chain.from_iterable(facts.sizes or () for facts, _ in kept))
    except OSError:
        return False


def _stat_compiled(facts: distinfo.DistInfo, seen: dict[str, tuple[int, int, int, int]]) -> bool:
    """Stat the compiled files, keeping their identities in *seen*: whether each has its recorded size
    (``OSError`` when one is missing)."""
    stat = os.stat
    whole = True
    for (full, _rel), size in zip(facts.compiled, facts.compiled_sizes, strict=True):
        st = stat(full)
        seen[full] = (st.st_size, st.st_mtime_ns, st.st_ino, st.st_ctime_ns)
        whole = whole and (size is None or st.st_size == size)
    return whole


def file_reasons(
    facts: distinfo.DistInfo,
    stats: tuple[list[str], list[str], list[str]],
    suffixes: Sequence[str],
    *,
    deep: bool,
    reasons: list[str],
    notes: list[str],
) -> frozenset[str]:
    """The reasons the stat of every file (and with *deep* its hash) gives; the RECORD paths missing."""
    missing, resized, changed = stats
    gone = frozenset(missing)
    reasons.extend(f"compiled artifact {rel} is missing" for rel in missing if is_compiled(rel))
    for full, rel in facts.compiled:
        wrong = compiled.check_artifact(full, rel, suffixes, lambda: facts.loadable) if rel not in gone else None
        if wrong is not None:
            reasons.append(wrong)
    plain = [rel for rel in missing if not is_compiled(rel)]
    _summarize(reasons, plain, "file listed in RECORD is missing", "files listed in RECORD are missing")
    _summarize(reasons, resized, "file has another size than RECORD says", "files have other sizes")
    if deep:
        skip = gone.union(changed)
        mismatched = [
            rel
            for full, rel, _size, recorded in facts.records
            if recorded and rel not in skip and not _hash_matches(full, recorded)
        ]
        _summarize(reasons, mismatched, "file does not match its RECORD hash", "files do not match their hashes")
        notes.append("hashes checked (--deep)")
    return gone


def _hash_matches(path: str, recorded: str) -> bool:
    import base64
    import hashlib

    algorithm, _, expected = recorded.partition("=")
    try:
        digest = hashlib.new(algorithm)
    except ValueError:
        return False
    try:
        with open_bytes(path) as fh:
            for chunk in iter(lambda: fh.read(1 << 20), b""):
                digest.update(chunk)
    except OSError:
        return False
    return base64.urlsafe_b64encode(digest.digest()).rstrip(b"=").decode() == expected


def _summarize(reasons: list[str], items: list[str], one: str, many: str) -> None:
    if not items:
        return
    shown = ", ".join(items[:_SHOWN])
    more = f" and {len(items) - _SHOWN} more" if len(items) > _SHOWN else ""
    if len(items) == 1:
        reasons.append(f"{one}: {shown}")
    else:
        reasons.append(f"{len(items)} {many}: {shown}{more}")
