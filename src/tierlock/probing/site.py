"""Where distributions are installed: one scan of the site folders.

:class:`SiteIndex` lists every ``.dist-info`` folder on a set of import-path
folders with :func:`os.scandir`, keyed by the PEP 503 normalized name taken
from the folder name. Nothing is imported and nothing is read but folder
listings; :mod:`tierlock.probing.distribution` reads the files it needs.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from tierlock.targetmodel import Target
    from tierlock.wheeltags import Fit

#: The characters pip puts between ``~`` and the kept tail of a name it moved
#: aside during an uninstall (``pip._internal.utils.temp_dir.AdjacentTempDirectory``).
_PIP_LEADING = frozenset("-~.=%0123456789")


def site_folders(stdlib: str, path: Iterable[str] | None = None) -> tuple[Path, ...]:
    """The folders of *path* (default ``sys.path``) that hold installed distributions.

    Not the stdlib, unless a ``site-packages`` folder lives inside it; only
    folders that exist. :attr:`tierlock.environment.Target.site_paths` and the
    pytest plugin's cached model both use this rule.
    """
    import sys

    out: list[Path] = []
    for entry in sys.path if path is None else path:
        if not entry:
            continue
        text = str(entry)
        if (not text.startswith(stdlib) or "site-packages" in text) and os.path.isdir(text):
            out.append(Path(text))
    return tuple(out)


def own_suffixes() -> tuple[str, ...]:
    """The running interpreter's extension-module suffixes (``_imp.extension_suffixes()``)."""
    import _imp

    return tuple(_imp.extension_suffixes())


def normalize(name: str) -> str:
    """PEP 503 normalization (what :func:`packaging.utils.canonicalize_name` does)."""
    key = name.lower().replace("_", "-").replace(".", "-")
    while "--" in key:  # (each run of separators one ``-``: re.sub(r"[-_.]+", "-", name).lower(), uncompiled)
        key = key.replace("--", "-")
    return key


# Plain classes, not dataclasses: building a dataclass costs about a millisecond at import,
# and this module is on the pytest plugin's every-run path.
class DistInfoDir:
    """One ``NAME-VERSION.dist-info`` folder found on the path."""

    __slots__ = ("folder_version", "name", "path", "site")

    def __init__(self, name: str, folder_version: str, path: str, site: str) -> None:
        self.name = name
        """PEP 503 normalized distribution name, from the folder name."""
        self.folder_version = folder_version
        self.path = path
        """Absolute path of the ``.dist-info`` folder."""
        self.site = site
        """The site folder that holds it (what RECORD paths are relative to)."""

    def _key(self) -> tuple[str, str, str, str]:
        return (self.name, self.folder_version, self.path, self.site)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, DistInfoDir) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return f"DistInfoDir(name={self.name!r}, folder_version={self.folder_version!r}, path={self.path!r})"


