"""Library verdicts that carry over from one environment to another: kept relative to the site folders.

A new environment gets the very files an earlier one got: uv hard-links them from its cache (the same
inode, size and modification time), pip unpacks the same wheel. An extension's library verdict
(:mod:`tierlock.probing.libraries`: every library it needs was found) rests on the extension's bytes,
on where each library it relied on is, and on the search environment (``LD_LIBRARY_PATH``, the loader
cache). So a verdict learnt in one environment holds in another when the extension and every library it
relied on are at the same place relative to their site folder (a library outside the site folders: at
the same absolute place) with the same inode, size and modification time (a hard link moves the status
change time, which the environment's own verdicts are kept by too) - which :meth:`Moved.get` leaves to the
caller to check with one ``stat`` each - and the environment has no verdict of its own for the file (one
that no longer holds says the file changed). A place whose file is found wanting is forgotten
(:meth:`Moved.forget`).

Kept in one file per search environment (:mod:`tierlock.probing.libcache`), paths inside a site folder
written ``@N/rel`` (N: which of the site folders).
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from tierlock.probing import libcache


class Moved:
    """The site-relative verdicts of one search environment, seen from the site folders *sites*."""

    def __init__(self, sites: Sequence[str], environment: list[object]) -> None:
        self.sites = tuple(os.path.normpath(s) for s in sites)
        self.environment = environment
        self.store = libcache.path_for((repr(environment),), kind="moved-libraries")
        self._kept: dict[str, libcache.Kept] | None = None
        self._learnt: dict[str, libcache.Kept] = {}
        self._dropped: set[str] = set()

    def _verdicts(self) -> dict[str, libcache.Kept]:
        if self._kept is None:  # read on the first extension the environment's own verdicts do not know
            self._kept = libcache.load(self.store, self.environment)
        return self._kept

    def read(self) -> None:
        """Read the verdicts now (else on the first extension the environment's own verdicts do not know)."""
        self._verdicts()

    def relative(self, path: str) -> str | None:
        """*path* as ``@N/rel`` when it is inside site folder N; None when it is in none."""
        path = os.path.normpath(path)
        for n, site in enumerate(self.sites):
            if path.startswith(site + os.sep):
                return f"@{n}/{path[len(site) + 1 :]}"
        return None

    def absolute(self, path: str) -> str | None:
        """A kept path as it is here (None when it names a site folder this environment does not have)."""
        if not path.startswith("@"):
            return path
        head, _, rest = path[1:].partition("/")
        if not head.isdigit() or int(head) >= len(self.sites):
            return None
        return os.path.join(self.sites[int(head)], rest)

    def get(self, artifact: str) -> libcache.Kept | None:
        """The verdict learnt for the extension at *artifact*'s place in another environment, with every path
        as it is here; None when there is none (the caller compares the identities)."""
        key = self.relative(artifact)
        kept = self._verdicts().get(key) if key is not None else None
        if kept is None:
            return None
        relied: list[tuple[str, libcache.Identity]] = []
        for library, identity in kept[1]:
            here = self.absolute(library)
            if here is None:
                return None
            relied.append((here, identity))
        return kept[0], tuple(relied)

    def learn(self, artifact: str, verdict: libcache.Kept) -> None:
        """Keep *verdict* of the extension at *artifact* for other environments (when it is in a site folder)."""
        key = self.relative(artifact)
        if key is None:
            return
        relied = tuple((self.relative(library) or library, identity) for library, identity in verdict[1])
        self._verdicts()[key] = self._learnt[key] = (verdict[0], relied)

    def forget(self, artifact: str) -> bool:
        """Drop the verdict kept for *artifact*'s place: the file there now has something missing (a verdict another
        environment learnt of a file since rewritten in place, a hard link to it, is given to none). Whether there
        was one (:meth:`save` then writes the file without it)."""
        key = self.relative(artifact)
        if key is None or key not in self._verdicts():
            return False
        del self._verdicts()[key]
        self._learnt.pop(key, None)
        self._dropped.add(key)
        return True

    def save(self) -> None:
        """Add what this environment learnt to the file as it is now, less what it found wrong (other processes
        and sessions write it too: what they kept stays)."""
        if not self._learnt and not self._dropped:
            return
        kept = libcache.load(self.store, self.environment)
        kept.update(self._learnt)
        for key in self._dropped - self._learnt.keys():
            kept.pop(key, None)
        libcache.save(self.store, self.environment, kept)
        self._learnt = {}
        self._dropped = set()
