"""What the rest of the census can read of one file's facts: a conftest or a helper module edited so that only what
nothing reads changed leaves the census's result as it was, without the census worked out again.

Every part of the census reads a file's facts through a few ways, and each way reads only some of them:

* a file that imports or names another (:class:`~tierlock.census.firstparty.Reach`) reads its module level: the
  imports of a tier's root and of other modules, the names they bind, its flags and mark aliases
  (:func:`module_view`). A project module's functions are never read: the census does not follow a call into
  another module's function.
* a conftest's or a test file's functions are read by name: its fixtures and tests, its ``pytestmark``, and the
  helpers of the file they refer to (:func:`function_view`); a helper nothing reachable refers to, a hook, is
  never read.
* an import of a module that is not the project's and not a tier's (the standard library's, a plugin's) reads
  as nothing (:class:`Foreign`): looked up, it resolves to no file and needs no root.

When each way reads the same of a changed file as the recorded census read (the same facts, in the same order,
lines included), every answer the census worked out is the same, in whatever order it was asked: the result is
the same (:func:`tierlock.census.rerun.readers_hold`). A fixture added that nothing requests, not autouse, is
read only by the census's list of the fixtures that need a root: it is worked out alone (needing nothing, it is
not in the list).
"""

from __future__ import annotations

import marshal

from tierlock.census.factdigest import digest

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import Any

    from tierlock.census.firstparty import ModuleIndex
    from tierlock.census.records import FileFacts, Func


class Foreign:
    """Whether ``import MODULE`` (or ``from MODULE import ...``) in a file can run no file of the project (*index*):
    absolute, and its first name is neither a module, a package nor a folder of files (a namespace package) in any
    folder the import is looked for in."""

    def __init__(self, index: ModuleIndex) -> None:
        self.index = index
        self.folders: set[str] = set()
        for rel in index.files:
            parts = rel.split("/")[:-1]
            self.folders.update("/".join(parts[: n + 1]) for n in range(len(parts)))
        self._known: dict[tuple[str, str], bool] = {}

    def __call__(self, module: str, level: int, rel: str) -> bool:
        if level or not module:
            return False
        head = module.split(".", 1)[0]
        base = self.index.basedir(rel)
        found = self._known.get((head, base))
        if found is None:
            found = self._known[head, base] = not any(
                self.index.locate(head, place) is not None or (f"{place}/{head}" if place else head) in self.folders
                for place in (base, *self.index.paths)
            )
        return found


def module_view(facts: FileFacts, rel: str, foreign: Foreign, roots: Iterable[str]) -> bytes:
    """The digest of what a file that imports *rel*, or names something of it, can read of its *facts*: the module
    level imports of a root, of other modules (a foreign one left out when no other import binds its names the
    same way: it reads as nothing) and the names they bind, the flags and mark aliases."""
    wanted = set(roots)
    level = [entry for entry in facts.modules if not entry[4]]
    dropped = _inert(facts, rel, foreign, level)
    bound = [(k, v) for k, v in facts.bindings.items() if not (foreign(v, 0, rel) and _unshadowed(k, level))]
    return digest(
        [
            [list(item) for item in facts.imports if not item[3] and item[0] in wanted],
            [list(entry) for n, entry in enumerate(level) if n not in dropped],
            sorted(bound),
            [[k, v] for k, v in facts.flags.items()],
            [[k, _endless(v)] for k, v in facts.aliases.items()],
            sorted(facts.makers.items()),
            sorted(facts.made.items()),
        ]
    )


def _inert(facts: FileFacts, rel: str, foreign: Foreign, level: list[Any]) -> set[int]:
    """The module-level imports of *level* that read as nothing: foreign, and each name one binds bound by no
    other import, with no star import of the project's beside them (through which the name could
    still be a flag the census counts)."""
    out = {n for n, (module, lv, *_rest) in enumerate(level) if foreign(module, lv, rel)}
    if any(original == "*" for n, entry in enumerate(level) if n not in out for original, _ in entry[2]):
        return set()
    # (a name that is also a flag or an alias is one either way: the census finds those first, counts them anyway)
    taken = set(facts.bindings) | {bound for n, entry in enumerate(level) if n not in out for _, bound in entry[2]}
    return {n for n in out if not any(bound in taken for _, bound in level[n][2])}


def _unshadowed(name: str, level: list[Any]) -> bool:
    """Whether no module-level ``from ... import`` binds *name*, nor imports ``*`` (an ``import`` binding it then
    shadows nothing the census could find)."""
    return not any(bound == name or original == "*" for entry in level for original, bound in entry[2])


