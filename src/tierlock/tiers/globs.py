"""Test-path globs: ``**`` crosses folders, ``*`` and ``?`` stay inside one.

A glob that names a folder (``tests/brain`` or ``tests/brain/``) matches every
file below it. Matching is on POSIX-style paths relative to the project root.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache


@lru_cache(maxsize=256)
def compile_glob(glob: str) -> re.Pattern[str]:
    """Compile *glob* to a regex over relative POSIX paths."""
    glob = glob.replace("\\", "/").strip()
    while glob.startswith("./"):
        glob = glob[2:]
    folder = glob.endswith("/")
    glob = glob.rstrip("/")
    out: list[str] = []
    i = 0
    while i < len(glob):
        if glob.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif glob.startswith("**", i):
            out.append(".*")
            i += 2
        elif glob[i] == "*":
            out.append("[^/]*")
            i += 1
        elif glob[i] == "?":
            out.append("[^/]")
            i += 1
        elif glob[i] == "[":
            end = glob.find("]", i + 1)
            if end == -1:
                out.append(re.escape(glob[i]))
                i += 1
            else:
                body = glob[i + 1 : end]
                if body.startswith("!"):
                    body = "^" + body[1:]
                out.append(f"[{body}]")
                i = end + 1
        else:
            out.append(re.escape(glob[i]))
            i += 1
    # A glob always also matches everything below a folder it names.
    tail = "(?:/.*)?" if not folder else "/.*"
    return re.compile("^" + "".join(out) + tail + "$")


def matches(path: str, globs: Iterable[str]) -> bool:
    """Whether the relative POSIX *path* matches any of *globs*."""
    return any(compile_glob(g).match(path) for g in globs)
