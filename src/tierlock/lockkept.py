"""``tierlock lock`` where nothing it reads has changed: its uv compiles run again, and only they.

A lock that changed nothing (every lockfile and artifact record already held
the bytes it would write) is kept as a read-only command's answer is
(:mod:`tierlock.keptrun`, recorded by :mod:`tierlock.lockrecord`): every file
it read, by its bytes; every path it looked up and folder it listed; the
environment; its output; and the exact ``uv pip compile`` of each tier with
the sha256 of the lock that compile wrote. The next run with the same command
line starts those compiles at once, as the interpreter starts, each in a
scratch folder of its own given the same inputs and the lockfile as it is
now, and meanwhile checks that everything else is as it was. When it is, and
every compile writes exactly what it wrote then, the lock would write exactly
the files that are there: the kept report is printed and nothing is written.
uv always runs: the index is asked again (a new release under ``--upgrade``, a
yanked version, a new file of a pinned version change what uv writes, and the
lock then runs in full, a uv run later). Anything else different, and the
compiles are ended at once and the lock runs in full.

It runs before the command line is parsed, and its compiles start on what :mod:`tierlock.keptfirst` reads
(the entry, the files' bytes) before anything else loads: :mod:`tierlock.keptrun`, which checks everything else
the entry rests on, loads once they run, beside them.
"""

from __future__ import annotations

import _signal as signal  # type: ignore[import-not-found,unused-ignore]  # the C module: ``signal`` loads enum
import marshal  # loaded by every interpreter at start-up (it reads byte code): no import cost
import os
import sys
import time

from tierlock.fasthash import sha256  # (no OpenSSL start-up: hashlib loads it)
from tierlock.interrupts import GRACE, again, received
from tierlock.keptfirst import command_word, digest, entry_path, folder, private_folder, terminal
from tierlock.spawning import spawn

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

#: What a kept lock's entry says it is (a read-only command's entry has no kind).
KIND = "lock"
#: The name every scratch folder of a lock begins with (in the temporary folder).
SCRATCH = "tierlock-lock-"
#: Written in place of the scratch folder in a kept command (as :data:`tierlock.lockstart.WORK`).
WORK = "{work}"


def is_lock(argv: Sequence[str]) -> bool:
    """Whether *argv* runs ``tierlock lock`` (not its help)."""
    return command_word(argv) == "lock" and not any(a in ("-h", "--help") for a in argv)


def environ_digest() -> str:
    """The sha256 of the whole environment (uv reads all of it; a secret in it is not written down)."""
    items = sorted(os.environ.items())
    text = "\0".join(f"{name}={value}" for name, value in items)
    return str(sha256(text.encode("utf-8", "surrogateescape")).hexdigest())


def output_digest(data: bytes, work: str) -> str:
    """The sha256 of a compile's output *data*, its scratch folder *work* (named in ``# via`` notes) as ``{work}``."""
    return str(sha256(data.replace(os.fsencode(work), WORK.encode())).hexdigest())


def replay(argv: Sequence[str]) -> int | None:
    """Print the kept answer of the lock *argv* and return its exit code when it still holds; else None."""
    if terminal():
        return None
    where = folder()
    if where is None:
        return None
    entry = load(entry_path(where, argv))
    if entry is None or entry.get("kind") != KIND or entry.get("environ") != environ_digest():
        return None
    if not isinstance(entry.get("rest"), bytes):  # (kept before its head and rest were: one marshal document)
        return None
    runs: list[_Compile] = []
    try:
        if not _files_hold(entry["files"]):  # an edited file: no compile is started only to be ended
            return None
        for item in entry["compiles"]:  # (each one kept as it starts: one that cannot start ends those before it)
            runs.append(_Compile.start(item))
        # (once the compiles run: the rest of the entry read, and keptrun loaded, beside them, not before them)
        if not _unpacked(entry) or not isinstance(entry.get("shadows"), dict):  # (shadows: keptsig.shadows)
            return None
        from tierlock import keptrun

        if not keptrun.holds(entry, argv) or not all(run.same() for run in runs):
            return None
    except (KeyError, TypeError, ValueError, EOFError, AttributeError, OSError):
        return None
    finally:
        _end(runs)
    streams = {1: sys.stdout, 2: sys.stderr}
    for fd, text in entry["out"]:
        streams[fd].write(text)
    code: int = entry["code"]
    return code


#: What a lock's entry holds in its head, read before its compiles start; the rest (what the lock looked up and
#: listed, the command line, its output) is one ``marshal`` document in the head's ``rest``, read once they run.
HEAD = ("kind", "environ", "files", "compiles")


def packed(entry: dict[str, Any]) -> dict[str, Any] | None:
    """*entry* as it is kept: :data:`HEAD`, and the rest as the bytes of one ``marshal`` document (None: a value
    ``marshal`` cannot write, not kept)."""
    try:
        rest = marshal.dumps({key: value for key, value in entry.items() if key not in HEAD})
    except ValueError:
        return None
    return {key: entry[key] for key in HEAD} | {"rest": rest}


