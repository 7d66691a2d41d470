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
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, NamedTuple

from tierlock.frozen import Frozen
from tierlock.probing import distinfo, filechecks, metadata, roots
from tierlock.probing.site import DistInfoDir, SiteIndex, normalize, pip_leftover_of

# hashlib and base64 are imported where they are needed (--deep), and packaging.version only for
# versions that are more than a release number: the common path is plain string work and stat().
if TYPE_CHECKING:
    from packaging.version import Version

    from tierlock.probing.libraries import Missing

DistState = Literal["present", "present-editable", "partial", "absent"]
TierState = Literal["present", "partial", "absent"]


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


class DistributionProbe(Frozen):
    """What the files say about one distribution."""

    _fields = (
        "name",
        "state",
        "reasons",
        "notes",
        "version_text",
        "locked_text",
        "dist_info_dir",
        "files_checked",
        "records",
        "editable_source",
        "import_roots",
        "missing_libraries",
        "record_size",
    )

    name: str
    """PEP 503 normalized name."""
    state: DistState
    reasons: list[str]
    """Why the state is not ``present`` (every reason found); empty when present."""
    notes: list[str]
    """What the probe did not check and why (editable sources, no lockfile ...)."""
    version_text: str | None = None
    """The installed version, normalized (``str(Version(...))``); None when missing or invalid."""
    locked_text: str | None = None
    """The locked version compared with, normalized; None when none was given."""
    dist_info_dir: str | None = None
    """The ``.dist-info`` folder that was probed (the first on the path), as a string."""
    files_checked: int = 0
    records: Sequence[tuple[str, str, int | None, str | None]] = ()
    """Plain tuples behind :attr:`files` (cheap to build on the fast path; kept facts read back from disk give them
    as :class:`~tierlock.probing.keptrows.Rows`, decoded when first looked into)."""
    editable_source: Path | None = None
    import_roots: tuple[str, ...] = ()
    missing_libraries: tuple[tuple[str, str, str | None], ...] = ()
    """(compiled artifact, library, the library that needs it or None) for each shared library an extension
    needs that the dynamic loader cannot find (each is also one of the reasons)."""
    record_size: int | None = None
    """RECORD's own size when the probe read it (RECORD gives none of its own; a receipt records it)."""

    def __init__(  # noqa: PLR0917 (the signature it had as a dataclass)
        self,
        name: str,
        state: DistState,
        reasons: list[str] | None = None,
        notes: list[str] | None = None,
        version_text: str | None = None,
        locked_text: str | None = None,
        dist_info_dir: str | None = None,
        files_checked: int = 0,
        records: Sequence[tuple[str, str, int | None, str | None]] = (),
        editable_source: Path | None = None,
        import_roots: tuple[str, ...] = (),
        missing_libraries: tuple[tuple[str, str, str | None], ...] = (),
        record_size: int | None = None,
    ) -> None:
        self._init(
            name,
            state,
            [] if reasons is None else reasons,  # (a list of its own, as the dataclass's default_factory gave)
            [] if notes is None else notes,
            version_text,
            locked_text,
            dist_info_dir,
            files_checked,
            records,
            editable_source,
            import_roots,
            missing_libraries,
            record_size,
        )

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
    found = index.dists.get(key, ())  # index.find(key), whose name is normalized already
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
    key = (locked, declared)
    if not deep and len(found) == 1:
        again = _again(found[0], index, key)
        if again is not None:
            return again
    seen: dict[str, tuple[int, int, int]] = {}
    facts, stats = _read_and_stat(found[0], index, seen)
    needs = _libraries(facts, index, deep, seen) if stats is not None else []
    if stats is None or stats[0] or stats[1] or deep or len(found) > 1 or index.leftovers.get(facts.site) or needs:
        pass  # something to say, or to look at on disk: the full checks below
    elif (whole := _whole(name, facts, key)) is not None:
        return _keep_whole(facts, key, whole[0], seen)
    reasons, version = _folder_reasons(name, found, facts, locked)
    notes: list[str] = []
    editable = _editable(facts, reasons, notes)
    gone: frozenset[str] = frozenset()
    if stats is None:
        reasons.append(str(facts.record_problem))
    else:
        gone = filechecks.file_reasons(facts, stats, index.suffixes, deep=deep, reasons=reasons, notes=notes)
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
        _keep_whole(facts, key, result, seen)
    return result


# A verdict given when the distribution was found whole, the identities its watched files had, its extensions'.
Whole = tuple["DistributionProbe", list[tuple[int, int, int]], tuple[tuple[str, "tuple[int, int, int] | None"], ...]]


