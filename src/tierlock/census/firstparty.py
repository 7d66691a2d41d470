"""Reach through the project's own modules: what importing a first-party module needs, and what a name means.

A test that imports ``proj.readxml`` needs what ``proj/readxml.py`` imports
at module level, unguarded, and so on through the project's own modules
(``proj/__init__.py`` included: importing ``proj.readxml`` runs it first).
A module is first-party when its file is in the project: below the project
root, ``src/``, pytest's ``pythonpath``, or the first folder above the test
file without an ``__init__.py`` (where pytest's default import mode puts it).

The module index (which file a module name stands for) is :mod:`.moduleindex`'s.

Names are followed the same way: ``from jwt.algorithms import has_crypto``
makes ``has_crypto`` the flag that ``jwt/algorithms.py`` sets in its
``try: import cryptography ... except ImportError``; ``from .utils import
crypto_required`` makes ``@crypto_required`` the mark alias of
``tests/utils.py``. Everything is memoised: each module is looked at once.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from tierlock.census.flagfacts import SAME
from tierlock.census.makers import given
from tierlock.census.marks import ANY, EITHER, INVERTED, NAMED, NEGATED, SPEC
from tierlock.census.moduleindex import ModuleIndex, folder_of
from tierlock.census.records import FileFacts, Func

# (the module index lives in .moduleindex, read from here too)
__all__ = ["ModuleIndex", "Need", "Reach", "folder_of", "ranked"]

#: (root, file, line, how): one need, where it finally comes from.
Need = tuple[str, str, int, str]


def ranked(tiers: Iterable[Sequence[str]]) -> list[str]:
    """The roots of *tiers* (each tier's roots, in the project's order), the root of the smallest tier first (the
    fewest roots, then the first declared, then by name): of several alternatives (``has_x or has_y``) the need is
    that of the one first here (:meth:`Reach.either`), the same whichever way the census is worked out."""
    best: dict[str, tuple[int, int]] = {}
    for order, roots in enumerate(tiers):
        for root in roots:
            best[root] = min(best.get(root, (len(set(roots)), order)), (len(set(roots)), order))
    return sorted(best, key=lambda root: (best[root], root))


class Reach:
    """Import-time needs of project modules, and what a name read in a file stands for."""

    def __init__(self, index: ModuleIndex, facts: Mapping[str, FileFacts], roots: Iterable[str]) -> None:
        self.index = index
        self.facts = facts
        self.roots = frozenset(roots)
        self.rank = {root: at for at, root in enumerate(roots)} if isinstance(roots, (list, tuple)) else {}
        """Root -> its place among the alternatives of an any-of need (:func:`ranked`; by name when not given)."""
        self._needs: dict[str, dict[str, Need]] = {}
        self._imports: dict[str, list[str]] = {}
        self._scoped: dict[str, tuple[dict[str, list[Any]], dict[str, list[Any]]]] = {}
        self._symbols: dict[tuple[str, str], tuple[str, str, str] | None] = {}
        self._open: set[tuple[str, str]] = set()
        self.cycles: set[str] = set()
        """The files of the look-ups (here and in :class:`~tierlock.census.fixtures.Needs`) met again while still
        being worked out: a cycle, cut short. Without one, every answer is the same in whatever order the files
        are looked at (a kept answer then works out one test file alone: :mod:`tierlock.census.rerun`)."""
        self.missing: set[str] = set()
        """The files an answer found without facts (not read, or not parsed) since :meth:`again`."""
        self._met = 0  # how often a file without facts, or an answer resting on one, was met
        self._unsure: tuple[set[tuple[str, str]], set[str], set[str], set[str]] = (set(), set(), set(), set())
        """The remembered answers (symbols, module needs, edges, scoped facts) that rest on a file without facts."""

    def again(self, added: Iterable[str]) -> bool:
        """Make every remembered answer the one a new :class:`Reach` over the same facts gives, now that the files
        *added* have facts: when one of them was found missing, every answer resting on a file without facts is
        forgotten (the others looked only at facts that do not change). False when a cycle was cut short: the
        answers then depend on the order they were asked in, and a new :class:`Reach` is needed."""
        if self.cycles:
            return False
        if not self.missing.isdisjoint(added):
            symbols, needs, edges, scoped = self._unsure
            for key in symbols:
                del self._symbols[key]
            for rel in needs:
                del self._needs[rel]
            for rel in edges:
                del self._imports[rel]
            for rel in scoped:
                del self._scoped[rel]
            self._unsure = (set(), set(), set(), set())
            self.missing.clear()
        return True

    # -- names ------------------------------------------------------------------------
    def symbol(self, rel: str, name: str) -> tuple[str, str, str] | None:
        """What *name* read in *rel* is: ``("flag" | "alias" | "module", file, name)``, or None."""
        key = (rel, name)
        if key in self._symbols:
            if key in self._open:
                self.cycles.add(rel)
            elif key in self._unsure[0]:
                self._met += 1
            return self._symbols[key]
        self._symbols[key] = None  # a cycle of imports means nothing
        self._open.add(key)
        met = self._met
        found = self._symbols[key] = self._lookup(rel, name)
        self._open.discard(key)
        if self._met != met:
            self._unsure[0].add(key)
        return found

    def _lookup(self, rel: str, name: str) -> tuple[str, str, str] | None:
        facts = self.facts.get(rel)
        if facts is None:
            self._missed(rel)
            return None
        if name in facts.flags and self._holds(rel, facts.flags[name]):
            return ("flag", rel, name)
        if name in facts.aliases:
            return ("alias", rel, name)
        if name in facts.makers:
            return ("maker", rel, name)
        if name in facts.made:
            kind = self.made_kind(rel, name)
            return None if kind is None else (kind, rel, name)
        head = name.partition(".")[0]
        if head in facts.bindings:  # import a.b [as x]: the longest module prefix that is a project file
            parts = [*facts.bindings[head].split("."), *name.split(".")[1:]]
            for cut in range(len(parts), 0, -1):
                found = self.index.resolve(".".join(parts[:cut]), 0, (), rel)
                # (the file of that very module: ``a.b.TABLE`` resolves to a.b's file too, which is not TABLE's)
                if found and cut < len(parts) and _is_module(found[-1], parts[cut - 1]):
                    return self.symbol(found[-1], ".".join(parts[cut:]))
            return None
        for module, level, names, _line, scope, _guards in facts.modules:
            for original, bound in names if not scope else ():
                if bound == head or original == "*":
                    hit = self._imported_name(rel, (module, level, original, bound), name)
                    if hit is not None:
                        return hit
        return None

    def _imported_name(self, rel: str, source: tuple[str, int, str, str], name: str) -> tuple[str, str, str] | None:
        """What *name* is, when it comes from ``from MODULE import ORIGINAL as BOUND`` (or ``*``) in *rel*."""
        module, level, original, bound = source
        found = self.index.resolve(module, level, [[original, bound]] if original != "*" else (), rel)
        if not found:
            return None
        target = found[-1]
        if original == "*":
            return self.symbol(target, name)
        rest = name.partition(".")[2]
        if target.endswith((f"/{original}.py", f"/{original}/__init__.py")):  # a submodule
            return ("module", target, "") if not rest else self.symbol(target, rest)
        return self.symbol(target, original + (f".{rest}" if rest else ""))

    def _holds(self, rel: str, entries: Sequence[tuple[str, int, int]]) -> bool:
        """Whether a flag's entries stand for something: each flag one names (``NO_X = not HAS_X``: ``@HAS_X``) is
        a flag where *rel* reads it (a name that is none makes ``X = not Y`` no flag); of several (``HAS_X and
        HAS_Y``), each true with its root (``HAS_X and NO_Y`` is true with neither alone: no flag)."""
        hits = [self.symbol(rel, module[len(SAME) :]) for module, _level, _line in entries if module.startswith(SAME)]
        if not all(hit is not None and hit[0] == "flag" for hit in hits):
            return False
        several = len([e for e in entries if e not in (INVERTED, ANY)]) > 1
        return not several or not any(self.inverted(hit[1], hit[2]) for hit in hits if hit is not None)

    def maker(self, rel: str, name: str, args: Mapping[str, list[str]]) -> tuple[str, list[str], list[str]] | None:
        """The flag maker *name* read in *rel* (a module's own, or imported): (its file, what it returns, the modules
        the call's arguments *args* give it: :func:`~tierlock.census.makers.given`), when they give it some."""
        hit = self.symbol(rel, name)
        if hit is None or hit[0] != "maker":
            return None
        maker = self.facts[hit[1]].makers[hit[2]]
        found = given(maker, args)
        return (hit[1], maker[1], found) if found else None

    def made_kind(self, rel: str, name: str) -> str | None:
        """``flag`` or ``alias`` for the name *name* that ``name = maker("x")`` binds in *rel*, else None."""
        callee, args, at, _line, negated = self.facts[rel].made[name]
        found = self.maker(rel, callee, args)
        if found is None or at >= len(found[1]) or (negated and found[1] != ["flag"]):
            return None
        return {"flag": "flag", "mark": "alias", "either": "alias"}.get(found[1][at])

    def inverted(self, rel: str, name: str) -> bool:
        """Whether the flag *name* of *rel* is true without what it stands for: a flag function's ``except
        ImportError: return True``, ``NO_X = not has("x")``, ``NO_X = not HAS_X`` (an inverted flag's inverse
        is not), through imports."""
        facts = self.facts[rel]
        if name not in facts.flags:
            return bool(facts.made[name][4]) if name in facts.made else False
        entries = facts.flags[name]
        flip = INVERTED in entries
        for module, _level, _line in entries:
            hit = self.symbol(rel, module[len(SAME) :]) if module.startswith(SAME) else None
            if hit is not None and hit[0] == "flag":
                return flip != self.inverted(hit[1], hit[2])
        return flip

    def guarded(self, rel: str, guards: Sequence[str]) -> bool:
        """Whether code under these guards runs only when what it imports is there (``try``, ``if has_x``), or runs
        only after imports failed whose roots are all none of the census's (an ``except ImportError:`` falling back
        to another package: ``|x``; the package tried first may well be there, and then nothing of it runs)."""
        failed = [g[len(EITHER) :] for g in guards if g.startswith(EITHER)]
        if failed and not any(root in self.roots for root in failed):
            return True
        for guard in guards:
            if guard.startswith((NAMED, EITHER)):
                continue
            if guard == "try" or guard.startswith(SPEC):
                return True
            hit = self.symbol(rel, guard)
            if hit is not None and hit[0] == "flag":
                return True
        return False

    @staticmethod
    def dispatched(root: str, guards: Sequence[str]) -> bool:
        """Whether code needing *root* runs only when a condition picks it by name (``"pandas" in name``)."""
        wanted = root.lower()
        return any(g.startswith(NAMED) and wanted in g[len(NAMED) :] for g in guards)

    def flag_needs(self, rel: str, name: str) -> list[Need]:
        """What the flag *name* of *rel* stands for: each root it tries to import (through project modules too, and
        through the flags it is computed from)."""
        facts = self.facts[rel]
        out: dict[str, Need] = {}
        made = facts.made.get(name) if name not in facts.flags else None
        maker = self.maker(rel, made[0], made[1]) if made is not None else None
        entries = [(m, 0, made[3]) for m in maker[2]] if made is not None and maker else facts.flags.get(name, ())
        parts = [self._entry_needs(rel, *entry) for entry in entries if entry not in (INVERTED, ANY)]
        for need in self.either(parts) if ANY in entries else [n for part in parts for n in part]:
            out.setdefault(need[0], need)
        return list(out.values())

    def either(self, parts: Sequence[list[Need]]) -> list[Need]:
        """The needs of a condition true with any one of *parts* (each what one alternative needs): none when an
        alternative needs no root of the census's (it may be there: a base package, or a tier that is present),
        else those of the one whose first root is first in :attr:`rank` (the smallest tier's), the fewest first, each
        saying which others would do (``tries pyarrow; runs with polars too``)."""
        if not parts or not all(parts):
            return []
        last = len(self.rank)
        chosen = min(parts, key=lambda part: (len(part), min((self.rank.get(n[0], last), n[0]) for n in part)))
        others = ", ".join(dict.fromkeys(n[0] for part in parts if part is not chosen for n in part))
        return [(root, rel, line, f"{how}; runs with {others} too") for root, rel, line, how in chosen]

    def _entry_needs(self, rel: str, module: str, level: int, line: int) -> list[Need]:
        """What one flag entry of *rel* stands for: the flag it is computed from (:data:`SAME`), what importing a
        project module needs, or the root it tries."""
        if module.startswith(SAME):
            hit = self.symbol(rel, module[len(SAME) :])  # (a flag: a cycle of them is none, :meth:`_holds`)
            return self.flag_needs(hit[1], hit[2]) if hit is not None and hit[0] == "flag" else []
        found = self.index.resolve(module, level, (), rel) if module else []
        if found:
            return [need for target in found for need in self.module_needs(target).values()]
        root = module.split(".", maxsplit=1)[0]
        return [(root, rel, line, f"tries {root}")] if level == 0 and root in self.roots else []

    def skip_needs(self, rel: str, name: str) -> list[Need]:
        """The roots whose absence the skip condition name *name* (read in *rel*) stands for (``has_x|has_y``: the
        roots of one alternative, :meth:`either`)."""
        if EITHER in name:
            return self.either([self.skip_needs(rel, part) for part in name.split(EITHER)])
        if name.startswith(SPEC):
            root = name[len(SPEC) :].split(".", maxsplit=1)[0]
            return [(root, rel, 0, f"find_spec({root!r})")] if root in self.roots else []
        negated = name.startswith(NEGATED)
        hit = self.symbol(rel, name[len(NEGATED) :] if negated else name)
        if hit is None or hit[0] != "flag":
            return []
        if self.inverted(hit[1], hit[2]) != negated:
            return []  # the condition skips when the root is there (``skipif(has_x())``): it needs nothing
        return self.flag_needs(hit[1], hit[2])

    def alias(self, rel: str, name: str) -> tuple[str, Func] | None:
        """The mark alias *name* read in *rel*: (the file defining it, its marks)."""
        hit = self.symbol(rel, name)
        if hit is None or hit[0] != "alias":
            return None
        facts = self.facts[hit[1]]
        if hit[2] in facts.aliases:
            return hit[1], facts.aliases[hit[2]]
        callee, args, at, line, _negated = facts.made[hit[2]]  # ``requires_x = needs("x")``: without x
        found = self.maker(hit[1], callee, args)
        alias = Func("alias", line, line)
        specs = [SPEC + m for m in (found[2] if found is not None else ())]
        either = found is not None and found[1][at] == "either"  # (``needs_any("x", "y")``: without both)
        alias.skips.extend([(EITHER.join(specs), line)] if either else [(spec, line) for spec in specs])
        return hit[1], alias

    # -- modules ----------------------------------------------------------------------
    def module_needs(self, rel: str) -> dict[str, Need]:
        """Root -> need, for what importing the project module *rel* imports, unguarded, at module level.

        Every module the import runs (through any chain, cycles included) is
        visited once, breadth first: the need named is the nearest.
        """
        if rel in self._needs:  # (no remembered answer asks for one: the walk below follows the edges itself)
            return self._needs[rel]
        met = self._met
        out: dict[str, Need] = {}
        seen = {rel}
        queue = [rel]
        while queue:
            here = queue.pop(0)
            for root, need in self._own_needs(here).items():
                out.setdefault(root, need)
            for target in self._edges(here):
                if target not in seen:
                    seen.add(target)
                    queue.append(target)
        self._needs[rel] = out
        if self._met != met:
            self._unsure[1].add(rel)
        return out

    def _own_needs(self, rel: str) -> dict[str, Need]:
        out: dict[str, Need] = {}
        for root, line, how, _scope, guards in self.scoped(rel)[0].get("", ()):
            if root not in out and not self.guarded(rel, guards):
                out[root] = (root, rel, line, how)
        return out

    def _edges(self, rel: str) -> list[str]:
        if rel not in self._imports:
            met = self._met
            self._imports[rel] = [target for target, _how, _line in self.imported(rel, "")]
            if self._met != met:
                self._unsure[2].add(rel)
        elif rel in self._unsure[2]:
            self._met += 1
        return self._imports[rel]

    def imported(self, rel: str, scope: str) -> list[tuple[str, str, int]]:
        """(project file, how, line) of each project module the scope *scope* of *rel* imports, unguarded."""
        out: list[tuple[str, str, int]] = []
        for module, level, names, line, _where, guards in self.scoped(rel)[1].get(scope, ()):
            if self.guarded(rel, guards):
                continue
            how = f"from {'.' * level}{module} import" if names else f"import {module}"
            out.extend((target, how, line) for target in self.index.resolve(module, level, names, rel))
        return out

    def scoped(self, rel: str) -> tuple[dict[str, list[Any]], dict[str, list[Any]]]:
        """The imports and the module imports of *rel*, each by scope (a function's, or ``""``)."""
        if rel in self._unsure[3]:
            self._met += 1
        if rel not in self._scoped:
            imports: dict[str, list[Any]] = {}
            modules: dict[str, list[Any]] = {}
            facts = self.facts.get(rel)
            if facts is None:
                self._missed(rel)
                self._unsure[3].add(rel)
            for item in facts.imports if facts is not None else ():
                if item[0] in self.roots:
                    imports.setdefault(item[3], []).append(item)
            for entry in facts.modules if facts is not None else ():
                modules.setdefault(entry[4], []).append(entry)
            self._scoped[rel] = (imports, modules)
        return self._scoped[rel]

    def _missed(self, rel: str) -> None:
        """A file without facts met (see :meth:`again`)."""
        self.missing.add(rel)
        self._met += 1

    def interesting(self, rel: str) -> bool:
        """Whether the module *rel* needs a root at import, or defines a flag or a mark alias others can use."""
        facts = self.facts.get(rel)
        if facts is None:
            return False
        made = any(self.made_kind(rel, name) for name in facts.made)
        return bool(self.module_needs(rel) or facts.flags or facts.aliases or facts.makers or made) or any(
            self.exported(rel, bound)
            for _module, _level, names, _line, scope, _guards in facts.modules
            if not scope
            for _original, bound in names
        )

    def exported(self, rel: str, name: str) -> bool:
        """Whether the name *name* of *rel* is a flag or a mark alias (its own or imported)."""
        hit = self.symbol(rel, name)
        return hit is not None and hit[0] in ("flag", "alias", "maker")


def _is_module(rel: str, name: str) -> bool:
    """Whether the project file *rel* is the module (or package) *name*."""
    return f"/{rel}".endswith((f"/{name}.py", f"/{name}/__init__.py"))