def _unpacked(entry: dict[str, Any]) -> bool:
    """Read the rest of *entry* (:func:`packed`) into it: whether it was one (a table of names not the head's)."""
    rest = marshal.loads(entry.pop("rest"))
    if not isinstance(rest, dict) or not rest.keys().isdisjoint(HEAD):
        return False
    entry.update(rest)
    return True


def load(path: str) -> dict[str, Any] | None:
    """The lock's entry kept at *path* (plain ``marshal``, as :func:`tierlock.lockrecord.run` writes it), or None
    when there is none or it does not load."""
    try:
        with open(path, "rb") as fh:
            loaded = marshal.loads(fh.read())
    except (OSError, ValueError, EOFError, TypeError):
        return None
    return loaded if isinstance(loaded, dict) else None


def _files_hold(files: dict[str, tuple[object, object]]) -> bool:
    """Whether every file the lock read still has the bytes it had (the first of what
    :func:`tierlock.keptrun.holds` checks, and what an edit changes)."""
    return all(digest(path) == was for path, (_sig, was) in files.items())


class _Compile:
    """One kept compile, started again in a scratch folder of its own."""

    def __init__(self, item: dict[str, Any], work: str) -> None:
        self.item = item
        self.work = work
        self.pid: int | None = None
        self.status: int | None = None

    @classmethod
    def start(cls, item: dict[str, Any]) -> _Compile:
        run = cls(item, private_folder(f"{SCRATCH}kept-"))
        try:
            run._launch()
        except BaseException:  # nothing of it is left: no process was started, its folder goes
            _remove(run.work)
            raise
        return run

    def _launch(self) -> None:
        item = self.item
        for name, text in item["files"]:
            with open(os.path.join(self.work, name), "w", encoding="utf-8") as fh:
                fh.write(text)
        if item["seed"] is not None:  # the lockfile as it is now (its bytes are checked against the kept ones)
            with (
                open(item["seed"], "rb") as src,
                open(os.path.join(self.work, os.path.basename(item["seed"])), "wb") as dst,
            ):
                dst.write(src.read())
        argv = [str(a).replace(WORK, self.work) for a in item["argv"]]
        self.pid = _spawn(argv, str(item["cwd"]))

    def same(self) -> bool:
        """Wait for the compile: whether it ended well and wrote exactly the kept lock (its folder is removed
        at once, while the other compiles still run)."""
        assert self.pid is not None
        _, status = os.waitpid(self.pid, 0)
        self.status = status
        try:
            if os.waitstatus_to_exitcode(status) != 0:
                return False
            with open(str(self.item["output"]).replace(WORK, self.work), "rb") as fh:
                return bool(output_digest(fh.read(), self.work) == self.item["sha256"])
        finally:
            self.end()

    def end(self) -> None:
        """Remove the compile's scratch folder (once; :func:`_end` ends a compile that still runs)."""
        if self.work:
            _remove(self.work)
            self.work = ""


def _spawn(argv: list[str], cwd: str) -> int:
    """Start *argv* in *cwd* in a process group of its own, its output dropped (the lock reads only its file)."""
    return spawn(argv, cwd=cwd).pid


def _end(runs: list[_Compile]) -> None:
    """End the compiles that still run, all at once (each with its process group: asked to stop as an
    interrupt would, given a moment, then killed), then remove every scratch folder."""
    running = {run.pid for run in runs if run.pid is not None and run.status is None}
    for signum, seconds in ((signal.SIGINT, GRACE), (signal.SIGKILL, 10.0)):
        for pid in running:
            with _quiet():
                os.killpg(pid, signum)
        deadline = time.monotonic() + seconds
        graced = signum == signal.SIGINT  # (a second signal cuts the grace short, never the wait for the killed)
        try:
            while running and time.monotonic() < deadline and not (graced and again(min(len(received), 1))):
                running = {pid for pid in running if not _reaped(pid)}
                if running:
                    time.sleep(0.002)
        except KeyboardInterrupt:  # a second interrupt: no more grace (the first one is on its way)
            continue
    for run in runs:
        run.status = 0 if run.status is None else run.status
        run.end()


def _reaped(pid: int) -> bool:
    try:
        return os.waitpid(pid, os.WNOHANG)[0] != 0
    except ChildProcessError:
        return True


def _remove(path: str) -> None:
    """Remove a scratch folder and everything in it (what cannot be removed is left)."""
    try:  # flat, as a compile leaves it
        for name in os.listdir(path):
            os.unlink(os.path.join(path, name))
        os.rmdir(path)
    except OSError:
        _remove_tree(path)


def _remove_tree(path: str) -> None:
    for where, dirs, names in os.walk(path, topdown=False):
        for name in names:
            with _quiet():
                os.unlink(os.path.join(where, name))
        for name in dirs:
            with _quiet():
                os.rmdir(os.path.join(where, name))
    with _quiet():
        os.rmdir(path)


class _quiet:
    """``contextlib.suppress(OSError)`` without importing contextlib."""

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: type[BaseException] | None, *rest: object) -> bool:
        return kind is not None and issubclass(kind, OSError)
