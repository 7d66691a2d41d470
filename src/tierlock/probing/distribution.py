"""Probe one installed distribution from its files, never importing it.

The verdict comes from the ``.dist-info`` folder (read once and kept while it
is unchanged: :mod:`tierlock.probing.distinfo`), one ``stat`` of every file
its RECORD lists (the size compared with RECORD's; with *deep* the hash
too), the import roots, and the site folder's listing for pip's ``~``
leftovers. Which file provides a module, and whether a compiled file suits the
target, follow the target's extension suffixes (carried by the
:class:`~tierlock.probing.site.SiteIndex`). Every reason is collected; none
stops the others.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from operator import attrgetter, eq
from pathlib import Path
from typing import TYPE_CHECKING, Literal, NamedTuple

from tierlock.probing import compiled, distinfo, metadata, roots
from tierlock.probing.compiled import is_compiled
from tierlock.probing.site import DistInfoDir, SiteIndex, normalize, pip_leftover_of

# hashlib and base64 are imported where they are needed (--deep), and packaging.version only for
# versions that are more than a release number: the common path is plain string work and stat().
if TYPE_CHECKING:
    from packaging.version import Version

    from tierlock.probing.libraries import Missing

DistState = Literal["present", "present-editable", "partial", "absent"]
TierState = Literal["present", "partial", "absent"]

_SHOWN = 3
"""How many file names a reason lists before saying 'and N more'."""
_SIZE = attrgetter("st_size")
_WHOLE: tuple[list[str], list[str], list[str]] = ([], [], [])
"""What :func:`_stat_rows` answers when every file is there with its size (never mutated)."""
_STALE: tuple[list[str], list[str], list[str]] = ([], [], [])
"""What :func:`_stat_rows` answers when the facts it was given are no longer the folder's (compared by identity)."""


class InstalledFile(NamedTuple):
    """One file of RECORD that the probe checked."""

    path: str
    """Absolute path of the file."""
    record_path: str
    """The path as written in RECORD (relative to the site folder)."""
    size: int | None
    """The size RECORD gives, or None when RECORD gives none."""
    hash: str | None
    """RECORD's ``algorithm=urlsafe-b64-digest``, or None."""


@dataclass(frozen=True)
class DistributionProbe:
    """What the files say about one distribution."""

    name: str
    """PEP 503 normalized name."""
    state: DistState
    reasons: list[str] = field(default_factory=list)
    """Why the state is not ``present`` (every reason found); empty when present."""
    notes: list[str] = field(default_factory=list)
    """What the probe did not check and why (editable sources, no lockfile ...)."""
    version_text: str | None = None
    """The installed version, normalized (``str(Version(...))``); None when missing or invalid."""
    locked_text: str | None = None
    """The locked version compared with, normalized; None when none was given."""
    dist_info_dir: str | None = None
    """The ``.dist-info`` folder that was probed (the first on the path), as a string."""
    files_checked: int = 0
    records: tuple[tuple[str, str, int | None, str | None], ...] = ()
    """Plain tuples behind :attr:`files` (cheap to build on the fast path)."""
    editable_source: Path | None = None
    import_roots: tuple[str, ...] = ()
    missing_libraries: tuple[tuple[str, str, str | None], ...] = ()
    """(compiled artifact, library, the library that needs it or None) for each shared library an extension
    needs that the dynamic loader cannot find (each is also one of the reasons)."""
    record_size: int | None = None
    """RECORD's own size when the probe read it (RECORD gives none of its own; a receipt records it)."""

    @property
    def present(self) -> bool:
        return self.state in ("present", "present-editable")

    @property
    def version(self) -> Version | None:
        """The installed version (parsed on access)."""
        return metadata.parse(self.version_text)

    @property
    def locked_version(self) -> Version | None:
        """The locked version the installed one was compared with."""
        return metadata.parse(self.locked_text)

    @property
    def dist_info(self) -> Path | None:
        return Path(self.dist_info_dir) if self.dist_info_dir is not None else None

    @property
    def files(self) -> tuple[InstalledFile, ...]:
        """The installed files checked, with their recorded sizes (for the installer's no-op path)."""
        return tuple(InstalledFile(*r) for r in self.records)

    def to_dict(self) -> dict[str, object]:
        return {
            "name": self.name,
            "state": self.state,
            "present": self.present,
            "version": self.version_text,
            "locked_version": self.locked_text,
            "dist_info": self.dist_info_dir,
            "editable_source": str(self.editable_source) if self.editable_source is not None else None,
            "import_roots": list(self.import_roots),
            "files_checked": self.files_checked,
            "reasons": list(self.reasons),
            "notes": list(self.notes),
            "missing_libraries": [
                {"artifact": a, "library": lib, "needed_by": via} for a, lib, via in self.missing_libraries
            ],
        }


