"""Lockfiles: exact tier closures with hashes, read, written and checked.

The reader API for installers: :func:`load` (strict) and :func:`read`
(lenient, for ``tierlock check``), the data model, :func:`digest_file` and
:func:`platform_mismatch`. Importing this package stays light: no rich,
jsonschema, pip or uv.
"""

from tierlock.lockfiles.digest import digest_file
from tierlock.lockfiles.model import (
    Lock,
    LockedFile,
    LockEntry,
    LockfileError,
    LockFormatName,
    LockHeader,
    ReadProblem,
)
from tierlock.lockfiles.platforms import platform_id, platform_mismatch
from tierlock.lockfiles.reader import ReadResult, format_of, load, read

__all__ = [
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
    "platform_id",
    "platform_mismatch",
    "read",
]
