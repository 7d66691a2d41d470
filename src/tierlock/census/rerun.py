"""The census worked out again from the facts a kept answer recorded, after a test file changed.

A kept answer of ``check`` or ``admit`` (:mod:`tierlock.keptrun`) rests on the census's result. When a test
file changed so that its facts differ (a line added moves every line below it), the result may still be
the same: each census the recorded run made is run again here on the files as they are now - the changed
files read and parsed, every other file's facts taken from the record (exactly what that run took, for
exactly the words it looked for; anything else is read from the file) - and the kept answer holds when
every result equals the recorded one (:func:`tierlock.census.summary.canonical`). Loads the census, not the
tier model, the lockfile model or packaging.

A changed test file that is *alone* - not a conftest, no import of another file runs it, and the census cut
no cycle short but in such files - adds to the result only its own part (:func:`tierlock.census.engine.share`):
the part of each such file is worked out alone, from the facts of the files it reaches, and when every one is
the part recorded, the result is the same without the census of every other file (:func:`alone_holds`).

A changed conftest, helper module or project module whose facts differ only where no part of the census reads them
(:mod:`tierlock.census.visible`: a helper function added, an import of the standard library) leaves every answer
of the census as it was; a fixture added that nothing requests only adds its own answer, worked out alone
(:func:`readers_hold`).
"""

from __future__ import annotations

import marshal
import os
from collections.abc import Mapping

from tierlock.census.attribute import file_uses
from tierlock.census.cache import Memo
from tierlock.census.engine import share, survey
from tierlock.census.filefacts import FileFacts
from tierlock.census.firstparty import ModuleIndex, Reach, ranked
from tierlock.census.fixtures import Needs, below
from tierlock.census.report import CensusTier
from tierlock.census.summary import canonical, facts_of, names_any
from tierlock.census.tree import DiskTree
from tierlock.census.visible import Foreign, function_view, lineless, module_view, names_file, reachable
from tierlock.collector import Paused

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Iterator, Sequence
    from typing import Any


class RecordedMemo(Memo):
    """The census's per-file memory made of a record: what each file gave for the words it was looked at with.

    A file in *changed*, and a call with words the record has no answer for, is read and parsed (as with no
    memory at all)."""

    def __init__(self, calls: Mapping[str, list[Any]], changed: Iterable[str]) -> None:
        super().__init__(None)
        self.calls = calls
        self.changed_files = set(changed)

    def facts(
        self,
        rel: str,
        stamp: list[int],
        read: Callable[[str], str | None],
        words: Sequence[str] | None = None,
        kind: str = "tests",
    ) -> FileFacts | None:
        if rel not in self.changed_files:
            for _name, was_words, facts in self.calls.get(rel, ()):
                if was_words == (None if words is None else list(words)):
                    self.new[rel] = [stamp, facts]
                    self.reused.add(rel)
                    return None if facts is None else FileFacts.from_json(facts)
        return super().facts(rel, stamp, read, words, kind)


def surveys_hold(surveys: Sequence[Any], facts: dict[str, Any], changed: set[str]) -> bool:
    """Whether every census in *surveys* (``[root, [inputs, result]]``), worked out again with the *changed*
    files read anew and every other file's facts from *facts* (path -> ``[name, words, facts]`` of each
    reading), gives its recorded result; every changed file must be below the root of one of them."""
    with Paused():  # (the census builds ~10^5 objects and no cycles worth collecting, as a recorded run)
        return _surveys_hold(surveys, facts, changed)


def _surveys_hold(surveys: Sequence[Any], facts: dict[str, Any], changed: set[str]) -> bool:
    covered: set[str] = set()
    try:
        for root, (inputs, was, apart) in surveys:  # (every census a recorded run made tells what it kept apart)
            prefix = os.path.join(root, "")
            mine = {path for path in changed if path.startswith(prefix)}
            calls = Below(facts, root)
            rels = sorted(p[len(prefix) :] for p in mine)
            holds = rels and (
                alone_holds(root, inputs, apart, calls, rels) or readers_hold(root, inputs, apart, calls, rels, was)
            )
            if not holds and (
                canonical(_again(root, inputs, RecordedMemo(calls, rels)))
                != (marshal.loads(was) if isinstance(was, bytes) else was)
            ):
                return False
            covered |= mine
    except (TypeError, ValueError, KeyError, IndexError, AttributeError):
        return False
    return covered == changed


class Below(Mapping[str, "list[Any]"]):
    """The readings of the files below *root* by their path relative to it (each reading of a file names it; one
    of another census's root is left out), taken from *facts* (path -> readings) when asked for."""

    def __init__(self, facts: Any, root: str) -> None:
        self.facts = facts
        self.root = root
        self.prefix = os.path.join(root, "")

    def __getitem__(self, rel: str) -> list[Any]:
        path = os.path.join(self.root, rel)
        found = self.facts.get(path)
        if found is None:
            raise KeyError(rel)
        return [c for c in found if os.path.join(self.root, c[0]) == path]

    def __iter__(self) -> Iterator[str]:
        cut = len(self.prefix)
        return (path[cut:] for path in self.facts.keys() if path.startswith(self.prefix))  # noqa: SIM118

    def __len__(self) -> int:
        return sum(1 for _ in self)


