"""A read-only command's answer, kept with everything it looked at, given again while none of it changed.

``tierlock check``, ``probe``, ``status`` and ``admit`` print what follows
from files: the project's pyproject.toml, lockfiles and test files, and the
target environment's dist-info folders and installed files. Loading the
tier model, the lockfile model, packaging and the census to work that out
again costs a hundred milliseconds of imports; this module makes a command
that has run once cost little more than starting the interpreter, without
trusting anything it has not checked again.

The first run is *recorded*: a :func:`sys.addaudithook` hook and wrappers of
:func:`os.stat`, :func:`os.lstat` and :func:`os.access` note every file the
command opened, every path it looked up, every folder it listed, and every
environment variable it read (``os.environ`` is watched); its output and exit
code are captured as they are written. The entry kept (``runs-*.marshal``
in tierlock's cache folder, ``$TIERLOCK_CACHE_DIR``) holds:

* the identity (kind, size, modification time in ns, inode, device, status change time in ns) and a
  digest of the bytes of every file opened (pyproject.toml, each lockfile,
  ``uv.lock``, requirement files, test files, receipts, RECORD files ...): an
  unchanged identity is an unchanged file (any write moves the time, and a
  file modified within two seconds of the run is never kept); a changed one is
  read and digested again, so a checkout that rewrote it unchanged keeps the answer;
* the kind, size, modification time, inode and status change time of every path looked up (every
  installed file of the locked closure the probe checks, missing ones too);
* the names in every folder listed, and with :func:`os.scandir` each entry's
  kind, size, modification time and inode;
* the value (or absence) of every environment variable read;
* the size, time and inode of the source file of every module the run imported (tierlock's own code,
  packaging, the standard library: a changed module, and the answer is worked out again);
* the command line, the working folder, the interpreter, its module search path, tierlock's version;
* for each test file (and project module) the census alone read: its identity and digest, and a
  fingerprint of the facts the census took from it; the facts themselves and each census's inputs and
  result in a file beside the entry (``runs-*.marshal.rerun``, trusted by its sha256).

The next run with the same command line does all of those reads, lookups and
listings again - every file of the locked closure is stat-ed again, every
lockfile digested again - and prints the kept answer only when every one is
as it was; anything different, and the command runs in full (and is
recorded again). A run is never kept when it wrote a file outside the cache
folder, started a process, opened a connection, changed folder, ended with
another exit code than 0 or 1, wrote to a terminal, or when anything it
looked at was modified less than two seconds before it started (a change
within the file system's clock resolution could go unseen).
A test file the census alone read that changed is read again as the census reads it: the same facts, and
the answer holds; else the census is worked out again from the kept facts of the others
(:mod:`tierlock.census.rerun`), and an equal result holds too.
A pyproject.toml every opening of which was :func:`tierlock.projectparts.read`'s is kept by the fingerprint of
its parts too: changed, it is parsed again (only then) and the same parts hold (:mod:`tierlock.keptloose`).
Files read by the import system are known by their look-up, not their bytes;
tierlock's own cache files are not part of the key: the caches are themselves
keyed by what they rest on, and that is recorded.
"""

from __future__ import annotations

import marshal  # loaded by every interpreter at start-up (it reads byte code): no import cost
import os
import sys
from time import time_ns

from tierlock import keptseal
from tierlock._version import __version__
from tierlock.fasthash import sha256  # (no OpenSSL start-up: hashlib loads it)
from tierlock.keptfirst import command_word, digest, entry_path, failed, folder, sig_of, terminal
from tierlock.keptseal import seal

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Container, Iterable, Sequence
    from typing import Any

#: Bump when the kept entry's shape or meaning changes.
SCHEMA = 6
#: The commands whose answer may be kept.
COMMANDS = frozenset({"check", "probe", "status", "admit"})
#: Audit events that change something outside the process (with a path first: allowed in the cache folder).
WRITES = frozenset(
    {"os.remove", "os.rename", "os.mkdir", "os.rmdir", "os.truncate", "os.chmod", "os.chown", "os.utime"}
    | {"os.link", "os.symlink", "shutil.rmtree", "shutil.copyfile", "shutil.move", "shutil.copytree"}
)
#: Audit event prefixes that make a run's answer more than a function of what it read.
EFFECTS = ("subprocess.", "os.exec", "os.posix_spawn", "os.spawn", "os.fork", "os.system", "os.kill", "socket.")
WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_TRUNC
#: How recent (ns) a modification may be before a run is not kept: within the file system's clock resolution.
SETTLE_NS = 2_000_000_000


def command_of(argv: Sequence[str]) -> str | None:
    """The command *argv* runs when it is one whose answer may be kept (exact names only), else None."""
    word = command_word(argv)
    return word if word in COMMANDS else None


def _sha256(data: bytes) -> Any:
    return sha256(data)


