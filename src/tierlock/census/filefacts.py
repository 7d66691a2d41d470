"""What one Python file says, read with :mod:`ast` (never imported): the raw material of the census.

:func:`read_file` records, whatever the tiers:

* every import and ``pytest.importorskip`` with its line, the function it is
  in (its *scope*; ``""`` is the module, class bodies included: they run at
  import) and its *guards*: the names tested by the ``if`` statements around
  it, or ``try`` for an import under ``try: ... except ImportError``.
  Imports under ``if TYPE_CHECKING:`` never run and are not recorded;
* availability flags: ``try: import x`` (or ``importlib.metadata.version("x")``)
  ``... except ImportError: has_x = False`` (or ``x = None``), ``has_x = find_spec("x") is not None``,
  module-level functions without arguments whose ``except ImportError`` returns a constant
  (``def x_not_available(): try: import x ... except ImportError: return True``), and flag tables
  (``HAS = {name: find_spec(name) is not None for name in ("x", "y")}``, read as ``HAS["x"]``):
  :mod:`.flagfacts`;
* mark aliases: ``needs_x = pytest.mark.skipif(not has_x, ...)`` or
  ``pytest.mark.tier("x")`` bound to a name at module level;
* each function: a test (``test*``, in a module or a ``Test*`` class), a
  fixture, a pytest hook or a helper; the fixtures it requests (parameters,
  ``usefixtures``, ``request.getfixturevalue("literal")``), its ``tier``
  markers, the flags whose absence skips it, the aliases it is marked with,
  and (when a helper needs anything) the helpers it refers to.
"""

from __future__ import annotations

import ast
import gc
import sys

from tierlock.census.astnames import dotted, literal
from tierlock.census.flagfacts import derived, failed_first, flag_function, table_flags, try_flags, unwrap
from tierlock.census.hookmarks import HOOKS, PREFIX, hook_skips
from tierlock.census.madecalls import made_call
from tierlock.census.makers import IMPORTERS, flag_maker, given
from tierlock.census.marks import (
    EITHER,
    INVERTED,
    SPEC,
    absent,
    catches_import_error,
    decorator,
    dispatch,
    guard_names,
    is_test_case,
    kind_of,
    leaves,
    marks_of,
    refs,
    skips,
    spec_flag,
    type_checking,
)
from tierlock.census.mentions import Mentions, first_line
from tierlock.census.records import FileFacts, Func
from tierlock.census.walking import walk

__all__ = ["FileFacts", "Func", "read_file"]

_STDLIB = frozenset(sys.stdlib_module_names)
#: What :meth:`_Reader.called` looks for (``pytest.importorskip("x")``, ``request.getfixturevalue("x")``).
_ASKS = ("importorskip", "getfixturevalue")
#: What a skipping statement names (:func:`~.marks.skips`: ``pytest.skip``, ``skipTest``, ``SkipTest``, ``xfail``).
_SKIPS = ("skip", "Skip", "xfail")


def read_file(source: str, filename: str = "<test>") -> FileFacts:
    """The facts of one Python source (a file that does not parse has none).

    The cyclic garbage collector is paused while the file is parsed and read: a tree of :mod:`ast` nodes and the
    facts hold no reference cycle (each is freed by its count), so the collections its tens of thousands of
    nodes would start find nothing to free, and cost a twentieth of a census worked out from nothing. It runs
    again after, if it ran before."""
    running = gc.isenabled()
    gc.disable()
    try:
        return _read(source, filename)
    finally:
        if running:
            gc.enable()


def _read(source: str, filename: str) -> FileFacts:
    try:
        tree = ast.parse(source, filename)
    except (SyntaxError, ValueError, RecursionError):  # (a chain of thousands of operators is too deep to build)
        return FileFacts()
    words = ("importorskip", "mark.", "getfixturevalue", "skip", "SkipTest", "find_spec", "xfail")
    calls = any(w in source for w in words)
    facts = FileFacts()
    reader = _Reader(facts, calls, Mentions(source))
    try:
        reader.body(tree.body, "", (), None)
        reader.refer(tree)
    except RecursionError:  # (a tree too deep to walk: read as a file that does not parse, as pytest would fail it)
        return FileFacts()
    return facts


