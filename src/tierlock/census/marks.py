"""Conditions and marks, read from :mod:`ast` nodes: what a decorator, a ``pytestmark`` or an ``if`` says.

``skipif(not has_x)``, ``skipif(x is None)`` and ``if not has_x: pytest.skip()``
skip when ``has_x`` (or ``x``) is false: the test needs what the flag stands
for. ``skipif(has_x)`` is the opposite (the test runs only without it) and
needs nothing.
"""

from __future__ import annotations

import ast

from tierlock.census.astnames import dotted, literal
from tierlock.census.madecalls import made_mark
from tierlock.census.records import Func
from tierlock.census.walking import walk
from tierlock.importnames import import_names

#: A skip token for ``find_spec("x")`` written inline: ``?x`` means "skipped when x is absent".
SPEC = "?"
#: A guard token for a string the condition around an import compares with: ``"pandas" in constructor_name``
#: picks a backend by name at run time (``=pandas``).
NAMED = "="
#: A skip token for a flag function's call that is true without its root: ``skipif(x_not_available())`` is
#: ``!x_not_available``; such a function's flag entries carry :data:`INVERTED`.
NEGATED = "!"
#: The flag entry (module, level, line) that marks a flag function true when its import fails.
INVERTED = (NEGATED, 0, 0)
#: What joins the alternatives of a skip token that any one of them satisfies: ``skipif(not (has_x or has_y))``
#: is ``has_x|has_y`` (skipped only when every one is absent), and, at the head of a guard, a root whose import
#: failed for the code under it to run (``except ImportError: lib = pytest.importorskip("y")`` after ``import x``:
#: ``|x``). The flag entry :data:`ANY` marks a flag true with any one of its entries (``HAS = HAS_X or HAS_Y``).
EITHER = "|"
#: The flag entry (module, level, line) that marks a flag true when any one of its other entries is.
ANY = (EITHER, 0, 0)
FIXTURE_DECORATORS = ("pytest.fixture", "fixture", "pytest_asyncio.fixture")
_IMPORT_ERRORS = (
    "ImportError",
    "ModuleNotFoundError",
    "PackageNotFoundError",
    "DistributionNotFound",
    "Exception",
    "BaseException",
)


def is_test_case(node: ast.ClassDef) -> bool:
    """A ``unittest.TestCase`` subclass as written (``unittest.TestCase``, ``IsolatedAsyncioTestCase``): pytest
    collects it whatever its name or ``python_classes`` says."""
    return any(dotted(base).endswith("TestCase") for base in node.bases)


def _spec(node: ast.expr) -> str | None:
    """The module of ``find_spec("x")`` / ``importlib.util.find_spec("x")``."""
    if isinstance(node, ast.Call) and dotted(node.func).endswith("find_spec") and node.args:
        return literal(node.args[0])
    return None


def spec_test(node: ast.expr) -> tuple[ast.expr, bool] | None:
    """The argument of the ``find_spec(X)`` a condition asks, and whether the condition is true when X is found:
    ``find_spec(X)``, ``bool(find_spec(X))``, ``find_spec(X) is not None`` -> (X, True); ``find_spec(X) is None``,
    ``not find_spec(X)`` -> (X, False). None for any other condition."""
    found = True
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        node, found = node.operand, False
    if isinstance(node, ast.Call) and dotted(node.func) == "bool" and len(node.args) == 1:
        node = node.args[0]
    if isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], (ast.Is, ast.IsNot)):
        nothing = node.comparators[0]
        if not (isinstance(nothing, ast.Constant) and nothing.value is None):
            return None
        found = found != isinstance(node.ops[0], ast.Is)
        node = node.left
    if isinstance(node, ast.Call) and dotted(node.func).endswith("find_spec") and node.args:
        return node.args[0], found
    return None


def table_key(node: ast.AST) -> str | None:
    """``HAS.x`` for a flag table's entry read as ``HAS["x"]``, ``HAS.get("x")`` or ``"x" in HAS`` (the table a
    name or attribute chain, the key a literal): the flag *x* of the table (:mod:`.flagfacts`)."""
    table: ast.expr | None = None
    key: str | None = None
    if isinstance(node, ast.Subscript):
        table, key = node.value, literal(node.slice)
    elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get" and node.args:
        table, key = node.func.value, literal(node.args[0])
    elif isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], ast.In):
        table, key = node.comparators[0], literal(node.left)
    base = dotted(table) if isinstance(table, (ast.Name, ast.Attribute)) else ""
    return f"{base}.{key}" if base and key else None


