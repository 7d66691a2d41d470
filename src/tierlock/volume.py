"""How much a listing shows: the first few items and a count of the rest, everything when asked.

A tier whose compiled package lost 23 files, or a CI run missing three tiers of
forty packages, must still read in a glance: each package shows its first
:data:`REASONS` reasons, each tier its first :data:`PACKAGES` packages, and one
line says how many more there are and how to see them (``-v``; ``--json`` always
carries everything). Standard library only: the pytest plugin uses it too.
"""

from __future__ import annotations

from collections.abc import Sequence

REASONS = 3
"""Reasons shown per package before "and N more"."""
PACKAGES = 5
"""Packages (or lines) shown per tier before "and N more"."""
CLI_HINT = "-v lists them all, --json too"
"""How a command's reader sees every line a listing cut short."""
SEPARATOR = "; "
"""What joins a package's reasons on one line."""


def joined(reasons: Sequence[str], *, verbose: bool, hint: str = "") -> str:
    """*reasons* on one line: the first :data:`REASONS`, then "and N more" (all of them when *verbose*)."""
    return SEPARATOR.join(capped(reasons, verbose=verbose, what="reason", hint=hint, limit=REASONS))


def shorten(line: str, *, verbose: bool, hint: str = "") -> str:
    """A ``name: state — reason; reason; ...`` line with its reasons cut as :func:`joined` cuts them."""
    head, dash, tail = line.partition(" — ")
    if not dash:
        return line
    return head + dash + joined(tail.split(SEPARATOR), verbose=verbose, hint=hint)


def capped(
    lines: Sequence[str], *, verbose: bool, what: str = "package", hint: str = "", limit: int = PACKAGES
) -> list[str]:
    """The first *limit* *lines*, then one line counting the rest (all of them when *verbose*)."""
    if verbose or len(lines) <= limit:
        return list(lines)
    return [*lines[:limit], more(len(lines) - limit, what, hint)]


def more(count: int, what: str, hint: str = "") -> str:
    """``and 20 more reasons (-v lists them all)``."""
    noun = what if count == 1 else f"{what}s"
    return f"and {count} more {noun}" + (f" ({hint})" if hint else "")