class _Reader:
    """One pass over the statements (expressions are looked into only where a call or a mark can be)."""

    def __init__(self, facts: FileFacts, calls: bool, text: Mentions) -> None:
        self.facts = facts
        self.calls = calls
        self.text = text
        """The source's lines: a walk is left out where they name none of what it looks for."""
        self.asks = calls and text.any(_ASKS)
        self.nodes: dict[str, ast.FunctionDef | ast.AsyncFunctionDef] = {}
        """Qualified name -> its node, for :meth:`refer`."""
        self.makers: dict[str, tuple[int, list[str]]] = {}
        """Module-level function -> (its parameter naming the module, what it returns): :func:`flag_maker`."""

    def body(self, stmts: list[ast.stmt], scope: str, guards: tuple[str, ...], cls: Func | None) -> None:
        for child in stmts:
            self.statement(child, scope, guards, cls)
            if scope and isinstance(child, ast.If) and leaves(child.body):
                guards = (*guards, *dispatch(child.test))  # `if "x" not in name: return` guards what follows

    def statement(self, child: ast.stmt, scope: str, guards: tuple[str, ...], cls: Func | None) -> None:
        if isinstance(child, (ast.Import, ast.ImportFrom)):
            self.imported(child, scope, guards)
        elif isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
            self.function(child, scope, guards, cls)
        elif isinstance(child, ast.ClassDef):
            self.klass(child, scope, guards, cls)
        elif isinstance(child, ast.If):
            self.branch(child, scope, guards, cls)
        elif isinstance(child, (ast.Try, ast.TryStar)):
            self.attempt(child, scope, guards, cls)
        elif isinstance(child, (ast.Assign, ast.AnnAssign)) and not scope:
            self.assigned(child, guards, cls)
        elif isinstance(child, (ast.Expr, ast.Assign, ast.AnnAssign, ast.AugAssign, ast.Return)):
            if self.calls:
                self.called(child, scope, guards)
        else:
            self.nested(child, scope, guards, cls)

    def nested(self, child: ast.stmt, scope: str, guards: tuple[str, ...], cls: Func | None) -> None:
        """The statements inside a ``for``, ``while``, ``with`` or ``match``."""
        for name in ("body", "orelse", "finalbody", "handlers", "cases"):
            for sub in getattr(child, name, None) or ():
                if isinstance(sub, ast.stmt):
                    self.statement(sub, scope, guards, cls)
                elif isinstance(sub, (ast.ExceptHandler, ast.match_case)):
                    self.body(sub.body, scope, guards, cls)

    def imported(self, node: ast.Import | ast.ImportFrom, scope: str, guards: tuple[str, ...]) -> None:
        facts = self.facts
        if isinstance(node, ast.Import):
            for alias in node.names:
                root = alias.name.split(".")[0]
                facts.imports.append((root, node.lineno, f"import {alias.name}", scope, list(guards)))
                facts.modules.append((alias.name, 0, [], node.lineno, scope, list(guards)))
                if not scope:
                    bound = alias.asname or root
                    facts.bindings[bound] = alias.name if alias.asname else root
            return
        module = node.module or ""
        if node.level == 0 and module:
            facts.imports.append((module.split(".")[0], node.lineno, f"from {module} import", scope, list(guards)))
        names = [[a.name, a.asname or a.name] for a in node.names]
        facts.modules.append((module, node.level, names, node.lineno, scope, list(guards)))

    def branch(self, node: ast.If, scope: str, guards: tuple[str, ...], cls: Func | None) -> None:
        if type_checking(node.test):
            self.body(node.orelse, scope, guards, cls)
            return
        inner = (*guards, *guard_names(node.test))
        if (
            self.calls
            and self.text.lines(first_line(node.body[0]), node.body[-1].end_lineno, _SKIPS)
            and any(skips(s) for s in node.body)
        ):
            # a test's own ``if not has_x: pytest.skip()``, or the module's (``allow_module_level=True``)
            func = self.facts.functions.get(scope) if scope else self.facts.module
            if func is not None:
                func.skips.extend((n, node.lineno) for n in absent(node.test))
        self.body(node.body, scope, (*inner, *dispatch(node.test)), cls)  # the branch taken for those names
        self.body(node.orelse, scope, inner, cls)

    def attempt(self, node: ast.Try | ast.TryStar, scope: str, guards: tuple[str, ...], cls: Func | None) -> None:
        caught = [h for h in node.handlers if catches_import_error(h)]
        # An import whose failure skips (``except ImportError: pytest.skip(...)``) is needed, not guarded: the test
        # (or, at module level, the file) is skipped without it.
        guarded = caught and not any(skips(s) for h in caught for s in h.body)
        inner = (*guards, "try") if guarded else guards
        self.body(node.body, scope, inner, cls)
        fallback = (*guards, *failed_first(node.body))  # (an ``except ImportError:`` importing another instead)
        for handler in node.handlers:
            self.body(handler.body, scope, fallback if handler in caught else guards, cls)
        self.body(node.orelse, scope, inner, cls)
        self.body(node.finalbody, scope, guards, cls)
        if caught and not scope:
            try_flags(node, self.facts)

    def assigned(self, node: ast.Assign | ast.AnnAssign, guards: tuple[str, ...], cls: Func | None) -> None:
        """Module (or class body) assignments: ``pytestmark``, mark aliases, ``find_spec`` flags, calls."""
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        names = [t.id for t in targets if isinstance(t, ast.Name)]
        value = node.value
        if value is None:
            return
        if cls is None and isinstance(node, ast.Assign) and "pytestmark" not in names and self.made_any(node):
            return
        if "pytestmark" in names:
            if cls is None:  # a class's pytestmark was read with the class
                marks_of(value, self.facts.module, node.lineno, decorator=False)
        elif cls is None:
            self.flagged(names, value, node.lineno)
        if self.calls:
            self.called(node, "", guards)

    def flagged(self, names: list[str], value: ast.expr, line: int) -> None:
        """A module-level ``find_spec`` flag, mark alias, flag table or flag computed from a flag bound to *names*."""
        spec = spec_flag(value)
        if spec is not None:
            for name in names:
                self.facts.flags[name] = [(spec, 0, line)]
        elif isinstance(value, ast.Call) and ".mark." in f".{dotted(value.func)}":
            alias = Func("alias", line, line)
            marks_of(value, alias, line, decorator=False)
            if alias.tiers or alias.skips or alias.marks:
                for name in names:
                    self.facts.aliases[name] = alias
        elif not table_flags(names, value, line, self.facts, self.makers):
            # (``HAS = {name: find_spec(name) is not None for name in (...)}``: a flag per entry, above)
            entries = derived(value, line)  # ``NO_X = not HAS_X``, ``HAS_X = x is not None``
            for name in names if entries else ():
                self.facts.flags.setdefault(name, entries)  # type: ignore[arg-type]

    def made_any(self, node: ast.Assign) -> bool:
        """Whether the module-level assignment *node* calls a flag maker of this file (:meth:`made`: nothing else to
        read); a call of one from elsewhere is kept too (:meth:`made_elsewhere`)."""
        if self.made(node.targets, node.value, node.lineno):
            return True
        self.made_elsewhere(node.targets, node.value, node.lineno)
        return False

    def made(self, targets: list[ast.expr], value: ast.expr, line: int) -> bool:
        """``has_x, requires_x = _importorskip("x")`` with a :func:`flag_maker`: a flag and a mark alias for ``x``;
        ``NO_X = not has("x")``: a flag true without ``x``."""
        inner, negated = unwrap(value)
        made = made_call(inner)
        if made is None or made[0] not in self.makers or len(targets) != 1:
            return False
        kinds = self.makers[made[0]][1]
        found = given(self.facts.makers[made[0]], made[1])  # (``_importorskip(modname="x")``, ``needs(*modules)``)
        target = targets[0]
        names = target.elts if isinstance(target, (ast.Tuple, ast.List)) else [target]
        if not found or len(names) != len(kinds) or (negated and kinds != ["flag"]):
            return False
        call = f"{made[0]}({found[0]!r}) at {line}"  # the flag a made mark reads (no file names it)
        self.facts.flags[call] = [(m, 0, line) for m in found]
        for name, kind in zip(names, kinds, strict=True):
            if not isinstance(name, ast.Name):
                continue
            if kind == "flag":
                self.facts.flags[name.id] = [*((m, 0, line) for m in found), *([INVERTED] if negated else [])]
            elif kind in ("mark", "either"):  # (``either``: a skip only when none of them is there)
                alias = Func("alias", line, line)
                alias.skips.append((call if kind == "mark" else EITHER.join(SPEC + m for m in found), line))
                self.facts.aliases[name.id] = alias
        return True

    def made_elsewhere(self, targets: list[ast.expr], value: ast.expr, line: int) -> None:
        """``HAS_X = probe("x")`` / ``has_x, requires_x = _importorskip("x")`` / ``NO_X = not probe("x")`` calling a
        function imported from a module of the project's (not the standard library's): kept in
        :attr:`FileFacts.made`, a flag or a mark alias when that function is a flag maker
        (:class:`~tierlock.census.firstparty.Reach` finds out)."""
        inner, negated = unwrap(value)
        made = made_call(inner)
        if made is None or len(targets) != 1 or not self._imported_from_elsewhere(made[0]):
            return
        callee, args = made
        target = targets[0]
        names = target.elts if isinstance(target, (ast.Tuple, ast.List)) else [target]
        for at, name in enumerate(names):
            if isinstance(name, ast.Name):
                self.facts.made[name.id] = [callee, args, at, line, negated]

    def _imported_from_elsewhere(self, callee: str) -> bool:
        """Whether *callee* (``probe``, ``helpers.probe``) is bound at module level by an import of a module that is
        not the standard library's."""
        head, _, rest = callee.partition(".")
        if rest:
            bound = self.facts.bindings.get(head)
            return bound is not None and bound.split(".")[0] not in _STDLIB
        return any(
            not scope and (level or module.split(".")[0] not in _STDLIB) and any(b == head for _, b in names)
            for module, level, names, _line, scope, _guards in self.facts.modules
        )

    def called(self, statement: ast.stmt, scope: str, guards: tuple[str, ...]) -> None:
        if not (self.asks and self.text.lines(statement.lineno, statement.end_lineno, _ASKS)):
            return
        for node in walk(statement):
            if not isinstance(node, ast.Call):
                continue
            name = dotted(node.func)
            if (name == "importorskip" or name.endswith(".importorskip")) and node.args:
                text = literal(node.args[0])
                if text is not None:
                    how = f"importorskip({text!r})"
                    self.facts.imports.append((text.split(".")[0], node.lineno, how, scope, list(guards)))
                    # (a module of the project's: what its import needs, the test file needs to run)
                    self.facts.modules.append((text, 0, [], node.lineno, scope, list(guards)))
            elif name.endswith("getfixturevalue") and node.args and scope in self.facts.functions:
                text = literal(node.args[0])
                if text is not None:
                    self.facts.functions[scope].requests.append((text, node.lineno))

    def function(
        self, node: ast.FunctionDef | ast.AsyncFunctionDef, scope: str, guards: tuple[str, ...], cls: Func | None
    ) -> None:
        if scope:  # a function inside a function: part of its scope
            self.body(node.body, scope, guards, None)
            return
        qual = f"{self._class}.{node.name}" if cls is not None else node.name
        first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
        func = Func(kind_of(node, cls), node.lineno, getattr(node, "end_lineno", None) or node.lineno, first)
        for deco in node.decorator_list:
            decorator(deco, func)
        if func.kind == "fixture" and func.fixture is None:
            func.fixture = node.name
        if func.kind in ("test", "fixture"):
            args = node.args
            func.requests.extend((a.arg, node.lineno) for a in (*args.posonlyargs, *args.args, *args.kwonlyargs))
            func.requests = [r for r in func.requests if r[0] not in ("self", "cls")]  # a method's own argument
        if cls is not None and func.kind == "test":
            func.tiers.extend(cls.tiers)
            func.skips.extend(cls.skips)
            func.marks.extend(cls.marks)
            func.requests.extend(cls.requests)
        self.facts.functions[qual] = func
        self.nodes[qual] = node
        if cls is None and func.kind == "hook" and node.name in HOOKS:
            for mark, names in hook_skips(node).items():  # ``"gpu" in item.keywords and not HAS``: a skip
                alias = self.facts.aliases.setdefault(PREFIX + mark, Func("alias", node.lineno, node.lineno))
                alias.skips.extend((n, node.lineno) for n in names)
        if cls is None and func.kind == "helper":
            flag_function(node, self.facts)
            maker = flag_maker(node) if self.text.lines(first, node.end_lineno, IMPORTERS) else None
            if maker is not None:
                self.makers[node.name] = maker[:2]
                self.facts.makers[node.name] = list(maker)
        self.body(node.body, qual, guards, None)

    _class = ""

    def klass(self, node: ast.ClassDef, scope: str, guards: tuple[str, ...], outer: Func | None = None) -> None:
        tests = node.name.startswith("Test") or is_test_case(node)  # pytest collects a TestCase by any name
        inner = bool(self._class) and outer is not None and outer.kind == "class" and tests
        if scope or (self._class and not inner):  # a class inside a function or a helper class: its statements
            self.body(node.body, scope, guards, None)  # belong there
            return
        marks = Func("class", node.lineno, getattr(node, "end_lineno", None) or node.lineno)
        if inner and outer is not None:  # a test class inside a test class: pytest collects it, the outer's marks on
            for name in ("tiers", "skips", "marks", "requests"):  # it (``TestOuter::TestInner::test_x``)
                getattr(marks, name).extend(getattr(outer, name))
        for deco in node.decorator_list:
            decorator(deco, marks)
        for stmt in node.body:  # pytestmark anywhere in the class body applies to every method
            if isinstance(stmt, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == "pytestmark" for t in stmt.targets
            ):
                marks_of(stmt.value, marks, stmt.lineno, decorator=False)
        enclosing = self._class
        self._class = f"{enclosing}.{node.name}" if inner else node.name
        try:
            self.body(node.body, "", guards, marks if tests else Func("helpers", node.lineno, node.lineno))
        finally:
            self._class = enclosing

    def refer(self, tree: ast.Module) -> None:
        """Record which helpers each function (and the module) refers to, when a helper needs anything."""
        facts = self.facts
        helpers = {q for q, f in facts.functions.items() if f.kind == "helper"}
        needy = {scope for root, _, _, scope, _ in facts.imports if scope in helpers and root not in _STDLIB}
        needy.update(
            s for m, lv, _, _, s, _ in facts.modules if s in helpers and (lv or m.split(".")[0] not in _STDLIB)
        )
        needy.update(q for q in helpers if facts.functions[q].skips)
        if not needy:
            return
        short = {q.rsplit(".", 1)[-1] for q in helpers} | {q.split(".", 1)[0] for q in helpers if "." in q}
        for qual, node in self.nodes.items():
            if self.text.names(first_line(node), node.end_lineno, short):
                facts.functions[qual].refs = refs(node, short)
        module_refs: list[str] = []
        for stmt in tree.body:
            defined = isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
            if not defined and self.text.names(stmt.lineno, stmt.end_lineno, short):
                module_refs.extend(refs(stmt, short))
        facts.module.refs = sorted(set(module_refs))