def _keep_whole(
    facts: distinfo.DistInfo, key: tuple[str | None, tuple[str, ...]], result: DistributionProbe, seen: dict[str, Any]
) -> DistributionProbe:
    """Keep *result*, the verdict of a distribution found whole, with what the files it watches are now (the
    folder, METADATA and RECORD: the facts' key; the compiled files: what the file checks took, *seen*) and its
    extension modules' identities (what their library verdicts are about); on disk too when that is new."""
    from tierlock.probing.libraries import is_extension

    stamps: list[Any] = [part for part in facts.key if isinstance(part, tuple)]
    for path, _rel in facts.compiled:
        taken = seen.get(path)  # (size, modification time, inode); none when the rows were stat-ed one by one
        stamps.append(None if taken is None else (taken[2], taken[0], taken[1]))
    extensions = tuple((path, seen.get(path)) for path, rel in facts.compiled if is_extension(rel))
    facts.whole[key] = (result, stamps, extensions)
    said = [stamps, extensions, result.version_text, result.import_roots, result.record_size]
    if facts.wholes.get(key) != said:
        facts.wholes[key] = said
        distinfo.keep(facts)
    return result


def _whole(name: str, facts: distinfo.DistInfo, key: tuple[str | None, tuple[str, ...]]) -> Whole | None:
    """The whole verdict kept with *facts* for *key*: this process's, else the one the facts kept on disk hold."""
    kept = facts.whole.get(key)
    if kept is not None or key not in facts.wholes:
        return kept
    stamps, extensions, version, import_roots, record_size = facts.wholes[key]
    result = DistributionProbe(
        name=name,
        state="present",
        version_text=version,
        locked_text=key[0],
        dist_info_dir=facts.path,
        files_checked=facts.files_checked,
        records=facts.records,
        import_roots=import_roots,
        record_size=record_size,
    )
    facts.whole[key] = (result, stamps, extensions)
    return facts.whole[key]


def _again(info: DistInfoDir, index: SiteIndex, key: tuple[str | None, tuple[str, ...]]) -> DistributionProbe | None:
    """The verdict given the last time the folder was found whole with the same lock and roots, when it still is:
    the checks the full way makes of it (the folder, METADATA and RECORD unchanged, every file there with its
    size, no pip leftover beside it, the library verdict of each extension module still holding), each file
    stat-ed once and nothing built on the way; None sends the probe the full way."""
    found = _known_whole(info, index, key)
    if found is None or not filechecks.still_whole(found[0], found[1][1]):
        return None
    kept = found[1]
    if kept[2]:
        from tierlock.probing import libraries

        if not libraries.still_known(index, index.sites, kept[2]):
            return None
    return kept[0]


def _known_whole(
    info: DistInfoDir, index: SiteIndex, key: tuple[str | None, tuple[str, ...]]
) -> tuple[distinfo.DistInfo, Whole] | None:
    """The facts kept for the folder and their whole verdict for *key*, when there is one to confirm."""
    facts = distinfo.known(info, index.suffixes)
    if facts is None or facts.sizes is None or index.leftovers.get(facts.site):
        return None
    kept = facts.whole.get(key) or _whole(info.name, facts, key)
    return None if kept is None else (facts, kept)


def kept_whole(
    index: SiteIndex, name: str, locked: str | None, import_roots: Sequence[str]
) -> tuple[distinfo.DistInfo, Whole] | None:
    """:func:`_known_whole` for :func:`probe_distribution` of *name* with these arguments (not deep), nothing
    stat-ed: :mod:`tierlock.probing.verdict` confirms a round's at once."""
    key = normalize(name)
    found = index.dists.get(key, ())
    if len(found) != 1:
        return None
    try:
        text = metadata.normalized(str(locked)) if locked is not None else None
    except ValueError:  # InvalidVersion: the full way says it
        return None
    return _known_whole(found[0], index, (text, tuple(import_roots)))


def _read_and_stat(
    info: DistInfoDir, index: SiteIndex, seen: dict[str, tuple[int, int, int]]
) -> tuple[distinfo.DistInfo, tuple[list[str], list[str], list[str]] | None]:
    """The folder's facts and the stat of every file RECORD lists (None: no RECORD); compiled ones' in *seen*
    (once per folder when the index keeps them: :attr:`SiteIndex.checked`)."""
    checked = index.checked
    if checked is not None and info.path in checked:
        facts, stats, compiled = checked[info.path]
        seen.update(compiled)
        return facts, stats
    facts, confirm = distinfo.read(info, index.suffixes)
    stats = filechecks.stat_rows(facts, confirm, seen) if facts.record_problem is None else None
    if stats is filechecks.STALE:  # METADATA or RECORD changed under a folder that did not: read them again
        facts, _ = distinfo.read(info, index.suffixes, again=True)
        stats = filechecks.stat_rows(facts, False, seen) if facts.record_problem is None else None
    if checked is not None:
        checked[info.path] = (facts, stats, dict(seen))
    return facts, stats


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
    tops.update(rel.partition("/")[0] for rel in facts.rels if not rel.startswith(".."))  # (RECORD's paths, in order)
    for leftover in tildes:
        if any(pip_leftover_of(leftover, top) for top in tops):
            reasons.append(f"leftover {leftover} beside it in {facts.site}: an interrupted pip uninstall or upgrade")
