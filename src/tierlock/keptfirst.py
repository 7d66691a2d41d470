"""What a kept command reads before anything else of tierlock loads: its entry's file, its files' bytes.

A kept lock (:mod:`tierlock.lockkept`) starts its uv compiles as the first thing it does: the time before
the start is time uv waits for. So what it needs up to then lives here, on :mod:`os`, :mod:`sys` and the C
module of sha256 alone: tierlock's cache folder (:func:`folder`), the file that keeps the answer of a command
line (:func:`entry_path`), whether the output goes to a terminal (:func:`terminal`), the digest of a file the
command read (:func:`digest`), a scratch folder of the process's own (:func:`private_folder`). Everything else
a kept answer checks (:mod:`tierlock.keptrun`, :mod:`tierlock.keptseal`, :mod:`tierlock.probing.libcache`)
loads after the compiles have started, beside them. The read-only commands' kept answers use the same
functions (through :mod:`tierlock.keptrun`): one definition of each.
"""

from __future__ import annotations

import os
import sys

from tierlock._version import __version__
from tierlock.fasthash import sha256  # (no OpenSSL start-up: hashlib loads it)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

#: Global options that take a value (``--project DIR``), to find the command on a command line.
_VALUED = ("--project", "--color")
#: How a file is opened to be digested: never waiting (a FIFO), never made a terminal's controlling one.
_READ_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOCTTY", 0)
#: Files up to this size are known by a digest of their bytes; larger ones by their size, time and inode.
DIGESTED = 1 << 20


def folder() -> str | None:
    """Where tierlock's cache files live (None: caching is off): ``$TIERLOCK_CACHE_DIR`` (an empty value: no
    cache), else the user's cache folder (:mod:`tierlock.probing.libcache` says which).

    Only an absolute folder of the user's: a relative ``XDG_CACHE_HOME`` is ignored (the XDG base directory rule),
    and a home folder that is not known (``HOME`` unset and no password entry for the user: a container run as a
    user id of its own) is no cache, never a ``~`` folder made in the working folder."""
    explicit = os.environ.get("TIERLOCK_CACHE_DIR")
    if explicit is not None:
        return explicit or None
    if sys.platform == "win32":
        base = os.environ.get("LOCALAPPDATA")
    else:
        home = os.path.expanduser("~")  # (``~`` itself when it cannot be told)
        if sys.platform == "darwin":
            base = os.path.join(home, "Library", "Caches")
        else:
            xdg = os.environ.get("XDG_CACHE_HOME")
            base = xdg if xdg and os.path.isabs(xdg) else os.path.join(home, ".cache")
    return os.path.join(base, "tierlock") if base and os.path.isabs(base) else None


def command_word(argv: Sequence[str]) -> str | None:
    """The command *argv* names after the global options; None when help or the version comes first."""
    takes_value = False
    for token in argv:
        if takes_value:
            takes_value = False
        elif token.startswith("-"):
            if token in ("-h", "--help", "--version", "--"):
                return None
            takes_value = token in _VALUED
        else:
            return token
    return None


def entry_path(where: str, argv: Sequence[str]) -> str:
    """The file that keeps the answer of *argv* run here (one per command line, folder, interpreter and module
    search path: two setups that run the same command take turns with none)."""
    data = "\0".join([*argv, "", os.getcwd(), sys.executable, sys.version, __version__, "", *sys.path])
    return os.path.join(where, f"runs-{sha256(data.encode('utf-8', 'surrogateescape')).hexdigest()[:24]}.marshal")


def sig_of(st: os.stat_result) -> tuple[int, ...]:
    """A look-up's result *st* as :func:`tierlock.keptrun.stat_sig` gives it: its kind, size, modification time
    (ns), inode, device and the time its status last changed (ns); a folder's kind, inode and device."""
    if st.st_mode & 0o170000 == 0o040000:
        return (st.st_mode, st.st_ino, st.st_dev)
    return (st.st_mode, st.st_size, st.st_mtime_ns, st.st_ino, st.st_dev, st.st_ctime_ns)


def failed(exc: OSError) -> int:
    """What a look-up, read or listing that failed is known by: its negative ``errno``."""
    return -(exc.errno or 1)


def digest(path: str) -> bytes | tuple[int, ...] | int:
    """The sha256 of a file's bytes, or ``-errno`` when it cannot be read.

    A file larger than :data:`DIGESTED` (a compiled library whose header the probe reads) is known by its
    :func:`sig_of` instead, the identity :mod:`tierlock.probing.libcache` keeps its verdicts by; so is anything
    but a regular file (a FIFO put where a file was: opened without waiting, never read).
    """
    try:
        with open(os.open(path, _READ_FLAGS), "rb") as fh:
            st = os.fstat(fh.fileno())
            if st.st_size > DIGESTED or st.st_mode & 0o170000 != 0o100000:
                return sig_of(st)
            data = fh.read()
    except OSError as exc:
        return failed(exc)
    return bytes(sha256(data).digest())


def private_folder(prefix: str) -> str:
    """A new folder only this process uses, in the temporary folder (``tempfile``'s choice of it, without
    importing ``tempfile``: a kept lock and an early backend make theirs before anything else loads)."""
    base = next((os.environ[n] for n in ("TMPDIR", "TEMP", "TMP") if os.environ.get(n)), "/tmp")
    path = os.path.join(base, f"{prefix}{os.getpid()}-{os.urandom(6).hex()}")
    os.mkdir(path, 0o700)
    return path


def terminal() -> bool:
    """Whether stdout or stderr is a terminal (output then depends on its width and colours: never kept)."""
    try:
        return sys.stdout.isatty() or sys.stderr.isatty()
    except (AttributeError, ValueError):
        return True
