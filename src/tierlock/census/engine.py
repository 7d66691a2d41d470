"""The census itself: read what is needed, follow it, and report per tier (files come from an injected tree).

:func:`survey` never touches the disk: it gets the files from a
:class:`~tierlock.census.tree.Tree` and the earlier per-file facts from a
:class:`~tierlock.census.cache.Memo`, and returns the new cache entry in
:attr:`Census.cache_entry` for the caller to keep.

What is read, cheapest first:

1. every ``conftest.py`` (its fixtures decide which words matter);
2. the project's own modules whose text names a tier's root, then those
   naming a module, flag or mark alias found so far, until nothing new turns
   up (a module naming none of them cannot need a root);
3. every test file whose text names a root, ``importorskip``, ``mark.tier``,
   a conftest fixture that needs a root, or one of those modules, flags and
   aliases. Unparsed files need nothing (or only an autouse fixture).
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from tierlock import keptnote
from tierlock.census.cache import Memo
from tierlock.census.keptresult import Kept, digest_of
from tierlock.census.report import Census, CensusTier, TierReport, Use
from tierlock.census.tree import DiskTree, Listing, Tree

if TYPE_CHECKING:  # (loaded by a census worked out: a result kept needs none of them)
    from tierlock.census.attribute import Marker, Tiers
    from tierlock.census.filefacts import FileFacts
    from tierlock.census.firstparty import ModuleIndex, Reach
    from tierlock.census.fixtures import Needs

#: pytest's default ``python_files``.
DEFAULT_PATTERNS = ("test_*.py", "*_test.py")
#: Where project modules are looked for by default (the root and ``src/``).
DEFAULT_PATHS = ("", "src")


class _Reading:
    """The files read in one census and what they say."""

    def __init__(self, tree: Tree, listing: Listing, modules: Mapping[str, list[int]], memo: Memo) -> None:
        self.listing = listing
        self.modules = modules
        self.memo = memo
        self.parsed: dict[str, FileFacts] = {}
        self._texts: dict[str, str | None] = {}
        self._tree = tree
        #: The folder the files are read from when a recorded run may keep what it takes from each.
        self.told = tree.base if isinstance(tree, DiskTree) and keptnote.recording() else None
        self.test_words: list[str] = []
        """The words a test file must name to be parsed."""
        self.autouse: list[str] = []
        """The conftests with an autouse fixture that needs a root."""

    def read(self, rel: str) -> str | None:
        if rel not in self._texts:
            if self.told is not None:
                keptnote.tell("read", os.path.join(self.told, rel))
            self._texts[rel] = self._tree.read(rel)
        return self._texts[rel]

    def take(self, rel: str, stamp: list[int], words: Sequence[str] | None, kind: str) -> bool:
        facts = self.memo.facts(rel, stamp, self.read, words, kind)
        if facts is not None:
            self.parsed[rel] = facts
        if self.told is not None:
            self._tell(rel, words)
        return facts is not None

    def _tell(self, rel: str, words: Sequence[str] | None) -> None:
        """Tell the recorder what this census took from *rel* (its facts, or that it names none of *words*);
        a file it could not read is told with no facts, and is then kept by its bytes."""
        kept = None if self._texts.get(rel, "") is None else self.memo.new.get(rel)
        detail = None if kept is None else [rel, _shared(words), kept[1]]
        keptnote.tell("census", os.path.join(self.told or "", rel), detail)


def survey(
    tree: Tree,
    tiers: Sequence[CensusTier],
    *,
    folders: Sequence[str] = (".",),
    patterns: Sequence[str] = DEFAULT_PATTERNS,
    paths: Sequence[str] = DEFAULT_PATHS,
    limit_to: Iterable[str] | None = None,
    report: Iterable[str] | None = None,
    walk_globs: bool = True,
    memo: Memo | Callable[[], Memo] | None = None,
    kept: Kept | None = None,
) -> Census:
    """The census of the test files below *folders* for *tiers* (see :func:`tierlock.census.census`); with *kept*,
    the result kept there when nothing it rests on changed (:mod:`tierlock.census.keptresult`), else kept there
    (*memo*, or what makes it, is then not needed)."""
    limit_to = None if limit_to is None else list(limit_to)
    report = None if report is None else sorted(report)
    stems = [_glob_stem(g) for t in tiers for g in t.globs] if walk_globs else []
    listing = tree.walk([*folders, *[s for s in stems if s]], patterns)
    modules = {**tree.modules(paths), **listing.sources}
    for rel in listing.tests:
        modules.pop(rel, None)
    inputs: dict[str, object] = {"folders": list(folders), "patterns": list(patterns), "paths": list(paths)}
    inputs["limit_to"] = limit_to
    inputs |= {"report": report, "walk_globs": walk_globs, "tiers": [_tier_data(t) for t in tiers]}
    if kept is None or not isinstance(tree, DiskTree):
        return _worked_out(tree, tiers, listing, modules, inputs, _memo(memo))
    key = digest_of([tree.base, inputs, listing.every, sorted(tree.ids.items())])
    kept.place(inputs)
    found = kept.find(key)
    if found is not None:
        found.files_parsed, found.files_cached = 0, len(listing.tests)  # (each file's facts: from the cache)
        return found
    kept.listen()
    try:
        result = _worked_out(tree, tiers, listing, modules, inputs, _memo(memo))
    finally:
        tells = kept.stop()
    kept.keep(key, result, tells, tree.ids.values())
    return result


def globs_matcher() -> Callable[[str, Sequence[str]], bool]:
    """:func:`tierlock.tiers.globs.matches`, each set of globs asked about compiled once into one pattern (the
    alternation of the globs' anchored patterns: a path matches it exactly when it matches one of them). The
    reports ask it ~20,000 times on a project of 470 test files, mostly of the same few sets."""
    from tierlock.tiers.globs import compile_glob

    patterns: dict[tuple[str, ...], Callable[[str], object]] = {}

    def never(_path: str) -> None:
        return None

    def matches(path: str, globs: Sequence[str]) -> bool:
        key = tuple(globs)
        match = patterns.get(key)
        if match is None:
            joined = "|".join(f"(?:{compile_glob(g).pattern})" for g in key)
            match = patterns[key] = re.compile(joined).match if key else never
        return match(path) is not None

    return matches


def _memo(memo: Memo | Callable[[], Memo] | None) -> Memo:
    return Memo() if memo is None else memo if isinstance(memo, Memo) else memo()


def _worked_out(  # noqa: PLR0917 (survey's own parts, in its order)
    tree: Tree,
    tiers: Sequence[CensusTier],
    listing: Listing,
    modules: dict[str, list[int]],
    inputs: dict[str, Any],
    memo: Memo,
) -> Census:
    """The census worked out: the files read (or their facts taken from *memo*), followed, and reported."""
    from tierlock.census.attribute import Tiers, file_uses
    from tierlock.census.firstparty import ModuleIndex, ranked

    matches = globs_matcher()
    known = Tiers(tiers)
    reading = _Reading(tree, listing, modules, memo)
    index = ModuleIndex([*listing.tests, *modules], inputs["paths"])
    needs = _read(reading, index, ranked(t.roots for t in tiers))
    limit_to, report = inputs["limit_to"], inputs["report"]
    keep = set(limit_to) if limit_to is not None else None
    uses = {rel: file_uses(needs, rel) for rel in sorted(reading.parsed) if rel in listing.tests}
    reported = set(report) if report is not None else set(known.by_name)
    reports = []
    for tier in tiers:
        if tier.name in reported:
            reports.append(_report(tier, known, needs, uses=uses, listing=listing, keep=keep, matches=matches))
    tests = set(listing.tests)
    result = Census(tuple(reports), len(listing.tests), len(memo.parsed & tests), len(memo.reused & tests))
    result.modules_read = len(modules)
    result.test_files = [rel for rel in listing.tests if not rel.endswith("conftest.py")]
    for rel, facts in reading.parsed.items():
        if rel in tests and facts.functions:
            result.tests[rel] = [(q, facts.functions[q].first) for q in facts.tests()]
    result.cache_entry = memo.entry() if memo.dirty else None
    if reading.told is not None:  # a recorded run: a later one may work this census out again from its facts
        from tierlock.census.summary import canonical

        keptnote.tell("survey", reading.told, [inputs, canonical(result), _apart(reading, index, needs, uses, result)])
    return result


def _apart(
    reading: _Reading, index: ModuleIndex, needs: Needs, uses: Mapping[str, object], result: Census
) -> dict[str, object]:
    """What a later run needs to work out one changed test file's part of this census alone
    (:func:`tierlock.census.rerun.alone_holds`): the files, which were parsed, the words of the test files, the
    conftests with an autouse fixture that needs a root, every file an import was found to run (such a file is
    not alone), the files of the cycles cut short, each test file's :func:`share` of the result, and every fixture
    name requested or autouse (:func:`tierlock.census.rerun.readers_hold`)."""
    from tierlock.census.visible import requested

    tests = reading.listing.tests
    run_time: dict[str, list[object]] = {}
    for key, how in sorted(needs.run_time.items()):
        run_time.setdefault(key[0], []).append((key, how))
    shares = {
        rel: share(uses.get(rel), result.tests.get(rel), run_time.get(rel, []))
        for rel in tests
        if not rel.endswith("conftest.py")
    }
    targets = sorted({target for found in index.resolved() for target in found})
    return {
        "tests": list(tests),
        "modules": list(reading.modules),
        "parsed": list(reading.parsed),
        "words": reading.test_words,
        "autouse": reading.autouse,
        "targets": targets,
        "cycles": sorted(needs.cycles),
        "shares": shares,
        "run_time": [[list(key), how] for key, how in sorted(needs.run_time.items())],
        "requests": requested(facts for rel, facts in reading.parsed.items() if rel in tests),
    }


def share(uses: object, tests: object, run_time: object) -> bytes:
    """What the census's result holds of one test file, fingerprinted: its uses and tier markers
    (:func:`~tierlock.census.attribute.file_uses`; None when it was not parsed), its tests and their lines, and
    the needs of its functions left to run time. The result is made of these, file by file."""
    from tierlock.census.factdigest import digest
    from tierlock.census.summary import canonical

    return digest(canonical([uses, tests, run_time]))


def _tier_data(tier: CensusTier) -> list[object]:
    return [tier.name, list(tier.roots), list(tier.globs), list(tier.covered_by), list(tier.accept), tier.required]


def _read(reading: _Reading, index: ModuleIndex, roots: Sequence[str]) -> Needs:
    """Read the conftests, the project modules that matter and the test files that matter; their needs."""
    from tierlock.census.firstparty import Reach
    from tierlock.census.fixtures import Needs, below
    from tierlock.census.makers import IMPORTERS

    listing = reading.listing
    conftests = [rel for rel in listing.tests if rel.endswith("conftest.py")]
    for rel in conftests:
        reading.take(rel, listing.tests[rel], None, "tests")
    words = {*roots, *IMPORTERS}  # (a flag maker's module names no root: ``def needs(m): ... find_spec(m)``)
    pending = dict(reading.modules)
    reach: Reach | None = None
    while pending or reach is None:
        taken = [rel for rel, stamp in pending.items() if reading.take(rel, stamp, sorted(words), "sources")]
        for rel in taken:
            del pending[rel]
        if reach is not None and not taken:
            break  # nothing new read: nothing new to follow
        reach = reach if reach is not None and reach.again(taken) else Reach(index, reading.parsed, roots)
        more = _words(reach, [*reading.modules, *conftests]) - words
        if not more:
            break
        words |= more
    needs = Needs(reach, conftests)
    fixture_words = {name for _, name, _, _ in needs.needing()}
    autouse = [c for c, _, func, _ in needs.needing() if func.autouse]
    test_words = sorted({*words, "importorskip", "mark.tier", *fixture_words})
    reading.test_words, reading.autouse = test_words, autouse
    known = set(reading.parsed)
    for rel, stamp in listing.tests.items():
        if rel in reading.parsed:
            continue
        if not reading.take(rel, stamp, test_words, "tests") and any(below(rel, c) for c in autouse):
            from tierlock.census.filefacts import FileFacts

            reading.parsed[rel] = FileFacts()  # needs a tier through an autouse fixture; nothing else to read
    if not reach.again(reading.parsed.keys() - known):
        reach = Reach(index, reading.parsed, roots)
    return Needs(reach, conftests)  # (what the project's modules need, followed once when nothing changed it)


#: :data:`.hookmarks.PREFIX`, written here: a run answered from a kept result loads this module, not the readers.
HOOK_ALIAS = "@"


def _words(reach: Reach, rels: Iterable[str]) -> set[str]:
    """Words a file must name to reach the interesting modules among *rels*: their names, flags and aliases."""
    out: set[str] = set()
    for rel in rels:
        facts = reach.facts.get(rel)
        if facts is None or not reach.interesting(rel):
            continue
        stem = rel[: -len("/__init__.py")] if rel.endswith("/__init__.py") else rel[: -len(".py")]
        out.add(stem.rsplit("/", 1)[-1])
        out.update(facts.flags)
        out.update(facts.makers)  # (a test marked ``@needs("x")`` names the maker ``needs``)
        out.update(n for n in facts.made if reach.made_kind(rel, n))
        # a hook's mark alias (``@gpu``) is named by the tests it marks as ``mark.gpu``
        out.update(f"mark.{a[len(HOOK_ALIAS) :]}" if a.startswith(HOOK_ALIAS) else a for a in facts.aliases)
        for _module, _level, names, _line, scope, _guards in facts.modules:
            if not scope:
                out.update(bound for _, bound in names if bound != "*" and reach.exported(rel, bound))
    return out


def _report(
    tier: CensusTier,
    known: Tiers,
    needs: Needs,
    *,
    uses: Mapping[str, tuple[list[Use], list[Marker]]],
    listing: Listing,
    keep: set[str] | None,
    matches: Callable[[str, Sequence[str]], bool],
) -> TierReport:
    from tierlock.census.attribute import by_line, fixture_uses, glob_matches, sort_uses

    entry = TierReport(tier.name, tier.globs, gates=tier.gates)
    entry.glob_matches = dict(glob_matches(tier, listing.every, matches))
    for glob, count in entry.glob_matches.items():
        hint = None if count else _glob_hint(glob, listing.every)
        if hint is not None:
            entry.glob_hints[glob] = hint
    entry.covered = [rel for rel in listing.tests if matches(rel, tier.globs) and not rel.endswith("conftest.py")]
    entry.fixtures = fixture_uses(needs, tier)
    entry.run_time = [
        Use(rel, line, f"{how} (picked by name at run time)", root=root, test=qual)
        for (rel, qual, root, line), how in sorted(needs.run_time.items())
        if root in tier.roots and (keep is None or rel in keep)
    ]
    for rel, (file_list, markers) in uses.items():
        if keep is None or rel in keep:
            sort_uses(entry, tier, known, rel=rel, uses=file_list, markers=markers, matches=matches)
    entry.inside = by_line(entry.inside)
    entry.outside = by_line(entry.outside)
    entry.elsewhere = by_line(entry.elsewhere)
    entry.accepted = by_line(entry.accepted)
    return entry


def _glob_text(glob: str) -> str:
    """The glob as :func:`tierlock.tiers.globs.matches` reads it: ``/`` separators, no leading ``./``."""
    text = glob.replace("\\", "/").strip()
    while text.startswith("./"):
        text = text[2:]
    return text


def _glob_stem(glob: str) -> str:
    """The folder (or file) a glob starts from: its text before the first wildcard, up to a ``/``."""
    text = _glob_text(glob)
    wild = min((at for at in map(text.find, "*?[") if at >= 0), default=-1)  # (the first wildcard: no pattern)
    if wild < 0:
        return text.rstrip("/")
    head = text[:wild]
    return head.rsplit("/", 1)[0] if "/" in head else ""


def _glob_hint(glob: str, every: Sequence[str]) -> str | None:
    """The glob with its literal folder (or file) part replaced by the closest existing one, if any is close."""
    import difflib

    stem = _glob_stem(glob)
    if not stem:
        return None
    places = set(every)
    for rel in every:
        parts = rel.split("/")
        places.update("/".join(parts[:i]) for i in range(1, len(parts)))
    close = difflib.get_close_matches(stem, sorted(places), n=1, cutoff=0.75)
    if not close:
        return None
    text = _glob_text(glob)
    return close[0] + text[len(stem) :] if text.startswith(stem) else None


def _shared(words: Sequence[str] | None) -> list[str] | None:
    """*words* as a list, the same list object when it is one (a kept entry then holds it once for every
    file it was looked for in)."""
    if words is None or isinstance(words, list):
        return words
    return list(words)
