"""One digest of what the census took from a file, or of a part of its result, for a kept answer to compare.

The census's facts are plain data: strings, numbers, booleans, None, lists (or tuples) and mappings with
string keys, as :meth:`tierlock.census.records.FileFacts.to_json` gives them and as the census's own cache
reads them back. Their JSON text (C's encoder: a tuple and a list are both an array, a mapping keeps its order)
is the same for two readings exactly when they say the same, so its sha256 stands for them: a recorded run
keeps it, a later run reads a changed file again and compares (:mod:`tierlock.census.summary`).
"""

from __future__ import annotations

import os

from tierlock.fasthash import sha256  # (no OpenSSL start-up: hashlib loads it)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def digest(value: Any) -> bytes:
    """The sha256 of *value*'s JSON text (None is a value too: a file that named none of the words)."""
    import json  # loaded by every census already (its cache); a kept answer loads it only when a test file changed

    text = json.dumps(value, ensure_ascii=True, check_circular=False, separators=(",", ":"))
    return bytes(sha256(text.encode("ascii")).digest())


def facts_digest(facts: Any) -> bytes:
    """The :func:`digest` of a file's facts (:meth:`~tierlock.census.records.FileFacts.to_json`, or None) as the
    census reads them: each function's last line (:attr:`~tierlock.census.records.Func.end`) left out. No part
    of a census's result rests on it, so an edit inside a function that moves only where it ends (a line added
    to a fixture's or a helper's body) leaves the facts the census reads, and its result, as they were."""
    if facts is None:
        return digest(None)
    imports, modules, bindings, flags, aliases, functions, module, *made = facts
    endless = {name: _endless(func) for name, func in functions.items()}
    return digest(
        [
            imports,
            modules,
            bindings,
            flags,
            {k: _endless(f) for k, f in aliases.items()},
            endless,
            _endless(module),
            *made,
        ]
    )


def _endless(func: Any) -> list[Any]:
    """A function's facts (:meth:`~tierlock.census.records.Func.to_json`) without its last line."""
    return [*func[:2], *func[3:]]


def shown_by(surveys: list[list[Any]]) -> dict[str, bytes | None]:
    """What each census of a recorded run (*surveys*: ``[root, [inputs, result, ...]]``, the result as
    :func:`tierlock.census.summary.canonical` gives it) shows of each test file (its tests and their lines), by
    path, fingerprinted: a file whose tests change changes the result (None: two censuses showed it differently)."""
    out: dict[str, bytes | None] = {}
    for root, (_inputs, result, *_apart) in surveys:
        for key, value in result[1]:
            if key == "tests":
                for rel, tests in value:
                    path, found = os.path.join(root, rel), digest(tests)
                    out[path] = found if out.get(path, found) == found else None
    return out
