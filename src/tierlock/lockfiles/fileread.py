"""Read a lockfile from disk into a :class:`Lock` (the thin edge over the pure parsers).

:func:`read` is lenient: it returns what it could parse and every problem with
its line (``tierlock check`` reports them all). :func:`load` is strict: it
raises :class:`LockfileError` on any integrity problem, so an installer never
acts on a lockfile it cannot trust.
"""

from __future__ import annotations

from pathlib import Path

from tierlock.frozen import Frozen
from tierlock.fsutil import read_bytes, utf8_text
from tierlock.lockfiles import keptparse
from tierlock.lockfiles.digest import sha256_hex
from tierlock.lockfiles.locks import Lock, LockEntry, LockfileError, LockFormatName, LockHeader, ReadProblem


class ReadResult(Frozen):
    """A lockfile as read, and every problem found reading it."""

    _fields = ("lock", "problems")

    lock: Lock
    problems: tuple[ReadProblem, ...]

    def __init__(self, lock: Lock, problems: tuple[ReadProblem, ...]) -> None:
        self._init(lock, problems)


def format_of(path: Path) -> LockFormatName:
    """The format a lockfile path implies: ``pylock.*.toml`` (or any ``.toml``) is pylock."""
    return "pylock" if path.suffix == ".toml" else "requirements"


def read(path: str | Path) -> ReadResult:
    """Read and parse *path*, collecting every problem (raises only when it cannot be read at all)."""
    path = Path(path)
    try:
        data = read_bytes(path)
    except FileNotFoundError:
        raise LockfileError(f"no lockfile at {path}", file=str(path), remedy="create it: tierlock lock TIER") from None
    except OSError as exc:
        raise LockfileError(f"cannot read {path}: {exc.strerror}", file=str(path)) from exc
    key = (path, data)
    known = _READ.get(key)
    if known is None:
        if len(_READ) >= _KEEP:
            _READ.clear()
        known = _READ[key] = _parsed(path, data)
    return known


#: What :func:`read` made of each lockfile, by its path and exact bytes: a command reads the lock of a tier
#: several times (the tier, the tiers layered on it, the remedies), and parses each once. Pure values (the
#: model is immutable), so a file changed on disk is new bytes and parsed again.
_READ: dict[tuple[Path, bytes], ReadResult] = {}
_KEEP = 256


def _parsed(path: Path, data: bytes) -> ReadResult:
    fmt = format_of(path)
    try:
        text = utf8_text(data)
    except UnicodeDecodeError as exc:
        problem = ReadProblem("integrity", None, f"not UTF-8 text ({exc.reason} at byte {exc.start})")
        return ReadResult(_empty(path, fmt, data), (problem,))
    digest = sha256_hex(data)
    pylock_document = None
    if fmt == "pylock":
        from tierlock.lockfiles import pylock

        parsed = pylock.parse(text)
        parse = _checked(parsed.header, parsed.entries, parsed.problems, parsed.body_digest)
        pylock_document = parsed.pylock
    else:
        kept = keptparse.find(str(path), digest)  # the same bytes parsed by an earlier command
        if kept is None:
            from tierlock.lockfiles import requirements

            parsed = requirements.parse(text)
            kept = _checked(parsed.header, parsed.entries, parsed.problems, parsed.body_digest)
            keptparse.keep(str(path), digest, kept)
        parse = kept
    lock = Lock(
        path=path,
        format=fmt,
        header=parse.header,
        entries=parse.entries,
        file_digest=digest,
        body_digest=parse.body_digest,
        pylock=pylock_document,
    )
    return ReadResult(lock, parse.problems)


def _checked(
    header: LockHeader | None, entries: list[LockEntry], problems: list[ReadProblem], body_digest: str
) -> keptparse.Parse:
    """A parser's result with a problem for each name pinned twice where the two can apply at once."""
    found = list(problems)
    names = [e.name for e in entries]
    if len(names) != len(set(names)):
        from tierlock.lockfiles.requirements import duplicate_problems

        found.extend(duplicate_problems(entries))
    return keptparse.Parse(header, entries, found, body_digest)


def load(path: str | Path, *, require_header: bool = False) -> Lock:
    """Read a lockfile for installing; raise :class:`LockfileError` listing every integrity problem.

    A missing or mangled header is an error only with *require_header* (a plain
    pip-tools lockfile with hashes is still installable).
    """
    result = read(path)
    problems = [p for p in result.problems if require_header or p.kind != "header"]
    if problems:
        header = result.lock.header
        remedy = f"regenerate it: {header.command} (then run tierlock check)" if header is not None else None
        raise LockfileError.from_problems(result.lock.path, problems, remedy)
    return result.lock


def _empty(path: Path, fmt: LockFormatName, data: bytes) -> Lock:
    return Lock(path=path, format=fmt, header=None, entries=(), file_digest=sha256_hex(data))