def who(argv: Sequence[str]) -> list[object]:
    """What an entry is for besides what the run read: the command line, folder, interpreter, where modules
    are imported from, tierlock's version, and the machine (``os.uname()`` but the host name: the values
    behind PEP 508 markers)."""
    machine = [part for i, part in enumerate(os.uname()) if i != 1] if hasattr(os, "uname") else [sys.platform]
    return [SCHEMA, list(argv), os.getcwd(), sys.executable, sys.version, __version__, list(sys.path), machine]


# -- what a path is now ---------------------------------------------------------------------------------
def stat_sig(path: str, *, follow: bool = True) -> tuple[int, ...]:
    """A path's kind, size, modification time (ns), inode, device and the time its status last changed (ns: a
    write that put back the size and the modification time, ``cp -p`` or ``touch -r``, still moves that one);
    ``(-errno,)`` when it cannot be looked up.

    A folder's size and times are left out (they change whenever an entry is added or removed): what a
    command learns from a folder's entries it learns by listing it, and a listing is kept apart.
    """
    try:
        st = os.stat(path, follow_symlinks=follow)
    except OSError as exc:
        return (failed(exc),)
    return sig_of(st)


def identity(path: str) -> tuple[int, ...]:
    """What a file read is kept by: its :func:`stat_sig` (a folder, or a path that cannot be looked up, too)."""
    return stat_sig(path)


def modified_since(sig: tuple[int, ...], since_ns: int) -> bool:
    """Whether the file whose :func:`stat_sig` is *sig* was modified at or after *since_ns* (folders and
    paths that could not be looked up: no)."""
    return len(sig) >= 5 and sig[2] >= since_ns


def listing(path: str) -> tuple[str, ...] | int:
    """The sorted names in a folder (:func:`os.listdir`), or ``-errno``."""
    try:
        return tuple(sorted(os.listdir(path)))
    except OSError as exc:
        return failed(exc)


def scan(path: str, look: Callable[[str], tuple[int, ...]] = stat_sig) -> tuple[tuple[str, tuple[int, ...]], ...] | int:
    """The sorted entries of a folder with each one's :func:`stat_sig` (:func:`os.scandir` hands out its
    entries' ``stat()`` without :func:`os.stat`), or ``-errno``."""
    try:
        names = sorted(os.listdir(path))
    except OSError as exc:
        return failed(exc)
    return tuple((name, look(os.path.join(path, name))) for name in names)


# -- giving a kept answer ---------------------------------------------------------------------------------
def load(path: str, *, sealed: bool = False) -> dict[str, Any] | None:
    """The entry kept at *path* (:func:`tierlock.keptseal.load`: a sealed one's look-ups read when first asked for)."""
    return keptseal.load(path, sealed=sealed)


def holds(entry: dict[str, Any], argv: Sequence[str], seen: list[Any] | None = None) -> bool:
    """Whether every environment variable, path, folder and file *entry* rests on is as it was.

    A file read is the same when its identity (:func:`stat_sig`) is, or else when its bytes are (a checkout
    that rewrote it unchanged); each path is looked up once however many tables name it. A test file the
    census alone read may have changed (:func:`summaries_hold`): *seen* then gets ``(how, paths)``. A file
    read is known by its :func:`identity` (a same-size edit dated back is read again).
    """
    try:
        if entry["who"] != who(argv):
            return False
        environ = os.environ
        if any(environ.get(name) != value for name, value in entry["env"].items()):
            return False
        looked: dict[str, tuple[int, ...]] = {}

        def look(path: str) -> tuple[int, ...]:
            found = looked.get(path)
            if found is None:
                found = looked[path] = identity(path)
            return found

        sig = look

        parts: dict[str, bytes] = entry.get("parts") or {}  # pyproject.toml kept by its parts too
        if not isinstance(entry["code"], int):
            return False
        # The files read first: a few (pyproject.toml, the lockfiles), and what an edit changes; the look-ups last,
        # thousands for a probe (a stat of every file of the closure), looked at only when everything else holds
        # (and only then read from the entry's file: :mod:`tierlock.keptseal`).
        files = entry["files"]  # (an arming's or a lock's entry keeps a file by its stat_sig: compared as such)
        for path, (was, bytes_were) in files.items():
            now = look(path)
            # (its bytes compared only while it is a regular file: a FIFO put in its place is never opened, waited on)
            changed = now[: len(was)] != was and (now[0] & 0o170000 != 0o100000 or digest(path) != bytes_were)
            if changed and not _loose().parts_hold(path, parts, look, seen):  # a pyproject.toml: its parts too
                return False
        if not isinstance(entry["out"], list) or not shadows_hold(entry.get("shadows") or {}):
            return False  # (a module put first on sys.path: a full run would import it)
        summaries: dict[str, Any] = entry.get("summaries") or {}  # (a lock's or an arming's: no census ran)
        loose = summaries.keys() | parts.keys()
        for path, was in entry["lstats"].items():
            now = stat_sig(path, follow=False)
            if now != was and not _loose().same_kind(path, now, was, parts):
                return False
        if any(listing(path) != was for path, was in entry["lists"].items()):
            return False
        if not all(scan_holds(path, was, sig, loose) for path, was in entry["scans"].items()):
            return False
        stats = entry["stats"]
        if any(sig(path) != was and not _loose().same_kind(path, sig(path), was, loose) for path, was in stats.items()):
            return False
        return summaries_hold(summaries, look, entry.get("rerun"), seen)
    except (KeyError, TypeError, ValueError, AttributeError):
        return False