class SiteIndex:
    """Every ``.dist-info`` and every ``~`` leftover on a list of site folders."""

    def __init__(
        self,
        sites: tuple[str, ...],
        dists: dict[str, list[DistInfoDir]] | None = None,
        leftovers: dict[str, list[str]] | None = None,
        suffixes: Sequence[str] | None = None,
        python: str | None = None,
        *,
        target: Target | None = None,
    ) -> None:
        self.sites = sites
        self.suffixes: tuple[str, ...] = own_suffixes() if suffixes is None else tuple(suffixes)
        """The target's extension-module suffixes (``Target.ext_suffixes``; default: the running interpreter's,
        which is the target when the probe runs inside it, as the pytest plugin does)."""
        self.python: str | None = python if python is not None or suffixes is not None else sys.executable
        """The target interpreter (``Target.python``; default: the running one, with its suffixes), whose own ELF
        header says which extensions its loader refuses (:mod:`tierlock.probing.elfmatch`); None: not checked."""
        self.target = target
        """The target whose wheel tags judge each WHEEL file's (None: the running interpreter's when the suffixes are
        its own, else not judged): :meth:`fit`."""
        self._fit: Fit | None = None
        self.dists: dict[str, list[DistInfoDir]] = {} if dists is None else dists
        self.leftovers: dict[str, list[str]] = {} if leftovers is None else leftovers
        """Site folder -> names of ``~``-prefixed entries in it."""
        self.checked: dict[str, tuple[Any, Any, dict[str, tuple[int, int, int, int]]]] | None = None
        """When a caller sets it (one command's probes, which look at the folders once): each ``.dist-info``
        folder's facts and the stat of every file RECORD lists, by its path, so a distribution probed again in the
        same command (a root of one tier, a member of another's closure) is not looked at twice."""

    def fit(self) -> Fit | None:
        """Which wheel tags the target accepts (:class:`tierlock.wheeltags.Fit`), made when first asked: a probe asks
        only for a distribution whose WHEEL file names no pure wheel. None when the target is not known."""
        if self._fit is None:
            from tierlock import wheeltags

            if self.target is not None:
                self._fit = wheeltags.Fit.of(self.target)
            elif self.python == sys.executable and self.suffixes == own_suffixes():
                self._fit = wheeltags.Fit.running()
        return self._fit

    @classmethod
    def of(cls, target: Target) -> SiteIndex:
        """:meth:`scan` of *target*'s site folders, for its extension suffixes, interpreter and wheel tags."""
        return cls.scan(target.site_paths, target.ext_suffixes, target.python, target=target)

    def __repr__(self) -> str:
        return f"SiteIndex(sites={self.sites!r}, {sum(map(len, self.dists.values()))} .dist-info folders)"

    @classmethod
    def scan(
        cls,
        paths: Iterable[Path | str],
        suffixes: Sequence[str] | None = None,
        python: str | os.PathLike[str] | None = None,
        *,
        target: Target | None = None,
    ) -> SiteIndex:
        """List the ``.dist-info`` folders of *paths* (in path order, each folder once), for a target whose
        extension-module suffixes are *suffixes* and whose interpreter is *python* (default: the running
        interpreter's).

        A folder's listing is kept per process while the folder is unchanged (its inode, size and modification
        time, older than a second): a folder gains or loses an entry only by changing them."""
        seen: set[object] = set()
        sites: list[tuple[str, os.stat_result | None]] = []
        for entry in paths:
            folder = os.fspath(entry)
            try:
                st: os.stat_result | None = os.stat(folder)
            except OSError:
                st = None
            same: object = (st.st_dev, st.st_ino) if st is not None else os.path.realpath(folder)
            if same in seen:
                continue
            seen.add(same)
            sites.append((folder, st))
        index = cls(
            tuple(site for site, _ in sites),
            suffixes=suffixes,
            python=None if python is None else os.fspath(python),
            target=target,
        )
        dists = index.dists
        for site, st in sites:
            listed = _listing(site, st) if st is not None else None
            if listed is None:
                continue
            found, tildes = listed
            if tildes:
                index.leftovers[site] = list(tildes)
            for info in found:
                dists.setdefault(info.name, []).append(info)
        return index

    def find(self, name: str) -> Sequence[DistInfoDir]:
        """The ``.dist-info`` folders for distribution *name*, first on the path first."""
        return self.dists.get(normalize(name), ())


_LISTED: dict[str, tuple[tuple[int, int, int, int], tuple[DistInfoDir, ...], tuple[str, ...]]] = {}
_SETTLED_NS = 1_000_000_000


def _listing(site: str, st: os.stat_result) -> tuple[tuple[DistInfoDir, ...], tuple[str, ...]] | None:
    """The ``.dist-info`` folders and ``~`` leftovers of *site* (stat-ed as *st*), kept while it is unchanged."""
    import time

    stamp = (st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)
    kept = _LISTED.get(site)
    if kept is not None and kept[0] == stamp:
        return kept[1], kept[2]
    try:
        names = os.listdir(site)
    except OSError:
        return None
    prefix = site if site.endswith(os.sep) else site + os.sep
    found: list[DistInfoDir] = []
    for name in [name for name in names if name.endswith(".dist-info")]:
        dist, _, version = name[:-10].partition("-")
        key = normalize(dist)
        found.append(DistInfoDir(key, version, prefix + name, site))
    listed = (tuple(found), tuple(name for name in names if name.startswith("~")))
    if st.st_mtime_ns < time.time_ns() - _SETTLED_NS:
        if len(_LISTED) > 256:
            _LISTED.clear()
        _LISTED[site] = (stamp, *listed)
    return listed


def pip_leftover_of(leftover: str, name: str) -> bool:
    """Whether *leftover* is a name pip made from *name* when moving it aside.

    pip renames ``numpy`` to ``~umpy`` (or ``~-mpy``, ``~~mpy`` ...): ``~``,
    then ``i - 1`` characters from a small set, then ``name[i:]``.
    """
    if len(leftover) != len(name) or not leftover.startswith("~") or leftover == name:
        return False
    common = 0
    while common < len(name) - 1 and leftover[-1 - common] == name[-1 - common]:
        common += 1
    cut = len(name) - common
    return cut >= 1 and all(ch in _PIP_LEADING for ch in leftover[1:cut])
