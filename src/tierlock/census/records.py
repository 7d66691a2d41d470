"""The facts of one file as data: its functions (:class:`Func`) and what it says (:class:`FileFacts`).

Both are plain classes with a JSON form (the per-file cache keeps them
between runs), not dataclasses: the pytest plugin imports the census, and
building dataclasses costs time at import.
"""

from __future__ import annotations

TYPE_CHECKING = False  # not typing's: a kept answer re-reading a test file loads this module, not typing
if TYPE_CHECKING:
    from typing import Any


class Func:
    """One function (or method) of a file: what kind it is and what it asks for."""

    __slots__ = ("autouse", "end", "first", "fixture", "kind", "line", "marks", "refs", "requests", "skips", "tiers")

    def __init__(self, kind: str, line: int, end: int, first: int | None = None) -> None:
        self.kind = kind
        """``test``, ``fixture``, ``hook``, ``helper`` or ``module`` (the module's own marks and references)."""
        self.line = line
        self.end = end
        self.first = line if first is None else first
        """The first line of its decorators (where a new decorator goes)."""
        self.fixture: str | None = None
        self.autouse = False
        self.requests: list[tuple[str, int]] = []
        """Fixtures it requests, with the line of each request."""
        self.tiers: list[tuple[str, int]] = []
        """``tier(...)`` markers (its own and its class's), as written."""
        self.skips: list[tuple[str, int]] = []
        """Names whose absence skips it (``skipif(not has_x)``); ``?x``: ``find_spec("x")`` written inline."""
        self.marks: list[tuple[str, int]] = []
        """Decorators that are plain names (mark aliases such as ``@needs_x``)."""
        self.refs: list[str] = []
        """Helpers of the file it refers to (recorded only when a helper of the file needs anything)."""

    def to_json(self) -> list[Any]:
        """The fields as a list, without the empty ones at its end (most functions ask for little)."""
        out: list[Any] = [
            self.kind,
            self.line,
            self.end,
            self.first,
            self.fixture,
            self.autouse,
            self.requests,
            self.tiers,
            self.skips,
            self.marks,
            self.refs,
        ]
        while len(out) > 4 and not out[-1]:
            out.pop()
        return out

    @classmethod
    def from_json(cls, data: Any) -> Func:
        kind, line, end, first, *rest = data
        out = cls(str(kind), int(line), int(end), int(first))
        fixture, autouse, requests, tiers, skips, marks, refs = list(rest) + [None] * (7 - len(rest))
        out.fixture = None if fixture is None else str(fixture)
        out.autouse = bool(autouse)
        if requests:
            out.requests = [(str(n), int(ln)) for n, ln in requests]
        if tiers:
            out.tiers = [(str(n), int(ln)) for n, ln in tiers]
        if skips:
            out.skips = [(str(n), int(ln)) for n, ln in skips]
        if marks:
            out.marks = [(str(n), int(ln)) for n, ln in marks]
        if refs:
            out.refs = [str(r) for r in refs]
        return out


class FileFacts:
    """What one file says (see the module docstring)."""

    def __init__(self) -> None:
        self.imports: list[tuple[str, int, str, str, list[str]]] = []
        """(top-level name, line, how, scope, guards) of each import and importorskip."""
        self.modules: list[tuple[str, int, list[list[str]], int, str, list[str]]] = []
        """(module, relative level, [[name, bound as]...] of a from-import, line, scope, guards): for reach."""
        self.bindings: dict[str, str] = {}
        """Module-level name -> the module an ``import a.b`` / ``import a.b as x`` binds it to (``a`` / ``a.b``)."""
        self.flags: dict[str, list[tuple[str, int, int]]] = {}
        """Availability flag -> the (module, level, line) its truth stands for."""
        self.aliases: dict[str, Func] = {}
        """Mark alias -> its marks (``tiers``, ``skips``, ``marks``), line."""
        self.functions: dict[str, Func] = {}
        """Qualified name (``test_x``, ``TestX.test_y``) -> the function."""
        self.module = Func("module", 1, 1)
        """The module's ``pytestmark`` and the helpers referred to at module level."""
        self.makers: dict[str, list[Any]] = {}
        """Flag maker -> [the position of its parameter naming the module (-1: keyword-only), the kind of each value
        it returns, that parameter's name (``*modules`` for every argument from the position on)]
        (:func:`tierlock.census.makers.flag_maker`): ``def needs(m): return pytest.mark.skipif(find_spec(m) is None,
        ...)`` is ``[0, ["mark"], "m"]``, read where another file calls it."""
        self.made: dict[str, list[Any]] = {}
        """Module-level name -> [the function called, the modules each argument names (by position ``"0"``... or by
        keyword: :func:`tierlock.census.madecalls.made_call`), the name's position among the targets, line, whether the
        call is negated], for ``HAS_X = probe("x")`` / ``requires_x = needs("x")`` / ``NO_X = not probe("x")`` with
        a function imported from elsewhere: a flag or a mark alias when that function is a flag maker of the
        project's (which argument names its module: :func:`tierlock.census.makers.given`)."""

    def tests(self) -> list[str]:
        return [name for name, f in self.functions.items() if f.kind == "test"]

    def to_json(self) -> list[Any]:
        return [
            self.imports,
            self.modules,
            self.bindings,
            dict(self.flags),
            {k: v.to_json() for k, v in self.aliases.items()},
            {k: v.to_json() for k, v in self.functions.items()},
            self.module.to_json(),
            *([self.makers, self.made] if self.makers or self.made else []),
        ]

    @classmethod
    def from_json(cls, data: Any) -> FileFacts:
        imports, modules, bindings, flags, aliases, functions, module, *made = data
        out = cls()
        out.imports = [(str(a), int(b), str(c), str(d), [str(g) for g in e]) for a, b, c, d, e in imports]
        out.modules = [
            (str(a), int(b), [[str(n), str(s)] for n, s in c], int(d), str(e), [str(g) for g in f])
            for a, b, c, d, e, f in modules
        ]
        out.bindings = {str(k): str(v) for k, v in bindings.items()}
        out.flags = {str(k): [(str(m), int(lv), int(ln)) for m, lv, ln in v] for k, v in flags.items()}
        out.aliases = {str(k): Func.from_json(v) for k, v in aliases.items()}
        out.functions = {str(k): Func.from_json(v) for k, v in functions.items()}
        out.module = Func.from_json(module)
        if made:
            makers, calls = made
            out.makers = {
                str(k): [int(i), [str(kind) for kind in kinds], str(p)] for k, (i, kinds, p) in makers.items()
            }
            out.made = {
                str(k): [
                    str(f),
                    {str(a): [str(m) for m in mods] for a, mods in args.items()},
                    int(at),
                    int(ln),
                    bool(n),
                ]
                for k, (f, args, at, ln, n) in calls.items()
            }
        return out