def function_view(facts: FileFacts, rel: str, foreign: Foreign, roots: Iterable[str]) -> list[Any]:
    """What the census reads of the functions of the conftest or test file *rel*: in order, each fixture, test,
    and helper one of them (or the module) refers to, with the imports of its own scope (a foreign one left out),
    the module's ``pytestmark`` and references, and whether it has any function (its result shows its tests then)."""
    wanted = set(roots)
    scoped: dict[str, list[Any]] = {}
    for item in facts.imports:
        if item[3] and item[0] in wanted:
            scoped.setdefault(item[3], []).append(list(item))
    for entry in facts.modules:
        if entry[4] and not foreign(entry[0], entry[1], rel):
            scoped.setdefault(entry[4], []).append(list(entry))
    out: list[Any] = [bool(facts.functions), _endless(facts.module)]
    read = reachable(facts)
    out.extend([qual, _endless(func), scoped.get(qual, [])] for qual, func in facts.functions.items() if qual in read)
    return out


def reachable(facts: FileFacts, start: Iterable[str] | None = None) -> set[str]:
    """The functions of *facts* the census can read: the fixtures and tests (or the functions of *start*), and
    every helper one of them, or the module, refers to, through any chain (each reference as
    :meth:`~tierlock.census.fixtures.Needs.helpers` resolves it, or more)."""
    functions = facts.functions
    todo = [q for q, f in functions.items() if f.kind in ("fixture", "test")] if start is None else list(start)
    seen = set(todo)
    refs = [("", ref) for ref in facts.module.refs]
    while todo or refs:
        if todo:
            qual = todo.pop()
            klass = qual.split(".", 1)[0] if "." in qual else ""
            refs.extend((klass, ref) for ref in functions[qual].refs)
            continue
        klass, ref = refs.pop()
        for helper, func in functions.items():
            named = helper in (ref, f"{klass}.{ref}") or helper.startswith(f"{ref}.")
            if named and func.kind == "helper" and helper not in seen:
                seen.add(helper)
                todo.append(helper)
    return seen


def lineless(facts: FileFacts) -> FileFacts:
    """*facts* with every line number 0 (an edit that only moved lines - a line added above - gives the same)."""
    imports, modules, bindings, flags, aliases, functions, module, *made = facts.to_json()
    zeroed = [made[0], {k: [*v[:3], 0, *v[4:]] for k, v in made[1].items()}] if made else []
    return type(facts).from_json(
        [
            [[root, 0, how, scope, guards] for root, _line, how, scope, guards in imports],
            [[name, level, names, 0, scope, guards] for name, level, names, _line, scope, guards in modules],
            bindings,
            {k: [[name, level, 0] for name, level, _line in v] for k, v in flags.items()},
            {k: _zeroed(v) for k, v in aliases.items()},
            {k: _zeroed(v) for k, v in functions.items()},
            _zeroed(module),
            *zeroed,
        ]
    )


def _zeroed(func: list[Any]) -> list[Any]:
    """A function's facts (:meth:`~tierlock.census.records.Func.to_json`) with every line 0."""
    kind, _line, _end, _first, *rest = func
    return [
        kind,
        0,
        0,
        0,
        *([[name, 0] for name, _at in part] if n in (2, 3, 4, 5) else part for n, part in enumerate(rest)),
    ]


def names_file(result: Any, rel: str) -> bool:
    """Whether the census's *result* (:func:`~tierlock.census.summary.canonical`, or its ``marshal`` bytes) names the
    file *rel* anywhere but as a file with no test (a conftest's entry among the files' tests): every line of a file
    that reaches the result comes with its name (the file of a use, or ``where:line`` in what it says)."""
    data = result if isinstance(result, bytes) else marshal.dumps(result)
    name = rel.encode()
    if name not in data:  # (a name is kept as its bytes: not in them, in no string)
        return False
    kind, fields = marshal.loads(data)
    shown = [[k, [pair for pair in v if pair != [rel, []]] if k == "tests" else v] for k, v in fields]
    return name in marshal.dumps([kind, shown])


def _endless(func: Func) -> list[Any]:
    """A function's facts without where it ends (no part of the census reads it)."""
    data = func.to_json()
    return [*data[:2], *data[3:]]


def requested(facts: Iterable[FileFacts]) -> list[str]:
    """Every fixture name any function of *facts* requests, and every autouse fixture's name: the names whose
    look-up a fixture added under that name could change."""
    out: set[str] = set()
    for each in facts:
        for func in each.functions.values():
            out.update(name for name, _line in func.requests)
            if func.autouse and func.fixture:
                out.add(func.fixture)
    return sorted(out)