def shadows_hold(shadows: dict[str, Any]) -> bool:
    """Whether no module was put where the import system would take it for one the run loaded (*shadows*:
    :func:`tierlock.keptsig.shadows`): each folder's time as it was, or else nothing of those names in it."""
    return all(
        (mtime is not None and _mtime(path) == mtime) or unshadowed(path, names)
        for path, (mtime, names) in shadows.items()
    )


def _mtime(path: str) -> int:
    try:
        return os.stat(path).st_mtime_ns
    except OSError as exc:
        return failed(exc)


def unshadowed(path: str, names: dict[str, str]) -> bool:
    """Whether no entry of the folder *path* is named (before its first dot) as one of *names* but the one allowed
    (name -> the entry it was loaded from). A folder not there holds none; one that cannot be listed may."""
    try:
        entries = os.listdir(path)
    except FileNotFoundError:
        return True
    except OSError:
        return False
    return all(names.get(name.partition(".")[0]) in (None, name) for name in entries)


def scan_holds(path: str, was: Any, sig: Callable[[str], tuple[int, ...]], loose: Container[str]) -> bool:
    """Whether a scanned folder has the same entries, each as it was, or a file kept by what was taken from it
    (*loose*: :func:`tierlock.keptloose.same_kind`) that is still a file of the same kind."""
    now = scan(path, sig)
    return now == was or bool(_loose().entries_hold(path, now, was, loose))


def _loose() -> Any:
    """:mod:`tierlock.keptloose`, loaded only when a look-up, a folder's entry or a file read changed."""
    from tierlock import keptloose

    return keptloose


def summaries_hold(
    summaries: dict[str, Any], sig: Callable[[str], tuple[int, ...]], rerun: Any = None, seen: list[Any] | None = None
) -> bool:
    """Whether every file kept by what the census took from it is unchanged (identity, else bytes), or, read
    again, gives the census the same (:mod:`tierlock.census.summary`: loaded only when one changed), or else
    the census worked out again from every file's facts (*rerun*: :func:`rerun_data`) gives the same result
    (:func:`tierlock.keptedit.changed_hold`: loaded only when one changed)."""
    changed = [
        (path, calls, shown)
        for path, (was, bytes_were, calls, shown) in summaries.items()
        if sig(path) != was and (bytes_were is None or digest(path) != bytes_were)
    ]
    if not changed:
        return True
    from tierlock.keptedit import changed_hold

    return changed_hold(changed, sig, lambda: rerun_data(rerun), seen)


def rerun_data(rerun: Any) -> dict[str, Any] | None:
    """What a census needs to be worked out again (every file's facts, each census's inputs and result): kept
    in the entry itself (a run just recorded), or ``[file, sha256]``, a file beside it whose digest must match."""
    if isinstance(rerun, dict):
        return rerun
    try:
        path, wanted = rerun
        outer = load(path)
        data = None if outer is None else outer["rerun"]
        if not isinstance(data, bytes) or bytes(_sha256(data).digest()) != wanted:
            return None
        loaded = marshal.loads(data)
        from tierlock.keptedit import Decoded

        return {"calls": Decoded(loaded["calls"]), "surveys": loaded["surveys"]}
    except (TypeError, ValueError, KeyError, EOFError):
        return None


def replay(argv: Sequence[str]) -> int | None:
    """Print the kept answer of *argv* and return its exit code, when one is kept and still holds; else None."""
    if terminal():
        return None
    where = folder()
    if where is None:
        return None
    path = entry_path(where, argv)
    entry = load(path, sealed=True)
    seen: list[Any] = []
    if entry is None or not holds(entry, argv, seen):
        return None
    if seen and settled(path for _how, paths in seen for path in paths):
        if any(how == "census" for how, _paths in seen):
            return None  # worked out in full once, and kept again: not the census again on every run
        from tierlock.keptedit import parts_refreshed, refreshed

        for how, paths in seen:
            (parts_refreshed if how == "parts" else refreshed)(entry, paths)
        seal(path, entry)
    streams = {1: sys.stdout, 2: sys.stderr}
    for fd, text in entry["out"]:
        streams[fd].write(text)
    code: int = entry["code"]
    return code


def settled(paths: Iterable[str]) -> bool:
    """Whether every one of *paths* was last modified more than :data:`SETTLE_NS` ago (a later change of it
    will be seen)."""
    since = time_ns() - SETTLE_NS
    return all(not modified_since(stat_sig(path), since) for path in paths)