def probe_distribution(
    name: str,
    *,
    paths: Sequence[Path] = (),
    locked_version: Version | str | None = None,
    import_roots: Sequence[str] = (),
    deep: bool = False,
    index: SiteIndex | None = None,
) -> DistributionProbe:
    """Decide from files whether distribution *name* is consumable on *paths*.

    *paths* are the site folders to look in (``Target.site_paths``); pass a
    prebuilt *index* instead to probe many distributions with one scan (and
    to judge extension modules by a target's suffixes:
    ``SiteIndex.scan(target.site_paths, target.ext_suffixes)``).
    *import_roots* are the top-level import names to check (default: from
    RECORD, else ``top_level.txt``). *deep* also verifies RECORD hashes.
    *locked_version* is a ``packaging`` Version or a version string.
    """
    if index is None:
        index = SiteIndex.scan(paths)
    key = normalize(name)
    locked = metadata.normalized(str(locked_version)) if locked_version is not None else None
    found = index.find(key)
    if not found:
        where = ", ".join(index.sites) or "(no site folders)"
        return DistributionProbe(key, "absent", [f"no .dist-info for {key} on the path ({where})"], locked_text=locked)
    return _probe(key, found, index, locked=locked, declared=tuple(import_roots), deep=deep)


def _probe(
    name: str,
    found: Sequence[DistInfoDir],
    index: SiteIndex,
    *,
    locked: str | None,
    declared: tuple[str, ...],
    deep: bool,
) -> DistributionProbe:
    """The checks of one distribution; each adds reasons, none stops the others.

    A distribution found whole (one ``.dist-info``, every file there with its size, its import roots provided
    by those files, no pip leftover beside it) gives the same verdict as the last time its unchanged folder was
    found whole with the same lock and roots: that verdict is kept with the folder's facts and given again.
    """
    facts, confirm = distinfo.read(found[0], index.suffixes)
    seen: dict[str, tuple[int, int, int]] = {}
    stats = _stat_rows(facts, confirm, seen) if facts.record_problem is None else None
    if stats is _STALE:  # METADATA or RECORD changed under a folder that did not: read them again
        facts, _ = distinfo.read(found[0], index.suffixes, again=True)
        stats = _stat_rows(facts, False, seen) if facts.record_problem is None else None
    key = (locked, declared)
    needs = _libraries(facts, index, deep, seen) if stats is not None else []
    if stats is None or stats[0] or stats[1] or deep or len(found) > 1 or index.leftovers.get(facts.site) or needs:
        pass  # something to say, or to look at on disk: the full checks below
    elif key in facts.whole:
        again: DistributionProbe = facts.whole[key]
        return again
    reasons, version = _folder_reasons(name, found, facts, locked)
    notes: list[str] = []
    editable = _editable(facts, reasons, notes)
    gone: frozenset[str] = frozenset()
    if stats is None:
        reasons.append(str(facts.record_problem))
    else:
        gone = _file_reasons(facts, stats, index.suffixes, deep=deep, reasons=reasons, notes=notes)
        reasons.extend(m.describe() for m in needs)
    kept, looked = _import_roots(
        facts, index, declared=declared, editable=editable, gone=gone, reasons=reasons, notes=notes
    )
    _leftovers(facts, kept, index, reasons)
    reasons.extend(facts.unfinished)
    state: DistState = "partial" if reasons else ("present-editable" if editable is not None else "present")
    result = DistributionProbe(
        name=name,
        state=state,
        reasons=reasons,
        notes=notes,
        version_text=version,
        locked_text=locked,
        dist_info_dir=facts.path,
        files_checked=facts.files_checked,
        records=facts.records,
        editable_source=editable,
        import_roots=kept,
        missing_libraries=tuple((m.artifact, m.library, m.via) for m in needs),
        record_size=facts.key[2][1] if isinstance(facts.key[2], tuple) else None,
    )
    if state == "present" and not looked and not deep and len(found) == 1 and stats is not None:
        facts.whole[key] = result
    return result


