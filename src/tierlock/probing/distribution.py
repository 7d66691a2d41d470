"""Probe one installed distribution from its files, never importing it.

The verdict comes from the ``.dist-info`` folder (read once and kept while it
is unchanged: :mod:`tierlock.probing.distinfo`), one ``stat`` of every file
its RECORD lists (the size compared with RECORD's; with *deep* the hash
too), the import roots, and the site folder's listing for pip's ``~``
leftovers. Which file provides a module, and whether a compiled file suits the
target, follow the target's extension suffixes (carried by the
:class:`~tierlock.probing.site.SiteIndex`). Every reason is collected; none
stops the others. The verdict is a :class:`~tierlock.probing.distprobe.DistributionProbe`;
a distribution found whole keeps it (:mod:`tierlock.probing.wholekept`).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from tierlock.probing import distinfo, filechecks, metadata, wholekept
from tierlock.probing.distprobe import DistributionProbe
from tierlock.probing.site import DistInfoDir, SiteIndex, normalize, pip_leftover_of
from tierlock.venvbase import includes_system_site

# hashlib and base64 are imported where they are needed (--deep), and packaging.version only for
# versions that are more than a release number: the common path is plain string work and stat().
if TYPE_CHECKING:
    from packaging.version import Version

    from tierlock.probing.distprobe import DistState, TierState
    from tierlock.probing.installedfile import InstalledFile
    from tierlock.probing.libraries import Missing, Unloadable

__all__ = ["DistState", "DistributionProbe", "InstalledFile", "TierState", "probe_distribution"]


def __getattr__(name: str) -> object:
    """The value's names made at their first use (:mod:`tierlock.probing.distprobe`'s ``__getattr__``)."""
    if name in ("DistState", "InstalledFile", "TierState"):
        from tierlock.probing import distprobe

        return getattr(distprobe, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


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
    ``SiteIndex.of(target)``, which also judges each WHEEL file by the target's tags).
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
    if not deep and len(found) == 1 and (again := wholekept.again(found[0], index, key)) is not None:
        return again
    seen: dict[str, tuple[int, int, int, int]] = {}
    facts, stats = _read_and_stat(found[0], index, seen)
    needs = _libraries(facts, index, deep, seen) if stats is not None else []
    foreign = _foreign(facts, index)
    if stats is None or stats[0] or stats[1] or deep or len(found) > 1 or index.leftovers.get(facts.site) or needs:
        pass  # something to say, or to look at on disk: the full checks below
    elif foreign is None and (whole := wholekept.whole(name, facts, key)) is not None:
        return wholekept.keep(facts, key, whole[0], seen)
    used, notes = _shadowing(found)
    reasons, version = _folder_reasons(name, used, facts, locked)
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
    reasons.extend([*facts.unfinished, foreign] if foreign is not None else facts.unfinished)
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
        missing_libraries=_library_rows(needs),
        record_size=facts.key[2][1] if isinstance(facts.key[2], tuple) else None,
    )
    if state == "present" and not looked and not deep and len(found) == 1 and stats is not None:
        wholekept.keep(facts, key, result, seen)
    return result


def _foreign(facts: distinfo.DistInfo, index: SiteIndex) -> str | None:
    """Why the wheel the distribution was installed from is not for the target (its WHEEL file's tags, none of which
    the target accepts: another platform's wheel, which a venv armed on another machine holds), or None. Pure wheels
    (``-any``) are never judged, and the target's tags are made only for a wheel that is not pure."""
    tags = facts.wheel_tags
    if not tags or any(t.endswith("-any") for t in tags):
        return None
    fit = index.fit()
    if fit is None or not fit.foreign(tags):
        return None
    shown = ", ".join(tags[:2]) + (f" and {len(tags) - 2} more" if len(tags) > 2 else "")
    return (
        f"installed from a wheel for {shown} (its WHEEL file's tags), which this environment does not accept "
        f"(it takes {fit.first} and the like): built for another platform or Python"
    )


def _read_and_stat(
    info: DistInfoDir, index: SiteIndex, seen: dict[str, tuple[int, int, int, int]]
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


def _shadowing(found: Sequence[DistInfoDir]) -> tuple[Sequence[DistInfoDir], list[str]]:
    """The folders that count (the first alone when it shadows the base's by design: :func:`_shadows_the_base`)
    and the note that says so."""
    if len(found) < 2 or not _shadows_the_base(found):
        return found, []
    others = ", ".join(d.path for d in found[1:])
    return found[:1], [f"shadows {others} of the base interpreter (the venv includes its site-packages)"]


def _shadows_the_base(found: Sequence[DistInfoDir]) -> bool:
    """Whether the first ``.dist-info`` folder is in a venv made with ``include-system-site-packages = true`` and
    every other one is outside that venv: the base interpreter's, which the venv's own install shadows by design
    (its site folder comes first on the path; pip and uv install there so)."""
    prefix = _venv_of(found[0].site)
    if prefix is None or not includes_system_site(prefix):
        return False
    inside = prefix.rstrip(os.sep) + os.sep
    return not any(d.site == found[0].site or d.site.startswith(inside) for d in found[1:])


def _venv_of(site: str) -> str | None:
    """The venv holding the site folder *site* (``PREFIX/lib/pythonX.Y/site-packages`` or ``PREFIX/Lib/...``)."""
    folder = site
    for _ in range(3):
        folder = os.path.dirname(folder)
        if os.path.isfile(os.path.join(folder, "pyvenv.cfg")):
            return folder
    return None


def _libraries(
    facts: distinfo.DistInfo, index: SiteIndex, deep: bool, seen: dict[str, tuple[int, int, int, int]]
) -> list[Missing | Unloadable]:
    """The shared libraries its extensions need that the dynamic loader cannot find (*deep*: nothing kept; *seen*:
    the identities the file checks just took, not taken again)."""
    from tierlock.probing import libraries

    return libraries.unresolved(
        index, index.sites, facts.compiled, fresh=deep, seen=seen, python=index.python, suffixes=index.suffixes
    )


def _library_rows(needs: Sequence[Missing | Unloadable]) -> tuple[tuple[str, str, str | None], ...]:
    """The libraries the loader cannot find, as a probe's result carries them (an extension it refuses is no library
    the system lacks: a reinstall for this platform mends it, not the system's package manager)."""
    if not needs:
        return ()
    from tierlock.probing.libproblems import Missing

    return tuple((m.artifact, m.library, m.via) for m in needs if isinstance(m, Missing))


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
        from tierlock.probing import roots  # (a root its RECORD provides needs no look on disk)

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