def present(node: ast.expr) -> list[str]:
    """Names whose truth the condition *node* needs (``has_x``, ``has_a and has_b``, ``find_spec("x")``,
    ``HAS["x"]``)."""
    spec = _spec(node)
    if spec is not None:
        return [SPEC + spec]
    key = table_key(node)
    if key is not None:
        return [key]
    name = dotted(node) if isinstance(node, (ast.Name, ast.Attribute)) or _bare_call(node) else ""
    if name:
        return [name]
    if isinstance(node, ast.BoolOp) and isinstance(node.op, ast.And):
        return [n for value in node.values for n in present(value)]
    if isinstance(node, ast.BoolOp):  # ``has_x or has_y``: true with either one
        return either([present(value) for value in node.values])
    return []


def either(parts: list[list[str]]) -> list[str]:
    """The one token a condition true when any one of *parts* is stands for (``has_x|has_y``): each part one name
    whose truth it needs; none when a part names none (or several: ``(has_x and has_y) or has_z`` is left out),
    as the condition may then hold without any root."""
    if any(len(part) != 1 for part in parts):
        return []
    return [EITHER.join(dict.fromkeys(part[0] for part in parts))]


def _compares_to_nothing(node: ast.expr, ops: tuple[type[ast.cmpop], ...]) -> bool:
    """``x is None`` / ``x == False`` (with *ops* ``Is``, ``Eq``) or ``x is not None`` (``IsNot``, ``NotEq``)."""
    if not isinstance(node, ast.Compare) or len(node.ops) != 1 or not isinstance(node.ops[0], ops):
        return False
    other = node.comparators[0]
    return isinstance(other, ast.Constant) and other.value in (None, False)


