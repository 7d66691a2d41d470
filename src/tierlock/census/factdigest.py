"""One digest of what the census took from a file, or of a part of its result, for a kept answer to compare.

The census's facts are plain data: strings, numbers, booleans, None, lists (or tuples) and mappings with
string keys, as :meth:`tierlock.census.records.FileFacts.to_json` gives them and as the census's own cache
reads them back. Their JSON text (C's encoder: a tuple and a list are both an array, a mapping keeps its order)
is the same for two readings exactly when they say the same, so its sha256 stands for them: a recorded run
keeps it, a later run reads a changed file again and compares (:mod:`tierlock.census.summary`).
"""

from __future__ import annotations

try:  # the C implementation itself, as the kept answers use it (no OpenSSL start-up)
    from _sha256 import sha256  # type: ignore[import-not-found,unused-ignore]
except ImportError:  # a build without it
    from hashlib import sha256

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def digest(value: Any) -> bytes:
    """The sha256 of *value*'s JSON text (None is a value too: a file that named none of the words)."""
    import json  # loaded by every census already (its cache); a kept answer loads it only when a test file changed

    text = json.dumps(value, ensure_ascii=True, check_circular=False, separators=(",", ":"))
    return bytes(sha256(text.encode("ascii")).digest())
