"""Starting a lock's uv compiles before the project is read: the last run's commands, replayed and checked.

Before uv can start, ``tierlock lock`` spends most of its own time importing and
reading the project. So each run remembers, in the user's cache folder (the
one :func:`tierlock.probing.libcache.folder` names; ``TIERLOCK_CACHE_DIR`` moves
it, an empty value turns it off), the exact uv command of each tier it compiled
for this command line in this folder, with the bytes of its input files. The
next run starts those commands at once, each in its own scratch folder, while
the project is read. When the lock comes to compile a tier, it takes the early
compile only when it is exactly the one it would start now: the same
arguments, the same input and constraints bytes, the same previous lockfile.
Otherwise the early compile is not used, and is ended once the lock is done. A
memory that no longer holds costs one uv run, never a different lockfile.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
import threading
from dataclasses import dataclass, field
from pathlib import Path

from tierlock import interrupts, subproc
from tierlock.keptfirst import folder
from tierlock.lockkept import output_digest
from tierlock.redaction import credential_kind
from tierlock.scratch import write_atomic

VERSION = 2
WORK = "{work}"
"""Written in place of the scratch folder in a remembered command."""
#: At most this many compiles are started early (as many as a lock runs at once).
LIMIT = 4


@dataclass(frozen=True)
class Command:
    """One tier's compile as run: its argv and input files relative to its scratch folder (``{work}``)."""

    tier: str
    argv: tuple[str, ...]
    files: tuple[tuple[str, str], ...]
    """(name, text) of each file written into the scratch folder before the run (inputs, constraints)."""
    seed: str | None
    """The lockfile copied into the scratch folder as the previous lock (its name there is its own)."""
    lockfile: str
    existed: bool
    """Whether the lockfile was there (a remembered compile is not started when that has changed)."""
    cwd: str
    what: str
    remedy: str

    def to_json(self) -> dict[str, object]:
        return {
            "tier": self.tier,
            "argv": list(self.argv),
            "files": [list(f) for f in self.files],
            "seed": self.seed,
            "lockfile": self.lockfile,
            "existed": self.existed,
            "cwd": self.cwd,
            "what": self.what,
            "remedy": self.remedy,
        }


@dataclass
class Started:
    """An early compile: its command, scratch folder, the seed bytes it was given, and its thread."""

    command: Command
    work: Path
    seed_bytes: bytes | None
    thread: threading.Thread | None = None
    error: BaseException | None = None

    def run(self) -> None:
        try:
            argv = [a.replace(WORK, str(self.work)) for a in self.command.argv]
            expect(argv)
            subproc.run(argv, what=self.command.what, cwd=Path(self.command.cwd), remedy=self.command.remedy)
        except BaseException as exc:  # handed to the thread that takes it
            self.error = exc


@dataclass
class _State:
    key: str = ""
    path: str | None = None
    remembered: list[dict[str, object]] = field(default_factory=list)
    started: dict[str, Started] = field(default_factory=dict)
    ran: dict[str, Command] = field(default_factory=dict)
    expected: list[tuple[str, ...]] = field(default_factory=list)
    """The argv of each compile about to start (what a recorded lock may start: :mod:`tierlock.lockrecord`)."""
    produced: dict[str, tuple[Command, str] | None] = field(default_factory=dict)
    """Per tier, the compile that ran and the sha256 of the lock it wrote (None: the tier was compiled twice)."""
    guard: threading.Lock = field(default_factory=threading.Lock)

    def reset(self, key: str, path: str | None) -> None:
        self.key, self.path = key, path
        self.remembered, self.started, self.ran = [], {}, {}
        self.expected, self.produced = [], {}


_state = _State()


def _cache_path(key: str) -> str | None:
    where = folder()
    if where is None:
        return None
    return os.path.join(where, f"lock-{hashlib.sha256(key.encode('utf-8', 'surrogateescape')).hexdigest()[:20]}.json")


#: Options that change what is printed, not what is compiled: not part of what names a command line.
_OUTPUT = frozenset({"-q", "--quiet", "-v", "--verbose", "--json"})


def start(argv: tuple[str, ...]) -> None:
    """Start the compiles the last ``tierlock lock`` with *argv* in this folder ran (nothing when there were none).

    Imports little beyond the standard library and :mod:`tierlock.subproc`: it runs before the project is read.
    """
    try:
        key = json.dumps([os.getcwd(), [a for a in argv if a not in _OUTPUT]])
    except OSError:  # the current folder is gone: nothing to remember it by (the lock says what is wrong)
        _state.reset("", None)
        return
    _state.reset(key, _cache_path(key))  # one lock per process; another one (the tests run many) starts afresh
    if _state.path is None:
        return
    try:
        with open(_state.path, encoding="utf-8") as handle:
            document = json.load(handle)
        if document.get("version") != VERSION or document.get("key") != key:
            return
        _state.remembered = list(document["commands"])
        commands = [_command(item) for item in _state.remembered][:LIMIT]
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return
    for command in commands:
        _launch(command)