def absent(node: ast.expr) -> list[str]:
    """Names whose absence makes the condition *node* true (``not has_x``, ``x is None``, ``... or not has_y``)."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        return present(node.operand)
    if isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], ast.NotIn):
        key = table_key(ast.Compare(node.left, [ast.In()], node.comparators))  # ``"x" not in AVAILABLE``
        return [key] if key is not None else []
    if _compares_to_nothing(node, (ast.Is, ast.Eq)):
        return present(node.left)  # type: ignore[attr-defined]
    if isinstance(node, ast.BoolOp) and isinstance(node.op, ast.And):  # ``not has_x and not has_y``: neither there
        parts = [found for found in (absent(value) for value in node.values) if found]
        # (a part that names nothing, ``"gpu" in item.keywords``, is what else the skip asks: left as it was)
        return either(parts) if len(parts) > 1 else [n for part in parts for n in part]
    if isinstance(node, ast.BoolOp):
        return [n for value in node.values for n in absent(value)]
    if (_bare_call(node) or isinstance(node, (ast.Name, ast.Attribute))) and dotted(node):
        # a flag true without its root: ``x_not_available()``, ``NO_X = not has("x")`` read as ``skipif(NO_X)``
        return [NEGATED + dotted(node)]
    return []


def condition(node: ast.expr) -> ast.expr:
    """The expression a skip condition given as a string stands for (``skipif("not has_x")``: pytest evaluates it
    in the test module's namespace); any other node as it is, a string that is no expression as it is."""
    text = literal(node)
    if text is None:
        return node
    try:
        return ast.parse(text.strip(), mode="eval").body
    except (SyntaxError, ValueError, RecursionError):
        return node


def _bare_call(node: ast.expr) -> bool:
    """A call without arguments (``has_x()``): a flag function's call, when the function is one."""
    return isinstance(node, ast.Call) and not node.args and not node.keywords


def guard_names(node: ast.expr) -> list[str]:
    """Every name and attribute chain read in *node* (the guards of an ``if``)."""
    out = []
    for sub in walk(node):
        key = table_key(sub)
        if key is not None:
            out.append(key)  # ``if HAS["x"]:`` guards as the flag it reads
        if isinstance(sub, (ast.Name, ast.Attribute)):
            name = dotted(sub)
            if name:
                out.append(name)
    return out


def type_checking(node: ast.expr) -> bool:
    return dotted(node) in ("TYPE_CHECKING", "typing.TYPE_CHECKING", "t.TYPE_CHECKING")


def catches_import_error(handler: ast.ExceptHandler) -> bool:
    if handler.type is None:
        return True
    kinds = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
    return any(dotted(k).rsplit(".", 1)[-1] in _IMPORT_ERRORS for k in kinds)


def refs(node: ast.AST, wanted: set[str]) -> list[str]:
    out: set[str] = set()
    for sub in walk(node):
        if isinstance(sub, ast.Name) and sub.id in wanted:
            out.add(sub.id)
        elif isinstance(sub, ast.Attribute) and sub.attr in wanted and dotted(sub.value) in ("self", "cls"):
            out.add(sub.attr)
    return sorted(out)


def kind_of(node: ast.FunctionDef | ast.AsyncFunctionDef, cls: Func | None) -> str:
    if any(dotted(d) in FIXTURE_DECORATORS for d in node.decorator_list):
        return "fixture"
    if node.name.startswith("pytest_"):
        return "hook"
    if node.name.startswith("test") and (cls is None or cls.kind == "class"):
        return "test"
    return "helper"


def decorator(deco: ast.expr, func: Func) -> None:
    name = dotted(deco)
    if name in FIXTURE_DECORATORS:
        func.fixture = None
        if isinstance(deco, ast.Call):
            for kw in deco.keywords:
                if kw.arg == "name" and literal(kw.value) is not None:
                    func.fixture = literal(kw.value)
                if kw.arg == "autouse" and isinstance(kw.value, ast.Constant):
                    func.autouse = bool(kw.value.value)
                if kw.arg == "params" and isinstance(kw.value, (ast.List, ast.Tuple)):
                    marks_of(kw.value, func, deco.lineno, decorator=True)  # ``pytest.param("x", marks=...)``
        return
    marks_of(deco, func, deco.lineno, decorator=True)


def marks_of(value: ast.expr, into: Func, line: int, *, decorator: bool) -> None:
    """The marks in a decorator or a ``pytestmark`` value (a mark, a name, or a list of them)."""
    items = value.elts if isinstance(value, (ast.List, ast.Tuple)) and not decorator else [value]
    for item in items:
        own = project_mark(item) or made_mark(item)
        if own is not None:  # ``@pytest.mark.gpu``: a hook of a conftest may skip it (:mod:`.hookmarks`)
            into.marks.append((own, line))
        if isinstance(item, (ast.Name, ast.Attribute)):
            name = dotted(item)
            if name and not name.startswith(("pytest.", "mark.")):
                into.marks.append((name, line))
            continue
        tier = _tier_mark(item)
        if tier is not None:
            into.tiers.append((tier, line))
        for sub in walk(item):
            if not isinstance(sub, ast.Call):
                continue
            name = dotted(sub.func)
            if name.endswith(("mark.skipif", "mark.xfail")):  # ``xfail(not has_x)`` runs the test only to fail
                conditions = [*sub.args[:1], *(k.value for k in sub.keywords if k.arg == "condition")]
                into.skips.extend((n, line) for c in conditions for n in absent(condition(c)))
            elif name in ("pytest.param", "param"):  # ``pytest.param(..., marks=needs_x)``: a param's mark aliases
                into.marks.extend((n, line) for k in sub.keywords if k.arg == "marks" for n in _named(k.value))
            elif _unittest(name, "skipIf") and sub.args:
                into.skips.extend((n, line) for n in absent(sub.args[0]))
            elif _unittest(name, "skipUnless") and sub.args:
                into.skips.extend((n, line) for n in present(sub.args[0]))
            elif name.endswith("mark.usefixtures"):
                into.requests.extend((t, line) for t in (literal(a) for a in sub.args) if t is not None)


#: pytest's own marks and tierlock's: no hook of a project skips through them.
BUILTIN_MARKS = frozenset({"skip", "skipif", "xfail", "parametrize", "usefixtures", "filterwarnings", "tier"})
#: How a project's own mark is kept among a function's marks (``pytest.mark.gpu``).
MARK = "pytest.mark."


def project_mark(node: ast.expr) -> str | None:
    """``pytest.mark.gpu`` for ``@pytest.mark.gpu`` / ``@mark.gpu(...)``: a mark of the project's own, not pytest's."""
    name = dotted(node)
    for head in (MARK, "mark."):
        if name.startswith(head) and name.count(".") == head.count("."):
            bare = name[len(head) :]
            return None if bare in BUILTIN_MARKS else MARK + bare
    return None


def _named(value: ast.expr) -> list[str]:
    """The mark aliases a ``marks=`` value names (a name, or a list or tuple of them; pytest's own left out)."""
    items = value.elts if isinstance(value, (ast.List, ast.Tuple)) else [value]
    names = [dotted(i) if isinstance(i, (ast.Name, ast.Attribute)) else made_mark(i) or "" for i in items]
    return [n for n in names if n and not n.startswith(("pytest.", "mark."))]


def _unittest(name: str, decorator: str) -> bool:
    """``unittest.skipIf`` / ``skipIf`` (*decorator* ``skipIf`` or ``skipUnless``), however ``unittest`` is named."""
    return name == decorator or name.endswith("." + decorator)


def _tier_mark(node: ast.expr) -> str | None:
    """The tier named by ``pytest.mark.tier("x")`` / ``mark.tier(name="x")``."""
    if not isinstance(node, ast.Call) or not dotted(node.func).endswith("mark.tier"):
        return None
    args = [*node.args, *(k.value for k in node.keywords if k.arg == "name")]
    return literal(args[0]) if args else None


def skips(stmt: ast.stmt) -> bool:
    """Whether the statement skips: ``pytest.skip(...)``, ``self.skipTest(...)``, ``raise unittest.SkipTest(...)``."""
    return any(_skip_call(n) or _skip_raise(n) for n in walk(stmt))


def _skip_call(node: ast.AST) -> bool:
    if not isinstance(node, ast.Call):
        return False
    name = dotted(node.func)
    return name in ("pytest.skip", "skip", "pytest.xfail") or name.endswith(".skipTest")


def _skip_raise(node: ast.AST) -> bool:
    """``raise SkipTest(...)`` / ``raise unittest.SkipTest`` / ``raise pytest.skip.Exception(...)``."""
    if not isinstance(node, ast.Raise) or node.exc is None:
        return False
    name = dotted(node.exc)
    return name in ("SkipTest", "pytest.skip.Exception") or name.endswith(".SkipTest")


#: ``importlib.metadata.version("x")`` and its kin: a lookup of an installed distribution that raises
#: ``PackageNotFoundError`` (``DistributionNotFound`` for ``pkg_resources``) when it is not installed.
_LOOKUPS = frozenset({"version", "distribution", "get_distribution"})
_LOOKUP_HOMES = frozenset({"", "metadata", "importlib.metadata", "importlib_metadata", "pkg_resources"})


def looked_up(call: ast.Call) -> tuple[str, ...]:
    """The import names of the distribution ``importlib.metadata.version("x")`` looks up (``metadata.version``,
    ``version`` imported from it, ``distribution``, ``pkg_resources.get_distribution``; the name a literal): what
    a flag set by it stands for (``python-dotenv`` -> ``dotenv``). Empty for any other call."""
    home, _, name = dotted(call.func).rpartition(".")
    if name not in _LOOKUPS or home not in _LOOKUP_HOMES or not call.args:
        return ()
    arg = call.args[0]
    return import_names(arg.value) if isinstance(arg, ast.Constant) and isinstance(arg.value, str) and arg.value else ()


def spec_flag(value: ast.expr) -> str | None:
    """The module of ``find_spec("x") is not None`` / ``bool(find_spec("x"))`` / ``find_spec("x")``."""
    if isinstance(value, ast.Call) and dotted(value.func) == "bool" and value.args:
        value = value.args[0]
    spec = _spec(value)
    if spec is not None:
        return spec
    if isinstance(value, ast.Compare) and len(value.ops) == 1 and isinstance(value.ops[0], ast.IsNot):
        return _spec(value.left)
    return None


def dispatch(test: ast.expr) -> list[str]:
    """``=text`` for each string a condition compares with (a backend picked by name: ``library == "dask"``)."""
    return [NAMED + n.value.lower() for n in walk(test) if isinstance(n, ast.Constant) and isinstance(n.value, str)]


def leaves(body: list[ast.stmt]) -> bool:
    """Whether a block ends the function or the test (``return``, ``raise``, ``pytest.skip(...)``)."""
    if not body:
        return False
    last = body[-1]
    if isinstance(last, (ast.Return, ast.Raise)):
        return True
    if not isinstance(last, ast.Expr) or not isinstance(last.value, ast.Call):
        return False
    return _skip_call(last.value) or dotted(last.value.func).endswith("skip")