class KeptFacts(Mapping[str, FileFacts]):
    """The facts of the files a recorded census parsed (*parsed*), each made from its record (*calls*) when it is
    first asked for; *now*: the changed files' facts as they are (None: not parsed now)."""

    def __init__(self, calls: Mapping[str, list[Any]], parsed: Iterable[str], now: dict[str, FileFacts | None]) -> None:
        self.calls = calls
        self.now = now
        self.files = {rel for rel in parsed if rel not in now} | {rel for rel, f in now.items() if f is not None}
        self.made: dict[str, FileFacts] = {}

    def __getitem__(self, rel: str) -> FileFacts:
        if rel not in self.files:
            raise KeyError(rel)
        found = self.now.get(rel) or self.made.get(rel)
        if found is None:
            data = next((c[2] for c in self.calls.get(rel, ()) if c[2] is not None), None)
            found = self.made[rel] = FileFacts() if data is None else FileFacts.from_json(data)  # (an autouse's)
        return found

    def __iter__(self) -> Iterator[str]:
        return iter(sorted(self.files))

    def __len__(self) -> int:
        return len(self.files)


def alone_holds(
    root: str, inputs: dict[str, Any], apart: dict[str, Any], calls: Mapping[str, list[Any]], rels: list[str]
) -> bool:
    """Whether every changed test file of *rels* is alone (see the module's docstring) and, read again, adds to
    the census's result what it added (its recorded :func:`~tierlock.census.engine.share`). False: it cannot be
    told from those files alone (the census is then worked out again whole)."""
    alone = {rel for rel in apart["shares"] if not rel.endswith(("conftest.py", "__init__.py"))}
    alone -= set(apart["targets"])
    if not set(apart["cycles"]) <= alone or not all(rel in alone for rel in rels):
        return False  # (a cycle cut short in a file alone was that file's own: what it found, no other file used)
    tree = DiskTree(root)
    now: dict[str, FileFacts | None] = {}
    for rel in rels:
        text = tree.read(rel)
        if text is None:
            return False
        if names_any(text, apart["words"]):
            now[rel] = facts_of(text, rel)
        else:  # not parsed; an autouse fixture that needs a root still makes it a file that needs it
            now[rel] = FileFacts() if any(below(rel, c) for c in apart["autouse"]) else None
    roots = ranked(tier[1] for tier in inputs["tiers"])
    index = ModuleIndex([*apart["tests"], *apart["modules"]], inputs["paths"])
    conftests = [rel for rel in apart["tests"] if rel.endswith("conftest.py")]
    needs = Needs(Reach(index, KeptFacts(calls, apart["parsed"], now), roots), conftests)
    parts = {rel: _part(needs, rel, now[rel]) for rel in rels}
    return needs.cycles <= set(rels) and all(share(*parts[rel]) == apart["shares"][rel] for rel in rels)


def readers_hold(  # noqa: PLR0917 (the census's record, as alone_holds takes it, and its result)
    root: str,
    inputs: dict[str, Any],
    apart: dict[str, Any],
    calls: Mapping[str, list[Any]],
    rels: list[str],
    was: Any = None,
) -> bool:
    """Whether every changed file of *rels* (a conftest, a test file, a project module) still gives each reader of
    its facts what it gave the recorded census (:mod:`tierlock.census.visible`), its text naming the words of each
    reading as it did; a conftest may have gained fixtures that nothing requests, each needing nothing. False: it
    cannot be told so (the census is then worked out again whole). With *was* (the recorded result), a file whose
    lines only moved (a line added above) holds too when the result names no line of it (:func:`_moved_alike`)."""
    roots = {name for tier in inputs["tiers"] for name in tier[1]}
    index = ModuleIndex([*apart["tests"], *apart["modules"]], inputs["paths"])
    foreign = Foreign(index)
    known = {*apart["tests"], *apart["modules"]}
    tree = DiskTree(root)
    now: dict[str, FileFacts | None] = {}
    added: list[tuple[str, list[str]]] = []
    for rel in rels:
        text = tree.read(rel)
        readings = calls.get(rel)
        if rel not in known or text is None or readings is None or not _read_alike(text, readings):
            return False
        facts = next((found for _name, _words, found in readings if found is not None), None)
        if facts is None:
            continue  # it names none of the words, as before: nothing read
        old, new = FileFacts.from_json(facts), facts_of(text, rel)
        fresh: list[str] | None = None
        if module_view(old, rel, foreign, roots) == module_view(new, rel, foreign, roots):
            views = (function_view(old, rel, foreign, roots), function_view(new, rel, foreign, roots))
            fresh = _fixtures_added(old, new, *views) if rel in apart["tests"] else []
        if fresh is None and not _moved_alike(old, new, rel, foreign, roots, was):
            return False
        if fresh and not rel.endswith("conftest.py"):
            return False
        added += [(rel, fresh)] if fresh else []
        now[rel] = new
    reach = Reach(index, KeptFacts(calls, apart["parsed"], now), ranked(tier[1] for tier in inputs["tiers"]))
    return not added or _added_need_nothing(apart, added, reach)


