"""sha256 from the interpreter's own C module, not through :mod:`hashlib`.

``hashlib`` loads OpenSSL at its import (2-5 ms), which a read-only command's kept path would pay for a few
digests of small files. The C module is ``_sha256`` up to Python 3.11 and ``_sha2`` from 3.12; a build with
neither (or one whose ``hashlib`` is the only way) falls back to ``hashlib``. Every kept answer, cache file and
digest of tierlock's is made with this one :func:`sha256`, so they agree across the modules that make them.
"""

from __future__ import annotations

try:
    from _sha256 import sha256  # type: ignore[import-not-found,unused-ignore]
except ImportError:  # Python 3.12+
    try:
        from _sha2 import sha256  # type: ignore[import-not-found,unused-ignore,no-redef]
    except ImportError:  # a build without either
        from hashlib import sha256  # type: ignore[assignment,unused-ignore]

__all__ = ["sha256"]
