"""The import rules of ``src/tierlock``: no circles, lazy imports only where listed, no renamed modules.

Function-level imports keep start-up fast, but they hide circles (the
installer's fast path, receipts and target once imported each other). The
graph is read from the sources with :mod:`ast`: every ``import`` and ``from
... import`` anywhere in a module (imports under ``if TYPE_CHECKING:`` are
left out: they never run), a name a package loads lazily (its ``_LAZY`` table)
counted as an import of the module that defines it.

A module keeps imports inside its functions only when it is listed in
:data:`LAZY_IMPORTS` with the reason; every other module imports at its top,
where a reader sees what it depends on. ``docs/explanation/architecture.md``
explains the rules.
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"

_COMMAND = "a command module: the CLI imports every one to build its parser, so the command's work loads when it runs"
_FAST = "on a fast path (probe, check, the pytest plugin, a no-op install, verified): a slower branch loads its own"
_INSTALL = "on the install path, whose no-op must not load the backends, builds or the lock readers"
_LOCKS = "read by check on every run: the formats, backends and tools of one lock load only for that lock"
_TOMLKIT = "writes TOML with tomlkit (heavy), loaded only when a file is written"

#: The modules that keep imports inside functions, and why. Any other module imports at its top.
LAZY_IMPORTS: dict[str, str] = {
    "tierlock._entry": "the console script: a no-op install and verified run on os and sys alone, the CLI loads after",
    "tierlock.fastinstall": "a no-op install read by hand: the receipts' check, json and redaction load as it runs",
    "tierlock.lightpathlib": "loads pathlib itself, with stand-ins in sys.modules for the time of that import",
    "tierlock.cli": "parses the arguments before any command loads; the suggestions and tiers load on a mistake",
    "tierlock.errors": "imported everywhere: difflib loads only for a did-you-mean hint",
    "tierlock.output": "rich loads only for a terminal; plain lines and JSON never need it",
    "tierlock.remedies": "imported by the plugin: re and shlex load only when a remedy is rendered",
    "tierlock.secretkeys": "every printed line is searched: binascii loads only to decode a candidate key",
    "tierlock.secretargs": "read by admit's runtime config check: shlex loads only for an argument with spaces",
    "tierlock.interrupts": "installed by every command before it starts: the signal modules load when it is armed",
    "tierlock.armplan": "checked before the install's imports: the digest loads only for a plan found",
    "tierlock.earlyarm": "runs before the install's imports: the lock, the process, the scratch folder load when used",
    "tierlock.earlyyield": "lowers the priority at the early start: resource loads only for a user who is not root",
    "tierlock.spawning": "starts a process before subprocess loads: subprocess only when the process is handed over",
    "tierlock.subproc": "the one subprocess helper: threads and redaction load only when a process is started",
    "tierlock.environment": _FAST,
    "tierlock.venvbase": "loaded with the target on a fast path: shlex only when a venv's remaking is said",
    "tierlock.earlysweep": "swept beside an early backend: shutil loads only when a killed lock's folder is removed",
    "tierlock.targetmodel": _FAST,
    "tierlock.selfinstall": _FAST,
    "tierlock.wheeltags": _FAST,
    "tierlock.admission": "admit runs the probe, check, census and validators only for the parts a job asks about",
    "tierlock.evidence.answer": "verified from the pre-push hook: redaction (re) loads only when a line is printed",
    "tierlock.evidence.discovery": "verified from the pre-push hook: tomllib and re load only for a TOML config",
    "tierlock.evidence.view": "rich loads only when a terminal shows live progress",
    "tierlock.validators.schema": "jsonschema (heavy) loads only when a document is checked, not to print the schema",
    "tierlock.census.fixing": _TOMLKIT,
    "tierlock.tiers.init": _TOMLKIT,
    "tierlock.tiers.pytest_marker": _TOMLKIT,
    "tierlock.tiers.rendering": _TOMLKIT,
    "tierlock.tiers.uvinit": _TOMLKIT,
    "tierlock.lockfiles.projectpin": _TOMLKIT,
    "tierlock.tiers.platforms": _FAST,
    "tierlock._lazy": "every command loads it: typing loads only when a module's Literal alias is first asked for",
    "tierlock.tiers.reader": "reads every pyproject.toml: difflib loads only for a did-you-mean hint",
    "tierlock.tiers.projectmeta": "every command reads the metadata: dependency groups load for a project with groups",
    "tierlock.projectparts": "a kept answer checks a changed pyproject.toml with os and tomllib; fsutil loads to read",
    "tierlock.frozen": "the value classes every command builds: dataclasses loads only to copy a dataclass",
    "tierlock.targetcache": "asked by each command naming an interpreter: the cache folder loads on a miss",
    "tierlock.indexopts": "in install-tier's parser: the lock backends load only when an index option is given",
    "tierlock.installer.rearm": "status and probe ask it per tier: packaging loads only for a receipt it must read",
    "tierlock.lockfiles.lock": "the lock worker: the check and the reach load only when a lock is written",
    "tierlock.lockfiles.locktier": "the lock worker: the pin diff loads only when a lock is written",
    **{
        f"tierlock.lockfiles.{name}": _LOCKS
        for name in (
            "artifacts",
            "resolvers",
            "check",
            "committed",
            "coverage",
            "digest",
            "foreignpylock",
            "markers",
            "origins",
            "locks",
            "nobuild",
            "pylock",
            "fileread",
            "requirements",
            "siblings",
            "sources",
            "uvdrift",
            "uvread",
        )
    },
    **{
        f"tierlock.census.{name}": "check runs the census on every project: its rarer branches load their own"
        for name in ("attribute", "cache", "engine", "keptresult", "projectcensus", "report", "summary")
    },
    "tierlock.gateoff": "check reads one pytest configuration file: the readers of the other kinds stay unloaded",
    "tierlock.outsidepython": "probe, status and admit ask on every tier not present: a Python inside loads nothing",
    "tierlock.keptrun": "a kept answer loads what reads a changed test file or pyproject.toml only when one changed",
    "tierlock.keptseal": "a kept answer given only reads its entry: the atomic writer loads when one is sealed",
    "tierlock.lockkept": "a kept lock starts its compiles first: the checks of all else it rests on load beside them",
    "tierlock.keptloose": "a kept answer loads what reads a changed pyproject.toml's parts only when it changed",
    "tierlock.keptedit": "a changed test file's facts, then the census worked out again, each only when needed",
    "tierlock.keptrecord": "a recorded run digests the census's facts only when the census ran (probe never does)",
    "tierlock.census.factdigest": "a kept answer loads json only when a changed test file's facts must be compared",
    **{
        f"tierlock.probing{name}": _FAST
        for name in (
            ".distcache",
            ".distprobe",
            ".distfiles",
            ".distinfo",
            ".distribution",
            ".wholekept",
            ".facts",
            ".filechecks",
            ".libcache",
            ".libraries",
            ".libremedy",
            ".metadata",
            ".project",
            ".record",
            ".required",
            ".site",
            ".tier",
            ".tierremedy",
            ".verdict",
        )
    },
    **{
        f"tierlock.pytest_plugin{name}": "the pytest plugin: each test run pays its start-up; a branch loads its own"
        for name in (
            "",
            ".caches",
            ".collection",
            ".decision",
            ".hidden",
            ".needs",
            ".project_state",
            ".selection",
            ".startup",
            ".static_items",
        )
    },
    **{
        f"tierlock.installer.{name}": _INSTALL
        for name in (
            "applying",
            "backendrun",
            "backends",
            "builds",
            "creation",
            "fastpath",
            "inventory",
            "leftovers",
            "location",
            "locking",
            "lockload",
            "preflight",
            "projecttree",
            "receiptfiles",
            "receipts",
            "removal",
            "request",
            "run",
            "selfguard",
            "status",
            "target",
            "treestep",
            "verification",
        )
    },
    **{
        f"tierlock.commands.{name}": _COMMAND
        for name in (
            "admit",
            "census",
            "check",
            "completion",
            "export",
            "init",
            "install",
            "lock",
            "lock_dry_run",
            "matrix",
            "platforms",
            "probe",
            "remove",
            "schema",
            "setup_command",
            "status",
            "validate",
            "verified",
            "verify",
        )
    },
}

#: Modules that may import a command module: the CLI and its entry points.
_ABOVE_COMMANDS = ("tierlock.cli", "tierlock._entry", "tierlock.__main__", "tierlock.commands")
#: Modules of other work that still rename a module at import; none may join them.
_RENAMES_LEFT: set[str] = set()


@functools.cache
def _trees() -> dict[str, ast.Module]:
    return {name: ast.parse(path.read_text(encoding="utf-8")) for name, path in _modules().items()}


@functools.cache
def _modules() -> dict[str, Path]:
    out: dict[str, Path] = {}
    for path in SRC.rglob("*.py"):
        name = ".".join(path.relative_to(SRC).with_suffix("").parts)
        out[name.removesuffix(".__init__")] = path
    return out


def _lazy(tree: ast.Module) -> dict[str, str]:
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "_LAZY" for t in node.targets):
            table = ast.literal_eval(node.value)
            assert isinstance(table, dict)
            return {str(k): str(v) for k, v in table.items()}
    return {}


def _type_checking_only(tree: ast.Module) -> set[int]:
    skip: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
            skip.update(id(inner) for inner in ast.walk(node))
    return skip


def _function_level_imports() -> dict[str, list[str]]:
    """Module -> the modules it imports inside its functions (``TYPE_CHECKING`` blocks left out)."""
    found: dict[str, list[str]] = {}
    for name, tree in _trees().items():
        skip = _type_checking_only(tree)
        for function in ast.walk(tree):
            if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            for node in ast.walk(function):
                if id(node) in skip:
                    continue
                if isinstance(node, ast.ImportFrom):
                    found.setdefault(name, []).append(node.module or ".")
                elif isinstance(node, ast.Import):
                    found.setdefault(name, []).extend(alias.name for alias in node.names)
    return found


def _graph() -> dict[str, set[str]]:
    modules = _modules()
    trees = _trees()
    lazy = {name: _lazy(tree) for name, tree in trees.items()}
    graph: dict[str, set[str]] = {}
    for name, tree in trees.items():
        skip = _type_checking_only(tree)
        found: set[str] = set()
        for node in ast.walk(tree):
            if id(node) in skip:
                continue
            if isinstance(node, ast.ImportFrom) and node.module and not node.level:
                for alias in node.names:
                    whole = f"{node.module}.{alias.name}"
                    found.add(whole if whole in modules else lazy.get(node.module, {}).get(alias.name, node.module))
            elif isinstance(node, ast.Import):
                found.update(alias.name for alias in node.names)
        graph[name] = {m for m in found if m in modules and m != name}
    return graph


def _circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for start, first in graph.items():
        if start in index:
            continue
        work = [(start, iter(sorted(first)))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_no_module_of_tierlock_imports_itself_through_others() -> None:
    assert _circles(_graph()) == []


def test_the_circle_finder_finds_a_circle() -> None:
    assert _circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_only_the_listed_fast_path_modules_import_inside_functions() -> None:
    unlisted = {name: sorted(set(mods)) for name, mods in _function_level_imports().items() if name not in LAZY_IMPORTS}
    assert unlisted == {}, "import these at the top of the module, or list the module in LAZY_IMPORTS with the reason"


def test_every_module_listed_for_lazy_imports_still_has_them_and_says_why() -> None:
    found = _function_level_imports()
    assert sorted(name for name in LAZY_IMPORTS if name not in found) == []
    assert [name for name, why in LAZY_IMPORTS.items() if len(why) < 20] == []


def test_nothing_below_the_commands_imports_a_command_module() -> None:
    graph = _graph()
    offenders = {
        name: sorted(m for m in targets if m.startswith("tierlock.commands"))
        for name, targets in graph.items()
        if not name.startswith(_ABOVE_COMMANDS)
    }
    assert {name: found for name, found in offenders.items() if found} == {}
    assert "tierlock.commands.verify" not in graph["tierlock.evidence.config"]


def _renamed_modules(name: str, tree: ast.Module, modules: dict[str, Path]) -> list[str]:
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [f"{a.name} as {a.asname}" for a in node.names if a.asname and a.name in modules]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found += [
                f"{node.module}.{a.name} as {a.asname}"
                for a in node.names
                if a.asname and a.asname != a.name and f"{node.module}.{a.name}" in modules
            ]
    return found


def test_no_module_is_imported_under_another_name() -> None:
    modules = _modules()
    renamed = {}
    for name, tree in _trees().items():
        found = _renamed_modules(name, tree, modules)
        if found and name not in _RENAMES_LEFT:
            renamed[name] = found
    assert renamed == {}, "import the module under its own name (rename a clashing local instead)"


def test_the_rename_finder_finds_a_module_imported_under_another_name() -> None:
    tree = ast.parse("from tierlock.installer import target as where\nfrom tierlock.errors import Problem as P\n")
    modules = {"tierlock.installer.target": Path(), "tierlock.errors": Path()}
    assert _renamed_modules("m", tree, modules) == ["tierlock.installer.target as where"]


#: Basenames still shared by two packages, kept while their owners reshape them; none may join them.
_SHARED_NAMES_LEFT: set[str] = set()


def test_no_two_packages_hold_a_module_of_the_same_name() -> None:
    """A command module and the core it drives may share a name (``commands/verify.py``, ``evidence/verify.py``)."""
    seen: dict[str, list[str]] = {}
    for name in _modules():
        parts = name.split(".")
        if len(parts) > 2 and parts[1] != "commands" and parts[-1] not in _SHARED_NAMES_LEFT:
            seen.setdefault(parts[-1], []).append(name)
    assert {base: names for base, names in seen.items() if len(names) > 1} == {}
