"""Recording a ``tierlock lock`` that changed nothing, for :mod:`tierlock.lockkept` to answer the next one.

A lock is kept as a read-only command is (:mod:`tierlock.keptrecord`), with
three differences. It runs uv: each ``uv pip compile`` it noted it would start
(:func:`tierlock.lockstart.expect`) may start, and is kept with the sha256 of
the lock it wrote; any other process, a compile run twice, or a compile
started and not used, and nothing is kept. It writes in its own scratch
folders (``tierlock-lock-*`` in the temporary folder), which are not part of
what it rests on; any other write (a lockfile or record that changed) and
nothing is kept. And every file it opened is known by the sha256 of its
bytes, taken when it was opened and again at the end (a file changed during
the run: nothing is kept), and checked by its bytes on every later run, so a
lockfile written a moment before still counts; the whole environment is
kept by its digest, as uv reads all of it.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile

from tierlock import keptrecord, lockstart
from tierlock.earlysweep import sweep_locks
from tierlock.keptfirst import digest, entry_path, folder, terminal
from tierlock.keptrun import SETTLE_NS, who
from tierlock.keptsig import looked, module_files, unsettled
from tierlock.lockkept import KIND, SCRATCH, environ_digest, packed
from tierlock.probing.libcache import dump
from tierlock.redaction import credential_kind

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import Any


#: The files the import system reads (known by their look-up, as for every kept answer: not read twice).
CODE = (".py", ".pyc", ".so", ".pth")


class Recorder(keptrecord.Recorder):
    """A lock in progress: what it read (by its bytes), looked up, listed, printed, and the compiles it ran."""

    def __init__(self, cache: str) -> None:
        super().__init__(cache)
        self.scratch = os.path.join(tempfile.gettempdir(), SCRATCH)
        self.read: dict[str, bytes | tuple[int, ...] | int] = {}
        self.environ = environ_digest()  # as the lock starts (what the next run compares as it starts)

    def taint_env(self) -> None:
        """The whole environment is read (a process is started with it): it is kept by its digest."""

    def _ours(self, path: str, *, writing: bool = False) -> bool:
        if path.startswith(self.scratch) or path == os.devnull:  # its scratch folders; a backend's stdin
            return True
        return super()._ours(path, writing=writing)

    def event(self, event: str, args: tuple[Any, ...]) -> None:
        if event == "subprocess.Popen":
            if not lockstart.expected(tuple(str(a) for a in args[1])):
                self.taint(f"started {args[0]}")
        elif _by_descriptor(event, args):
            pass  # shutil.rmtree at work in a scratch folder, through its descriptors (its own call is checked)
        elif event == "shutil.copyfile":  # its source is read (the open is seen), only its target is written
            path = self._path(args[1])
            if path is not None and not self._ours(path, writing=True):
                self.taint(f"{event} {path}")
        else:
            super().event(event, args)

    def _open(self, given: Any, mode: str | None, flags: int) -> None:
        path = self._path(given)
        fresh = path is not None and path not in self.opened
        super()._open(given, mode, flags)
        if fresh and path in self.opened and not path.endswith(CODE):
            self.read[path] = digest(path)  # the bytes as read now (this open is seen again: already noted)

    def entry(self, who: list[object], code: int) -> dict[str, Any] | None:
        """The entry to keep (None when the run may not be kept)."""
        compiles = lockstart.compiles()
        if self.tainted is not None or code != 0 or compiles is None:
            return None
        code_files, sources = module_files()
        opened = sorted(self.opened - code_files)
        files = {path: ((), digest(path)) for path in opened}
        if any(files[path][1] != self.read.get(path) for path in opened):
            return None  # changed while the lock ran
        settled = self.started - SETTLE_NS
        stats, lstats = (self.stats | sources) - set(opened), self.lstats - set(opened)
        seen = looked(stats, lstats, settled, listed=self.listed, scanned=self.scanned)
        if unsettled([*seen["stats"].values(), *seen["lstats"].values()], seen["scans"], settled):
            return None  # modified too recently to be sure a later change would be seen
        kept = [_compile(command, sha) for command, sha in compiles]
        if not keepable(json.dumps(kept)):
            return None  # a credential in a command line is never written down
        return {"who": who, "env": {}, "environ": self.environ, "stats": seen["stats"], "lstats": seen["lstats"]} | {
            "lists": seen["lists"],
            "scans": seen["scans"],
            "files": files,
            "shadows": seen["shadows"],
            "out": list(self.out),
            "code": code,
            "kind": KIND,
            "compiles": kept,
        }


def _by_descriptor(event: str, args: tuple[Any, ...]) -> bool:
    """Whether *event* lists a folder by its descriptor, or removes an entry relative to one."""
    if event in ("os.listdir", "os.scandir"):
        return bool(args) and isinstance(args[0], int)
    return event in ("os.remove", "os.rmdir") and len(args) > 1 and isinstance(args[1], int)


def _compile(command: lockstart.Command, sha: str) -> dict[str, object]:
    return {
        "argv": list(command.argv),
        "files": [list(f) for f in command.files],
        "seed": command.seed,
        "output": os.path.join(lockstart.WORK, os.path.basename(command.lockfile)),
        "cwd": command.cwd,
        "sha256": sha,
    }


#: Options whose output is not a function of what the lock read (-v shows scratch folders) or that lock nothing.
UNKEPT = frozenset({"-v", "--verbose", "--dry-run"})


def keepable(text: str) -> bool:
    """Whether *text* (a command line, the compiles) may be written down: it carries no credential."""
    return credential_kind(text) is None


def run(argv: Sequence[str], command: Callable[[], int]) -> int:
    """*command*'s exit code (a lock), recorded and kept when it changed nothing (see the module's text); then,
    not recorded, the scratch folders of locks killed before they removed theirs removed
    (:func:`tierlock.earlysweep.sweep_locks`)."""
    code = _recorded(argv, command)
    with contextlib.suppress(Exception):  # (nothing of it is needed: a folder left is removed by a later run)
        sweep_locks(tempfile.gettempdir())
    return code


def _recorded(argv: Sequence[str], command: Callable[[], int]) -> int:
    unkept = terminal() or any(a in UNKEPT for a in argv) or not keepable(json.dumps(list(argv)))
    where = None if unkept else folder()
    if where is None:
        return command()
    recorder = Recorder(where)
    with recorder:
        code = command()
    path = entry_path(where, argv)
    entry = recorder.entry(who(argv), code)
    entry = None if entry is None else packed(entry)
    if entry is not None:
        dump(path, entry)
        with contextlib.suppress(OSError):
            os.chmod(path, 0o600)  # the project's requirements and paths: for this user only
    else:
        with contextlib.suppress(OSError):
            os.unlink(path)
    return code
