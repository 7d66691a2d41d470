"""Lockfiles: exact tier closures with hashes, read, written and checked.

The reader API for installers: :func:`load_tier` (strict) and :func:`read_tier`
(lenient, for ``tierlock check``) give a tier's lock, from tierlock's own
lockfile or from the lock the project commits (uv.lock, a PEP 751 pylock);
:func:`load` and :func:`read` read one lockfile; the data model, :func:`digest_file` and
:func:`platform_mismatch`. Importing this package stays light: no rich,
jsonschema, pip or uv.
"""

from tierlock import _lazy
from tierlock.lockfiles.digest import digest_file
from tierlock.lockfiles.fileread import ReadResult, format_of, load, read
from tierlock.lockfiles.locks import (
    LocalPackage,
    Lock,
    LockedFile,
    LockEntry,
    LockfileError,
    LockFormatName,
    LockHeader,
    ReadProblem,
)
from tierlock.lockfiles.sources import load_tier, read_tier

TYPE_CHECKING = False
if TYPE_CHECKING:
    from tierlock.lockfiles.lockplatform import platform_id, platform_mismatch

#: Imported on first use: only an install asks a lock's platform (the read-only commands load the package).
__getattr__ = _lazy.attributes(
    __name__, dict.fromkeys(("platform_id", "platform_mismatch"), "tierlock.lockfiles.lockplatform")
)

__all__ = [
    "LocalPackage",
    "Lock",
    "LockEntry",
    "LockFormatName",
    "LockHeader",
    "LockedFile",
    "LockfileError",
    "ReadProblem",
    "ReadResult",
    "digest_file",
    "format_of",
    "load",
    "load_tier",
    "platform_id",
    "platform_mismatch",
    "read",
    "read_tier",
]