def _folder_reasons(
    name: str, found: Sequence[DistInfoDir], facts: distinfo.DistInfo, locked: str | None
) -> tuple[list[str], str | None]:
    """What the ``.dist-info`` folders say before a file is looked at: more than one folder, a broken
    METADATA, a version other than the lock's; and the version read."""
    reasons: list[str] = []
    if len(found) > 1:
        listed = ", ".join(d.path for d in found)
        reasons.append(
            f"{len(found)} .dist-info folders for {name} on the path ({listed}); "
            "which one Python uses depends on the path order"
        )
    reasons.extend(facts.problems)
    version = None
    if facts.version_raw:
        version, wrong = metadata.version_reasons(facts.version_raw, locked)
        reasons.extend(wrong)
    return reasons, version


def _libraries(
    facts: distinfo.DistInfo, index: SiteIndex, deep: bool, seen: dict[str, tuple[int, int, int]]
) -> list[Missing]:
    """The shared libraries its extensions need that the dynamic loader cannot find (*deep*: nothing kept; *seen*:
    the identities the file checks just took, not taken again)."""
    from tierlock.probing import libraries

    return libraries.unresolved(index, index.sites, facts.compiled, fresh=deep, seen=seen)


def _editable(facts: distinfo.DistInfo, reasons: list[str], notes: list[str]) -> Path | None:
    if facts.source_problem is not None:
        reasons.append(facts.source_problem)
        return None
    source = facts.source
    if source is None:
        return None
    if not source.is_dir():
        reasons.append(f"editable install whose source folder {source} is missing")
    notes.append(f"editable install from {source}: its sources are not RECORD-checked")
    return source


def _stat_rows(
    facts: distinfo.DistInfo, confirm: bool, seen: dict[str, tuple[int, int, int]]
) -> tuple[list[str], list[str], list[str]]:
    """Stat every file RECORD lists (this is the probe's hot path): (the RECORD paths missing, the sizes that
    differ as reasons say them, the RECORD paths resized). With *confirm*, METADATA and RECORD are stat-ed
    first, and :data:`_STALE` is the answer when they are not the files the facts were read from. The compiled
    files' identities go into *seen* (the shared-library check stats none of them again)."""
    if confirm and not distinfo.own_unchanged(facts):
        return _STALE
    if facts.sizes is not None and facts.meta_resized is None:
        try:  # the common case, every file there with its size: stat and compare in C, keeping nothing
            if _stat_compiled(facts, seen) and all(map(eq, map(_SIZE, map(os.stat, facts.paths)), facts.sizes)):
                return _WHOLE
        except OSError:
            pass  # one is missing: the loop below says which
    stat = os.stat
    missing: list[str] = []
    resized: list[str] = []
    changed: list[str] = []
    for full, size, rel in facts.rows:
        try:
            actual = stat(full).st_size
        except OSError:
            missing.append(rel)
            continue
        if size is not None and actual != size:
            resized.append(f"{rel} ({actual} bytes, RECORD says {size})")
            changed.append(rel)
    if facts.meta_resized is not None:
        resized.append(facts.meta_resized)
        changed.append(facts.meta_resized.partition(" (")[0])
    return missing, resized, changed


def _stat_compiled(facts: distinfo.DistInfo, seen: dict[str, tuple[int, int, int]]) -> bool:
    """Stat the compiled files, keeping their identities in *seen*: whether each has its recorded size
    (``OSError`` when one is missing)."""
    stat = os.stat
    whole = True
    for (full, _rel), size in zip(facts.compiled, facts.compiled_sizes, strict=True):
        st = stat(full)
        seen[full] = (st.st_size, st.st_mtime_ns, st.st_ino)
        whole = whole and (size is None or st.st_size == size)
    return whole