def _command(item: dict[str, object]) -> Command:
    files = _list(item["files"])
    return Command(
        tier=str(item["tier"]),
        argv=tuple(str(a) for a in _list(item["argv"])),
        files=tuple((str(name), str(text)) for name, text in map(_list, files)),
        seed=None if item["seed"] is None else str(item["seed"]),
        lockfile=str(item["lockfile"]),
        existed=item["existed"] is True,
        cwd=str(item["cwd"]),
        what=str(item["what"]),
        remedy=str(item["remedy"]),
    )


def _list(value: object) -> list[object]:
    if not isinstance(value, list):
        raise TypeError(value)
    return value


def _launch(command: Command) -> None:
    if os.path.isfile(command.lockfile) != command.existed:
        return  # created or removed since: this run's compile will differ
    seed_bytes = None
    if command.seed is not None:
        try:
            with open(command.seed, "rb") as handle:
                seed_bytes = handle.read()
        except OSError:
            return  # its previous lockfile is gone: this run's compile will differ
    work = Path(tempfile.mkdtemp(prefix=f"tierlock-lock-early-{os.getpid()}-"))  # (its process id: earlysweep)
    started = Started(command, work, seed_bytes)
    _state.started[command.tier] = started  # from here on, abandon() removes its folder
    for name, text in command.files:
        (started.work / name).write_text(text, encoding="utf-8")
    if command.seed is not None and seed_bytes is not None:
        (started.work / os.path.basename(command.seed)).write_bytes(seed_bytes)
    started.thread = threading.Thread(target=started.run, name="tierlock-early", daemon=True)
    with interrupts.sheltered():  # signals go to the main thread, which waits for this one
        started.thread.start()


def take(command: Command, seed_bytes: bytes | None) -> Started | None:
    """The early compile of *command* given *seed_bytes* as its previous lock, when it is exactly that; else None."""
    with _state.guard:
        _state.ran[command.tier] = command
        started = _state.started.get(command.tier)
        if started is None or started.command != command or started.seed_bytes != seed_bytes:
            return None
        del _state.started[command.tier]
    return started


def expect(argv: list[str]) -> None:
    """Note that the compile *argv* is about to start (it is one of this lock's compiles)."""
    with _state.guard:
        _state.expected.append(tuple(argv))


def expected(argv: tuple[str, ...]) -> bool:
    """Whether *argv* is a compile this lock noted it would start (each is allowed to start once)."""
    with _state.guard:
        if argv in _state.expected:
            _state.expected.remove(argv)
            return True
    return False


def produced(command: Command, output: Path, work: Path) -> None:
    """Note what *command*'s compile in *work* wrote (*output*: :func:`tierlock.lockkept.output_digest`); a tier
    compiled twice is noted as unknown."""
    try:
        digest: str | None = output_digest(output.read_bytes(), str(work))
    except OSError:
        digest = None
    with _state.guard:
        twice = command.tier in _state.produced
        _state.produced[command.tier] = None if twice or digest is None else (command, digest)


def compiles() -> list[tuple[Command, str]] | None:
    """Each compile this lock ran with the sha256 of what it wrote, by tier; None when one is not known."""
    with _state.guard:
        found = [_state.produced[tier] for tier in sorted(_state.produced)]
    known = [item for item in found if item is not None]
    return known if len(known) == len(found) else None


def threads() -> list[threading.Thread]:
    """The threads of the early compiles nobody took (to wait for, or to end on an interrupt)."""
    return [s.thread for s in _state.started.values() if s.thread is not None]


def finish() -> None:
    """End the early compiles nobody took (the lock is done: they are of no use) and remove their folders;
    remember this run's commands."""
    if any(t.is_alive() for t in threads()):
        subproc.end_workers(threads())  # a stale command waiting on a slow index does not hold the lock up
    subproc.join_workers(threads())
    _clear()
    _remember()


def abandon() -> None:
    """End the early compiles nobody took (the lock is being interrupted or failed) and remove their folders."""
    if threads():
        subproc.end_workers(threads())
    _clear()


def _clear() -> None:
    for started in _state.started.values():
        shutil.rmtree(started.work, ignore_errors=True)
    _state.started.clear()


def _remember() -> None:
    """Write this run's commands (not one that carries a credential: a password never lands on disk)."""
    path = _state.path
    commands = [c.to_json() for c in sorted(_state.ran.values(), key=lambda c: c.tier)]
    commands = [c for c in commands if credential_kind(json.dumps(c)) is None]
    if path is None or commands == _state.remembered or credential_kind(_state.key) is not None:
        return
    document = {"version": VERSION, "key": _state.key, "commands": commands}
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        write_atomic(Path(path), json.dumps(document).encode("utf-8"))
        os.chmod(path, 0o600)  # the project's requirements and paths: for this user only
    except OSError:
        pass  # a cache: a run that cannot write it is only slower next time
