""" "Did you mean ...?": the closest known spelling of a mistyped name, and the corrected command line."""

from __future__ import annotations

import difflib
import shlex
from collections.abc import Iterable, Sequence


def closest(word: str, known: Iterable[str]) -> str | None:
    """The known name closest to *word* (case and ``-``/``_`` insensitive), or None when none is close."""
    options = list(dict.fromkeys(known))
    if not options:
        return None
    folded = {_fold(o): o for o in options}
    if _fold(word) in folded:
        return folded[_fold(word)]
    hits = difflib.get_close_matches(_fold(word), list(folded), n=1, cutoff=0.6)
    if hits:
        return folded[hits[0]]
    prefixed = [o for o in options if o.startswith(word) and len(word) >= 2]
    return prefixed[0] if len(prefixed) == 1 else None


def _fold(name: str) -> str:
    return name.lower().replace("_", "-")


def hint(word: str, known: Iterable[str]) -> str:
    """`` (did you mean 'x'?)`` or an empty string."""
    match = closest(word, known)
    return f" (did you mean {match!r}?)" if match else ""


def corrected(prog: str, argv: Sequence[str], index: int, replacement: str) -> str:
    """The command line *prog argv* with ``argv[index]`` replaced: the command to run instead."""
    fixed = list(argv)
    fixed[index] = replacement
    return shlex.join([*prog.split(), *fixed])
