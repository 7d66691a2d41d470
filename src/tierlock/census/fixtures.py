"""Fixtures and functions: what each test needs, through what it imports, calls, is marked with and requests.

A function's *own* needs (:meth:`Needs.own`) are its unguarded imports and
``importorskip`` calls, the project modules it imports (:mod:`.firstparty`), the
flags whose absence skips it, its mark aliases, and the helpers of its file
it refers to. A fixture is looked up as pytest does, from the requesting
test: a fixture of the test's class, then of its module, then of the nearest
``conftest.py`` above it (a module's own ``fs`` shadows the conftest's
``fs``; a fixture requesting its own name gets the next one out). Only tests
and fixtures request fixtures: a helper's parameters are plain arguments.
Fixtures looked up by a name computed at run time are out of static reach.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from tierlock.census.firstparty import Need, Reach, folder_of
from tierlock.census.hookmarks import PREFIX
from tierlock.census.madecalls import MADE, made_args
from tierlock.census.marks import EITHER, MARK, SPEC
from tierlock.census.records import FileFacts, Func

#: (file, qualified name) of a fixture definition.
Def = tuple[str, str]


def below(rel: str, conftest: str) -> bool:
    """Whether the file *rel* is in the folder of *conftest* (or below it)."""
    folder = folder_of(conftest)
    return not folder or rel.startswith(folder + "/")


class Needs:
    """Own needs of functions and needs of fixtures, memoised."""

    def __init__(self, reach: Reach, conftests: Sequence[str]) -> None:
        self.reach = reach
        self.facts: Mapping[str, FileFacts] = reach.facts
        self.conftests = sorted(conftests, key=lambda c: len(folder_of(c)), reverse=True)  # nearest first
        self._own: dict[tuple[str, str], list[Need]] = {}
        self._fixtures: dict[tuple[str, str, str, Def | None], dict[str, Need]] = {}
        self.run_time: dict[tuple[str, str, str, int], str] = {}
        """(file, function, root, line) -> how, of each need a condition picks by name (out of static reach)."""
        self._above: dict[str, list[str]] = {}
        self._defs: dict[tuple[str, bool], dict[str, list[str]]] = {}
        self.tiers: dict[tuple[str, str], list[tuple[str, int]]] = {}
        """(file, function) -> the tier markers its mark aliases add."""
        self.cycles = reach.cycles
        """The files of the functions and fixtures met again while being worked out (see :class:`Reach`)."""
        self._open: set[object] = set()

    # -- a function's own needs ---------------------------------------------------------
    def own(self, rel: str, qual: str) -> list[Need]:
        key = (rel, qual)
        if key in self._own:
            if key in self._open:
                self.cycles.add(rel)
            return self._own[key]
        self._own[key] = []  # a helper calling itself adds nothing
        self._open.add(key)
        found = self._own[key] = self._compute_own(rel, qual)
        self._open.discard(key)
        return found

    def _compute_own(self, rel: str, qual: str) -> list[Need]:
        facts = self.facts[rel]
        func = facts.module if qual == "" else facts.functions[qual]
        out: list[Need] = []
        if qual:
            for root, line, how, _scope, guards in self.reach.scoped(rel)[0].get(qual, ()):
                if self.reach.guarded(rel, guards):
                    continue
                if self.reach.dispatched(root, guards):  # picked by name at run time: the plugin's backstop
                    self.run_time.setdefault((rel, qual, root, line), how)
                else:
                    out.append((root, rel, line, how))
            for target, how, line in self.reach.imported(rel, qual):
                out.extend(
                    (root, rel, line, f"{how} (reaches {root} at {where}:{at})")
                    for root, where, at, _ in self.reach.module_needs(target).values()
                )
        out.extend(self.marked(rel, func, qual))
        for helper in self.helpers(rel, qual, func):
            out.extend((root, where, at, f"{helper}(): {how}") for root, where, at, how in self.own(rel, helper))
        return out

    def marked(self, rel: str, func: Func, qual: str) -> list[Need]:
        """Needs from skip conditions and mark aliases (``@needs_x``); alias tier markers go to :attr:`tiers`."""
        out: list[Need] = []
        for name, line in func.skips:
            for root, where, at, how in self.reach.skip_needs(rel, name):
                text = f"{where}:{at} {how}" if at else how
                out.append((root, rel, line, f"skipped without {root} ({text})"))
        for name, line in func.marks:
            if name.startswith(MARK):
                out.extend(self.hook_marked(rel, name, line))
                continue
            if name.endswith(")") and MADE in name:
                out.extend(self.made_marked(rel, name, line))
                continue
            found = self.reach.alias(rel, name)
            if found is None:
                continue
            where, alias = found
            for tier, _ in alias.tiers:
                self.tiers.setdefault((rel, qual), []).append((tier, line))
            for skip, _ in alias.skips:
                for root, flag_file, at, how in self.reach.skip_needs(where, skip):
                    out.append((root, rel, line, f"@{name} (skipped without {root}: {flag_file}:{at} {how})"))
        return out

    def made_marked(self, rel: str, mark: str, line: int) -> list[Need]:
        """Needs of a test marked by a flag maker's call (``@needs("x")``, ``@helpers.needs(["x", "y"])``) whose mark
        skips without the modules it names (:func:`tierlock.census.makers.flag_maker`)."""
        callee, args = made_args(mark)
        found = self.reach.maker(rel, callee, args)
        if found is None or found[1] not in (["mark"], ["either"]):
            return []
        out: list[Need] = []
        # (``either``: ``@needs_any("x", "y")`` skips only without both; one of them is needed, :meth:`Reach.either`)
        tokens = [EITHER.join(SPEC + m for m in found[2])] if found[1] == ["either"] else [SPEC + m for m in found[2]]
        for token, module in zip(tokens, found[2], strict=False):
            said = ", ".join(map(repr, found[2])) if EITHER in token else repr(module)
            for root, _where, _at, how in self.reach.skip_needs(rel, token):
                more = how.partition("; ")[2]  # (``runs with y too``)
                out.append(
                    (
                        root,
                        rel,
                        line,
                        f"@{callee}({said}) (skipped without {root}: {found[0]}{'; ' * bool(more)}{more})",
                    )
                )
        return out

    def hook_marked(self, rel: str, mark: str, line: int) -> list[Need]:
        """Needs of a test marked ``@pytest.mark.gpu`` whose tests a hook of a conftest above it (or of its own file)
        skips when a flag is false (:mod:`.hookmarks`)."""
        out: list[Need] = []
        key = PREFIX + mark[len(MARK) :]
        for where in (rel, *self.above(rel)):
            alias = self.facts[where].aliases.get(key) if where in self.facts else None
            for skip, at in alias.skips if alias is not None else ():
                for root, flag_file, flag_line, how in self.reach.skip_needs(where, skip):
                    text = f"{flag_file}:{flag_line} {how}" if flag_line else how
                    out.append(
                        (root, rel, line, f"@{mark} (skipped by the hook at {where}:{at} without {root}: {text})")
                    )
        return out

    def helpers(self, rel: str, qual: str, func: Func) -> list[str]:
        """The helper functions of *rel* that *func* refers to (a class's name: each of its methods)."""
        functions = self.facts[rel].functions
        klass = qual.split(".", 1)[0] if "." in qual else ""
        out: list[str] = []
        for ref in func.refs:
            if klass and f"{klass}.{ref}" in functions and functions[f"{klass}.{ref}"].kind == "helper":
                out.append(f"{klass}.{ref}")
            elif ref in functions and functions[ref].kind == "helper":
                out.append(ref)
            else:
                out.extend(q for q, f in functions.items() if q.startswith(f"{ref}.") and f.kind == "helper")
        return out

    # -- fixtures -----------------------------------------------------------------------
    def chain(self, rel: str, name: str, klass: str) -> list[Def]:
        """The definitions of fixture *name* visible from a test of *rel* (in class *klass*), nearest first."""
        out: list[Def] = []
        if rel in self.facts:
            local = self._defined(rel, everywhere=True).get(name, ())
            out.extend((rel, q) for q in local if klass and q.startswith(f"{klass}."))
            out.extend((rel, q) for q in local if "." not in q)
        for conftest in self.above(rel):
            out.extend((conftest, q) for q in self._defined(conftest).get(name, ()))
        return out

    def fixture(self, rel: str, name: str, klass: str = "", after: Def | None = None) -> dict[str, Need]:
        """Root -> need of fixture *name* as a test of *rel* gets it (*after*: the one overriding it)."""
        key = (rel, name, klass, after)
        if key in self._fixtures:
            if key in self._open:
                self.cycles.add(rel)
            return self._fixtures[key]
        self._fixtures[key] = {}  # a cycle of fixtures adds nothing
        self._open.add(key)
        chain = self.chain(rel, name, klass)
        if after is not None:
            chain = chain[chain.index(after) + 1 :] if after in chain else []
        out: dict[str, Need] = {}
        if chain:
            where, qual = chain[0]
            func = self.facts[where].functions[qual]
            for root, in_file, line, how in self.own(where, qual):
                if SKIPPED in how and line < func.line:  # a mark of one of its ``params``: the others run
                    how = f"a parameter of it needs {root}"
                out.setdefault(root, (root, in_file, line, how))
            for request, _ in func.requests:
                inner = self.fixture(rel, request, klass, chain[0] if request == name else None)
                for root, (_, in_file, at, how) in inner.items():
                    said = f"fixture {request} ({needed(in_file, at, root, how)})"
                    out.setdefault(root, (root, where, func.line, said))
        self._fixtures[key] = out
        self._open.discard(key)
        return out

    def above(self, rel: str) -> list[str]:
        """The conftests (read) whose folder holds *rel*, nearest first (not *rel* itself)."""
        folder = folder_of(rel)
        if folder not in self._above:
            self._above[folder] = [c for c in self.conftests if below(rel, c) and self.facts.get(c) is not None]
        return [c for c in self._above[folder] if c != rel]

    def _defined(self, rel: str, *, everywhere: bool = False) -> dict[str, list[str]]:
        """Fixture name -> the module-level functions of *rel* defining it (*everywhere*: in classes too)."""
        key = (rel, everywhere)
        if key not in self._defs:
            out: dict[str, list[str]] = {}
            for qual, func in self.facts[rel].functions.items():
                if func.kind == "fixture" and func.fixture and (everywhere or "." not in qual):
                    out.setdefault(func.fixture, []).append(qual)
            self._defs[key] = out
        return self._defs[key]

    def definition(self, rel: str, name: str, klass: str = "") -> Def | None:
        chain = self.chain(rel, name, klass)
        return chain[0] if chain else None

    def autouse(self, rel: str, klass: str = "") -> list[tuple[str, Def]]:
        """(name, definition) of the autouse fixtures a test of *rel* (in *klass*) gets."""
        names: dict[str, None] = {}
        facts = self.facts.get(rel)
        if facts is not None:
            for qual, func in facts.functions.items():
                mine = "." not in qual or (klass and qual.startswith(f"{klass}."))
                if func.kind == "fixture" and func.autouse and func.fixture and mine:
                    names[func.fixture] = None
        for conftest in self.above(rel):
            cf = self.facts[conftest]
            auto = [f.fixture for f in cf.functions.values() if f.kind == "fixture" and f.autouse and f.fixture]
            names.update(dict.fromkeys(auto))
        out = []
        for name in names:
            found = self.definition(rel, name, klass)
            if found is not None and self.facts[found[0]].functions[found[1]].autouse:
                out.append((name, found))
        return out

    def needing(self) -> list[tuple[str, str, Func, dict[str, Need]]]:
        """(conftest, fixture name, its function, its needs) of each conftest fixture that needs a root."""
        out = []
        for conftest in sorted(self.conftests):
            facts = self.facts.get(conftest)
            if facts is None:
                continue
            for _qual, func in facts.functions.items():
                if func.kind == "fixture" and func.fixture:
                    found = self.fixture(conftest, func.fixture)
                    if found:
                        out.append((conftest, func.fixture, func, found))
        return out


#: What a need that is a skip says (``skipped without brainpkg (...)``, ``@needs('x') (skipped without x: ...)``).
SKIPPED = " without "


def needed(where: str, at: int, root: str, how: str) -> str:
    """``tests/conftest.py:5 needs brainpkg`` for a fixture's need *how* of *root*; ``... skipped without brainpkg``
    when it is a skip (the fixture skips on a flag): a test the run skips for a reason naming nothing is then the
    tier's, counted one per test (:mod:`tierlock.pytest_plugin.needs`)."""
    return f"{where}:{at} {'skipped without' if SKIPPED in how else 'needs'} {root}"