def _moved_alike(  # noqa: PLR0917 (the two facts of the file and what their views are compared with)
    old: FileFacts, new: FileFacts, rel: str, foreign: Foreign, roots: set[str], was: Any
) -> bool:
    """Whether *new* is *old* with only its lines moved (the same facts once every line is 0: in the same order,
    what reads a line reads another) while the census's recorded result (*was*) names no line of the file
    (:func:`~tierlock.census.visible.names_file`): every line of a file that reaches the result comes with the
    file's name, so none does then, and the census, which decides nothing on a line's value, gives the same
    result."""
    if was is None or names_file(was, rel):
        return False
    before, after = lineless(old), lineless(new)
    if module_view(before, rel, foreign, roots) != module_view(after, rel, foreign, roots):
        return False
    return function_view(before, rel, foreign, roots) == function_view(after, rel, foreign, roots)


def _read_alike(text: str, readings: Sequence[Any]) -> bool:
    """Whether the census reads *text* at each of *readings* as it did: parsed where it was (words None: always)."""
    return all((words is None or names_any(text, words)) == (facts is not None) for _name, words, facts in readings)


def _fixtures_added(old: FileFacts, new: FileFacts, before: list[Any], after: list[Any]) -> list[str] | None:
    """The names of the fixtures *new* adds to *old* (the conftest's facts before and after; *before*, *after*:
    their :func:`~tierlock.census.visible.function_view`), when that is all it changes of what the census reads:
    each not autouse, under a name the file did not define, and any helper it adds referred to by them alone.
    None: anything else changed. Empty: nothing the census reads changed."""
    had = {item[0] for item in before[2:]}
    fresh = [item[0] for item in after[2:] if item[0] not in had]
    if before != [*after[:2], *(item for item in after[2:] if item[0] in had)]:
        return None
    functions = new.functions
    names = {func.fixture for func in old.functions.values() if func.kind == "fixture"}
    for qual in fresh:
        func = functions[qual]
        if func.kind == "fixture" and (func.autouse or not func.fixture or func.fixture in names):
            return None
        if func.kind not in ("fixture", "helper"):
            return None
    kept = [q for q, f in functions.items() if f.kind in ("fixture", "test") and q not in fresh]
    if reachable(new, kept) & set(fresh):
        return None  # a helper added that a function the census read already refers to
    return [str(functions[q].fixture) for q in fresh if functions[q].kind == "fixture"]


def _added_need_nothing(apart: dict[str, Any], added: list[tuple[str, list[str]]], reach: Reach) -> bool:
    """Whether each fixture of *added* (``(conftest, names)``) is one nothing requests and that needs no root
    (worked out as the census's list of the fixtures that need a root works it out, from *reach*), meeting no need
    left to run time the recorded census did not meet: the census's result does not name it then. The recorded
    census must have cut no cycle short (its answers would depend on the order they were asked in)."""
    requested, met_before = apart.get("requests"), apart.get("run_time")  # (none in an entry kept by older code)
    if requested is None or met_before is None or apart["cycles"]:
        return False
    if any(name in requested for _rel, names in added for name in names):
        return False
    conftests = [rel for rel in apart["tests"] if rel.endswith("conftest.py")]
    needs = Needs(reach, conftests)
    if any(needs.fixture(rel, name) for rel, names in added for name in names):
        return False
    met = {repr([list(key), how]) for key, how in needs.run_time.items()}
    return met <= {repr(found) for found in met_before} and not needs.cycles


def _part(needs: Needs, rel: str, facts: FileFacts | None) -> tuple[object, object, object]:
    """What the census's result holds of the test file *rel* with *facts* (see :func:`share`)."""
    if facts is None:
        return None, None, []
    uses = file_uses(needs, rel)
    tests = [(q, facts.functions[q].first) for q in facts.tests()] if facts.functions else None
    return uses, tests, sorted((key, how) for key, how in needs.run_time.items() if key[0] == rel)


def _again(root: str, inputs: dict[str, Any], memo: Memo) -> Any:
    tiers = [
        CensusTier(name, tuple(roots), tuple(globs), tuple(covered), tuple(accept), required=bool(required))
        for name, roots, globs, covered, accept, required in inputs["tiers"]
    ]
    return survey(
        DiskTree(root),
        tiers,
        folders=inputs["folders"],
        patterns=inputs["patterns"],
        paths=inputs["paths"],
        limit_to=inputs["limit_to"],
        report=inputs["report"],
        walk_globs=inputs["walk_globs"],
        memo=memo,
    )