def _file_reasons(
    facts: distinfo.DistInfo,
    stats: tuple[list[str], list[str], list[str]],
    suffixes: Sequence[str],
    *,
    deep: bool,
    reasons: list[str],
    notes: list[str],
) -> frozenset[str]:
    """The reasons the stat of every file (and with *deep* its hash) gives; the RECORD paths missing."""
    missing, resized, changed = stats
    gone = frozenset(missing)
    reasons.extend(f"compiled artifact {rel} is missing" for rel in missing if is_compiled(rel))
    for full, rel in facts.compiled:
        wrong = compiled.check_artifact(full, rel, suffixes, lambda: facts.loadable) if rel not in gone else None
        if wrong is not None:
            reasons.append(wrong)
    plain = [rel for rel in missing if not is_compiled(rel)]
    _summarize(reasons, plain, "file listed in RECORD is missing", "files listed in RECORD are missing")
    _summarize(reasons, resized, "file has another size than RECORD says", "files have other sizes")
    if deep:
        skip = gone.union(changed)
        mismatched = [
            rel
            for full, rel, _size, recorded in facts.records
            if recorded and rel not in skip and not _hash_matches(full, recorded)
        ]
        _summarize(reasons, mismatched, "file does not match its RECORD hash", "files do not match their hashes")
        notes.append("hashes checked (--deep)")
    return gone


def _import_roots(
    facts: distinfo.DistInfo,
    index: SiteIndex,
    *,
    declared: tuple[str, ...],
    editable: Path | None,
    gone: frozenset[str],
    reasons: list[str],
    notes: list[str],
) -> tuple[tuple[str, ...], bool]:
    """The import roots (declared, else recorded), each found: by a RECORD file that is there, else on disk;
    and whether any was looked for on disk."""
    names = declared or facts.recorded_roots
    if not names:
        if editable is not None:
            notes.append("no import roots declared or recorded: only the source folder was checked")
        return (), False
    places = [facts.site] if editable is None else [str(editable), str(editable / "src"), *index.sites]
    kept: list[str] = []
    looked = False
    for root in names:
        if editable is None and facts.provides(root, gone):
            kept.append(root)  # a module file of it is there
            continue
        looked = True
        verdict = roots.find_root(root, places, index.suffixes)
        if verdict != "ok" and not declared and facts.heads.get(root) and not facts.provides(root):
            continue  # a data folder RECORD lists at the top of the site folder, not an import root
        kept.append(root)
        if verdict == "missing":
            how = "declared" if declared else "recorded"
            reasons.append(f"import root {root!r} ({how}) is missing from {places[0]}")
        elif verdict != "ok":
            reasons.append(f"import root {root!r} is an empty or namespace-only directory in {verdict}")
    return tuple(kept), looked


def _leftovers(facts: distinfo.DistInfo, kept: Sequence[str], index: SiteIndex, reasons: list[str]) -> None:
    tildes = index.leftovers.get(facts.site, ())
    if not tildes:
        return
    tops = {os.path.basename(facts.path), *kept}
    tops.update(rel.partition("/")[0] for _full, rel, _size, _hash in facts.records if not rel.startswith(".."))
    for leftover in tildes:
        if any(pip_leftover_of(leftover, top) for top in tops):
            reasons.append(f"leftover {leftover} beside it in {facts.site}: an interrupted pip uninstall or upgrade")


def _hash_matches(path: str, recorded: str) -> bool:
    import base64
    import hashlib

    algorithm, _, expected = recorded.partition("=")
    try:
        digest = hashlib.new(algorithm)
    except ValueError:
        return False
    try:
        with open(path, "rb") as fh:
            for chunk in iter(lambda: fh.read(1 << 20), b""):
                digest.update(chunk)
    except OSError:
        return False
    return base64.urlsafe_b64encode(digest.digest()).rstrip(b"=").decode() == expected


def _summarize(reasons: list[str], items: list[str], one: str, many: str) -> None:
    if not items:
        return
    shown = ", ".join(items[:_SHOWN])
    more = f" and {len(items) - _SHOWN} more" if len(items) > _SHOWN else ""
    if len(items) == 1:
        reasons.append(f"{one}: {shown}")
    else:
        reasons.append(f"{len(items)} {many}: {shown}{more}")
