"""The census: which test files need which tier, read statically (never importing them).

:func:`census` reads every test file and ``conftest.py`` under the given
folders with :mod:`ast` and finds, per tier, the places that need it:

* ``import root`` / ``from root.x import y`` of one of the tier's import roots,
  at module level or inside a function, class or fixture;
* ``pytest.importorskip("root...")``;
* ``@pytest.mark.tier("name")`` (and ``pytestmark = pytest.mark.tier(...)``);
* the use of a ``conftest.py`` fixture that needs a root (a parameter of that
  name, ``usefixtures("name")``, or every file below the conftest for an
  ``autouse`` fixture); a conftest importing a root at module level is an
  importer itself (the file to gate or mark).

Each tier then has the files its ``tests`` globs cover and the **importers
outside them**: files that need the tier but that the gate does not know
about. A file covered by the globs of a tier layered on this one is covered
(that tier needs this one), so is a use inside a test marked
``tier(...)``, and so is a file the project accepts on purpose
(``[tool.tierlock.census.accept]``). A tier without ``tests`` globs gates
nothing: its importers are listed, never findings.

Cost: every file is read; only files whose text names a root, ``importorskip``,
``tier`` or a root-needing fixture are parsed.
"""

from __future__ import annotations

import ast
import fnmatch
import os
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Protocol

#: pytest's default ``python_files`` and ``norecursedirs``.
DEFAULT_PATTERNS = ("test_*.py", "*_test.py")
#: (conftest, fixture) -> {root: line}: the conftest fixtures that need import roots (each root once).
Needs = dict[tuple[str, str], dict[str, int]]
SKIP_DIRS = ("*.egg", ".*", "_darcs", "build", "CVS", "dist", "node_modules", "venv", "{arch}", "__pycache__")


class CensusTier:
    """What the census needs of one tier.

    The classes of this module are plain classes, not dataclasses: the pytest
    plugin imports it on runs where a tier is missing, and building a
    dataclass costs about a millisecond at import.
    """

    def __init__(
        self,
        name: str,
        roots: tuple[str, ...],
        globs: tuple[str, ...],
        covered_by: tuple[str, ...] = (),
        accept: tuple[str, ...] = (),
    ) -> None:
        self.name = name
        self.roots = roots
        """Top-level import names."""
        self.globs = globs
        self.covered_by = covered_by
        """Other tiers whose globs or markers also cover this tier (those layered on it)."""
        self.accept = accept
        """Globs of files whose use of the tier is accepted outside its ``tests`` globs."""


class Use:
    """One place that needs a tier."""

    marker = False
    """A ``tier(...)`` marker of the tier itself: it gates what it marks, so it is never outside."""

    def __init__(self, file: str, line: int, how: str, module_level: bool = False) -> None:
        self.file = file
        self.line = line
        self.how = how
        """``import pyarrow``, ``importorskip('pyarrow')``, ``tier('arrow') marker``, ``fixture t (...)``."""
        self.module_level = module_level

    def __repr__(self) -> str:
        return f"Use({self.render()!r})"

    def render(self) -> str:
        return f"{self.file}:{self.line}: {self.how}"

    def to_dict(self) -> dict[str, Any]:
        return {"file": self.file, "line": self.line, "how": self.how, "module_level": self.module_level}


class Finding:
    """A census problem ``tierlock check`` reports: kind ``census-importer`` or ``census-glob``."""

    def __init__(self, tier: str, kind: str, file: str, line: int | None, detail: str, remedy: str) -> None:  # noqa: PLR0917
        self.tier = tier
        self.kind = kind
        self.file = file
        self.line = line
        self.detail = detail
        self.remedy = remedy

    def __repr__(self) -> str:
        return f"Finding({self.render()!r})"

    def render(self) -> str:
        place = f"{self.file}:{self.line}" if self.line else self.file
        return f"{place}: {self.tier}: {self.kind}: {self.detail}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "tier": self.tier,
            "kind": self.kind,
            "file": self.file,
            "line": self.line,
            "detail": self.detail,
            "remedy": self.remedy,
        }


class TierReport:
    """One tier's part of the census."""

    def __init__(self, tier: str, globs: tuple[str, ...]) -> None:
        self.tier = tier
        self.globs = globs
        self.glob_matches: dict[str, int] = {}
        self.glob_hints: dict[str, str] = {}
        """A glob matching no file -> the same glob over the closest existing folder or file."""
        self.covered: list[str] = []
        self.inside: list[Use] = []
        self.outside: list[Use] = []
        self.accepted: list[Use] = []
        self.fixtures: list[Use] = []

    @property
    def gates(self) -> bool:
        return bool(self.globs)

    def to_dict(self) -> dict[str, Any]:
        return {
            "tier": self.tier,
            "globs": [{"glob": g, "files": self.glob_matches[g]} for g in self.globs],
            "covered": self.covered,
            "importers_inside": [u.to_dict() for u in self.inside],
            "importers_outside": [u.to_dict() for u in self.outside],
            "accepted": [u.to_dict() for u in self.accepted],
            "fixtures": [u.to_dict() for u in self.fixtures],
        }


class Census:
    """The census: per tier its report, and how many files were read, parsed and taken from the cache."""

    def __init__(self, tiers: tuple[TierReport, ...], files_read: int, files_parsed: int, files_cached: int) -> None:
        self.tiers = tiers
        self.files_read = files_read
        self.files_parsed = files_parsed
        self.files_cached = files_cached
        """Files whose facts came from the cache (unchanged size and mtime)."""

    def tier(self, name: str) -> TierReport:
        for report in self.tiers:
            if report.tier == name:
                return report
        raise KeyError(name)

    def importer_files(self, tier: str) -> set[str]:
        """Every file that needs *tier* (covered or not)."""
        report = self.tier(tier)
        return {u.file for u in (*report.inside, *report.outside, *report.accepted)}

    def findings(self) -> list[Finding]:
        out: list[Finding] = []
        for report in self.tiers:
            if not report.gates:
                continue
            for glob in report.globs:
                if not report.glob_matches[glob]:
                    out.append(
                        Finding(
                            report.tier,
                            "census-glob",
                            "pyproject.toml",
                            None,
                            f"tests glob {glob!r} matches no file",
                            f"fix the glob in [tool.tierlock.tiers.{report.tier}].tests (a typo gates nothing)"
                            + (f"; did you mean {report.glob_hints[glob]!r}?" if glob in report.glob_hints else ""),
                        )
                    )
            for use in report.outside:
                out.append(
                    Finding(
                        report.tier,
                        "census-importer",
                        use.file,
                        use.line,
                        f"needs tier {report.tier} ({use.how}) outside its tests globs",
                        f'add "{use.file}" to [tool.tierlock.tiers.{report.tier}].tests'
                        + ("" if use.module_level else f", or mark the test @pytest.mark.tier({report.tier!r})"),
                    )
                )
        return out

    def to_dict(self) -> dict[str, Any]:
        findings = self.findings()
        return {
            "ok": not findings,
            "files_read": self.files_read,
            "files_parsed": self.files_parsed,
            "files_cached": self.files_cached,
            "tiers": [t.to_dict() for t in self.tiers],
            "findings": [f.to_dict() for f in findings],
        }


# -- reading one file ------------------------------------------------------------
class FileFacts:
    """What one file says, whatever the tiers: the raw material of the census."""

    def __init__(
        self,
        *,
        imports: list[tuple[str, int, str, bool, str | None]] | None = None,
        markers: list[tuple[str, int, bool]] | None = None,
        marked_lines: list[tuple[str, int, int]] | None = None,
        fixtures: dict[str, tuple[int, bool, list[str]]] | None = None,
        uses: dict[str, list[int]] | None = None,
    ) -> None:
        self.imports = [] if imports is None else imports
        """(root, line, how, module level, enclosing fixture name)."""
        self.markers = [] if markers is None else markers
        """(tier name as written, line, module level)."""
        self.marked_lines = [] if marked_lines is None else marked_lines
        """(tier, first line, last line) of each function or class marked ``tier(...)``."""
        self.fixtures = {} if fixtures is None else fixtures
        """Fixture name -> (line, autouse, the fixtures it requests)."""
        self.uses = {} if uses is None else uses
        """Fixture name requested (parameter or usefixtures) -> each line requesting it."""


def _dotted(node: ast.expr) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return f"{_dotted(node.value)}.{node.attr}"
    if isinstance(node, ast.Call):
        return _dotted(node.func)
    return ""


def _tier_mark(node: ast.expr) -> str | None:
    """The tier named by ``pytest.mark.tier("x")`` / ``mark.tier(name="x")``."""
    if not isinstance(node, ast.Call) or not _dotted(node.func).endswith("mark.tier"):
        return None
    args = [*node.args, *(k.value for k in node.keywords if k.arg == "name")]
    if args and isinstance(args[0], ast.Constant) and isinstance(args[0].value, str):
        return args[0].value
    return None


def _fixture_info(func: ast.FunctionDef | ast.AsyncFunctionDef) -> tuple[str, bool] | None:
    for deco in func.decorator_list:
        name = _dotted(deco)
        if name in ("pytest.fixture", "fixture", "pytest_asyncio.fixture"):
            fixture_name, autouse = func.name, False
            if isinstance(deco, ast.Call):
                for kw in deco.keywords:
                    if kw.arg == "name" and isinstance(kw.value, ast.Constant) and isinstance(kw.value.value, str):
                        fixture_name = kw.value.value
                    if kw.arg == "autouse" and isinstance(kw.value, ast.Constant):
                        autouse = bool(kw.value.value)
            return fixture_name, autouse
    return None


def read_file(source: str, filename: str = "<test>") -> FileFacts:
    """The facts of one Python source (a file that does not parse has none)."""
    facts = FileFacts()
    try:
        tree = ast.parse(source, filename)
    except (SyntaxError, ValueError):
        return facts
    calls = "importorskip" in source or "mark.tier" in source
    _visit(tree, facts, module_level=True, fixture=None, calls=calls)
    return facts


_BODIES = ("body", "orelse", "finalbody", "handlers", "cases")
_SIMPLE = (ast.Expr, ast.Assign, ast.AnnAssign, ast.AugAssign, ast.Return)


def _visit(node: ast.AST, facts: FileFacts, *, module_level: bool, fixture: str | None, calls: bool) -> None:
    """Walk the statements below *node* (not every expression: this runs on thousands of files).

    Calls (``importorskip``, ``mark.tier``) are looked for only inside simple
    statements, and only when *calls* (the text mentions them at all).
    """
    for name in _BODIES:
        for child in getattr(node, name, ()):
            if isinstance(child, ast.Import):
                for alias in child.names:
                    root = alias.name.split(".")[0]
                    facts.imports.append((root, child.lineno, f"import {alias.name}", module_level, fixture))
            elif isinstance(child, ast.ImportFrom):
                if child.level == 0 and child.module:
                    root = child.module.split(".")[0]
                    facts.imports.append((root, child.lineno, f"from {child.module} import", module_level, fixture))
            elif isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                inner = _definition(child, facts, fixture)
                _visit(child, facts, module_level=False, fixture=inner, calls=calls)
            elif isinstance(child, _SIMPLE):
                if calls:
                    _calls(child, facts, module_level, fixture)
            else:
                _visit(child, facts, module_level=module_level, fixture=fixture, calls=calls)


def _definition(
    child: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef, facts: FileFacts, fixture: str | None
) -> str | None:
    """Record a function or class's markers, fixture and requested fixtures; the fixture its body belongs to."""
    end = getattr(child, "end_lineno", None) or child.lineno
    first = min([child.lineno, *(d.lineno for d in child.decorator_list)])
    for deco in child.decorator_list:
        tier = _tier_mark(deco)
        if tier is not None:
            facts.markers.append((tier, deco.lineno, False))
            facts.marked_lines.append((tier, first, end))
        elif isinstance(deco, ast.Call) and _dotted(deco.func).endswith("mark.usefixtures"):
            for arg in deco.args:
                if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                    _request(facts, arg.value, deco.lineno)
    if isinstance(child, ast.ClassDef):
        return fixture
    params = [a.arg for a in (*child.args.posonlyargs, *child.args.args, *child.args.kwonlyargs)]
    info = _fixture_info(child)
    if info is not None:
        facts.fixtures[info[0]] = (child.lineno, info[1], params)
        return info[0]
    for param in params:
        _request(facts, param, child.lineno)
    return fixture


def _request(facts: FileFacts, fixture: str, line: int) -> None:
    lines = facts.uses.setdefault(fixture, [])
    if line not in lines:
        lines.append(line)


def _calls(statement: ast.stmt, facts: FileFacts, module_level: bool, fixture: str | None) -> None:
    for node in ast.walk(statement):
        if not isinstance(node, ast.Call):
            continue
        name = _dotted(node.func)
        if name in ("pytest.importorskip", "importorskip") and node.args:
            arg = node.args[0]
            if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                root = arg.value.split(".")[0]
                facts.imports.append((root, node.lineno, f"importorskip({arg.value!r})", module_level, fixture))
        elif module_level:
            tier = _tier_mark(node)
            if tier is not None:
                facts.markers.append((tier, node.lineno, True))


# -- the per-file cache --------------------------------------------------------------
#: The cache key (pytest's cache layout: ``.pytest_cache/v/tierlock/census``).
CACHE_KEY = "tierlock/census"
_SCHEMA = 2


class CensusCache(Protocol):
    def get(self, key: str, default: Any) -> Any: ...

    def set(self, key: str, value: object) -> None: ...


def _facts_to_json(facts: FileFacts) -> list[Any]:
    return [facts.imports, facts.markers, facts.marked_lines, facts.fixtures, facts.uses]


def _facts_from_json(data: Any) -> FileFacts:
    imports, markers, marked, fixtures, uses = data
    return FileFacts(
        imports=[(str(a), int(b), str(c), bool(d), None if e is None else str(e)) for a, b, c, d, e in imports],
        markers=[(str(a), int(b), bool(c)) for a, b, c in markers],
        marked_lines=[(str(a), int(b), int(c)) for a, b, c in marked],
        fixtures={str(k): (int(v[0]), bool(v[1]), [str(p) for p in v[2]]) for k, v in fixtures.items()},
        uses={str(k): [int(line) for line in v] for k, v in uses.items()},
    )


class _Memo:
    """Per file: its size and mtime and its facts (None: its text named none of the words, so it was not parsed)."""

    def __init__(self, value: Any) -> None:
        ok = isinstance(value, dict) and value.get("schema") == _SCHEMA and isinstance(value.get("files"), dict)
        self.old: dict[str, Any] = value["files"] if ok else {}
        self.old_words: Any = value.get("words") if ok else None
        self.words: list[str] | None = None
        self.new: dict[str, Any] = {}
        self.parsed = 0
        self.reused = 0
        self.changed = not ok

    def facts(self, base: str, rel: str, stamp: list[int], words: list[str] | None) -> FileFacts | None:
        """The facts of *rel* (None when its text names none of *words*; *words* None: always parse)."""
        if words is not None:
            self.words = words
        old = self.old.get(rel)
        if (
            isinstance(old, list)
            and len(old) == 2
            and old[0] == stamp
            and (old[1] is not None or self.old_words == words)
        ):
            try:
                facts = None if old[1] is None else _facts_from_json(old[1])
            except (TypeError, ValueError, KeyError, IndexError, AttributeError):
                pass
            else:
                self.new[rel] = old
                self.reused += 1
                return facts
        self.changed = True
        try:
            with open(os.path.join(base, rel), encoding="utf-8", errors="replace") as handle:
                text = handle.read()
        except OSError:
            return None
        if words is not None and not any(w in text for w in words):
            self.new[rel] = [stamp, None]
            return None
        self.parsed += 1
        facts = read_file(text, rel)
        self.new[rel] = [stamp, _facts_to_json(facts)]
        return facts

    def entry(self) -> dict[str, Any]:
        """The cache value: this run's files, plus the other files of the last run when the words did not change
        (a subset run keeps what a whole run learnt; a stale entry is caught by its size and mtime)."""
        kept = {k: v for k, v in self.old.items() if k not in self.new} if self.old_words == self.words else {}
        return {"schema": _SCHEMA, "words": self.words, "files": {**kept, **self.new}}

    @property
    def dirty(self) -> bool:
        return self.changed or self.old_words != self.words


class FolderCache:
    """pytest's cache layout under ``<root>/.pytest_cache/v``, used only when that folder exists (never made here)."""

    def __init__(self, root: str | os.PathLike[str]) -> None:
        self.folder = os.path.join(os.fspath(root), ".pytest_cache", "v")

    def get(self, key: str, default: Any) -> Any:
        import json

        try:
            with open(os.path.join(self.folder, key), encoding="utf-8") as handle:
                return json.load(handle)
        except (OSError, ValueError):
            return default

    def set(self, key: str, value: object) -> None:
        import json

        if not os.path.isdir(os.path.dirname(self.folder)):
            return  # no .pytest_cache: pytest makes it (with its .gitignore), never the census
        path = os.path.join(self.folder, key)
        try:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            tmp = f"{path}.{os.getpid()}.tmp"
            with open(tmp, "w", encoding="utf-8") as handle:
                json.dump(value, handle, separators=(",", ":"))
            os.replace(tmp, path)
        except OSError:
            return  # a read-only checkout: the census still runs, uncached


# -- walking the tree -------------------------------------------------------------
def _skip_dir(name: str) -> bool:
    return any(fnmatch.fnmatch(name, p) for p in SKIP_DIRS) or name == "site-packages"


def walk(root: str, folders: Iterable[str], patterns: Sequence[str]) -> tuple[dict[str, list[int]], list[str]]:
    """(test files and conftests -> [size, mtime_ns], every file) below *folders*, relative to *root*, sorted."""
    tests: dict[str, list[int]] = {}
    every: set[str] = set()
    base = os.path.abspath(root)
    cut = len(base) + 1
    stack: list[str] = []
    for folder in folders:
        full = os.path.normpath(os.path.join(base, folder))
        if os.path.isfile(full):
            rel = full[cut:].replace(os.sep, "/")
            every.add(rel)
            if full.endswith(".py"):
                st = os.stat(full)
                tests[rel] = [st.st_size, st.st_mtime_ns]
        elif os.path.isdir(full):
            stack.append(full)
    seen: set[str] = set()
    while stack:
        folder = stack.pop()
        if folder in seen:
            continue
        seen.add(folder)
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        if any(e.name == "pyvenv.cfg" for e in entries):
            continue  # a virtual environment
        for entry in entries:
            name = entry.name
            if entry.is_dir(follow_symlinks=False):
                if not _skip_dir(name):
                    stack.append(entry.path)
                continue
            rel = entry.path[cut:].replace(os.sep, "/")
            every.add(rel)
            if name == "conftest.py" or (name.endswith(".py") and any(fnmatch.fnmatch(name, p) for p in patterns)):
                try:
                    st = entry.stat()
                except OSError:
                    continue
                tests[rel] = [st.st_size, st.st_mtime_ns]
    return dict(sorted(tests.items())), sorted(every)


def census(
    root: str | os.PathLike[str],
    tiers: Sequence[CensusTier],
    *,
    folders: Sequence[str] = (".",),
    patterns: Sequence[str] = DEFAULT_PATTERNS,
    limit_to: Iterable[str] | None = None,
    report: Iterable[str] | None = None,
    walk_globs: bool = True,
    cache: CensusCache | None = None,
    cache_key: str = CACHE_KEY,
) -> Census:
    """The census of the test files below *folders* (relative to *root*) for *tiers*.

    *limit_to* (relative paths) keeps only those test files as importers (a
    pytest run's selection); the globs are still matched against every file.
    *report* names the tiers reported (default: all of *tiers*). With
    *walk_globs* the folders the globs name are read too (a glob can reach
    outside the test paths); the pytest plugin reads only its selection.
    With a *cache* (pytest's cache, or :class:`FolderCache`), a file whose
    size and mtime are unchanged is neither read nor parsed again.
    """
    from tierlock.tiers.globs import matches

    base = os.fspath(root)
    glob_folders = [_glob_stem(g) for t in tiers for g in t.globs] if walk_globs else []
    stamps, every = walk(base, [*folders, *[g for g in glob_folders if g]], patterns)
    tests = list(stamps)
    keep = set(limit_to) if limit_to is not None else None
    roots: dict[str, list[str]] = {}
    for tier in tiers:
        for name in tier.roots:
            roots.setdefault(name, []).append(tier.name)
    memo = _Memo(cache.get(cache_key, None) if cache is not None else None)
    parsed: dict[str, FileFacts] = {}
    # Conftests first: the fixtures they define decide which words make a test file worth parsing.
    for rel, stamp in stamps.items():
        if rel.endswith("conftest.py"):
            facts = memo.facts(base, rel, stamp, None)
            if facts is not None:
                parsed[rel] = facts
    needs = _fixture_needs(parsed, roots)
    autouse = {key for key in needs if parsed[key[0]].fixtures.get(key[1], (0, False, []))[1]}
    words = sorted({*roots, "importorskip", "mark.tier", *(name for _, name in needs)})
    for rel, stamp in stamps.items():
        if rel in parsed:
            continue
        facts = memo.facts(base, rel, stamp, words)
        if facts is not None:
            parsed[rel] = facts
        elif any(_below(rel, conftest) for conftest, _ in autouse):
            parsed[rel] = FileFacts()  # needs the tier through an autouse fixture; nothing else to read
    if cache is not None and memo.dirty:
        cache.set(cache_key, memo.entry())
    texts = stamps

    ordered = sorted(parsed.items())
    via = {rel: _fixture_uses(rel, facts, needs, autouse) for rel, facts in ordered}
    reports = []
    by_name = {t.name: t for t in tiers}
    reported = set(report) if report is not None else set(by_name)
    for tier in tiers:
        if tier.name not in reported:
            continue
        entry = TierReport(tier.name, tier.globs)
        for glob in tier.globs:
            entry.glob_matches[glob] = sum(1 for rel in every if matches(rel, (glob,)))
            if not entry.glob_matches[glob]:
                hint = _glob_hint(glob, every)
                if hint is not None:
                    entry.glob_hints[glob] = hint
        entry.covered = [rel for rel in tests if matches(rel, tier.globs) and not rel.endswith("conftest.py")]
        cover_globs = [g for name in (tier.name, *tier.covered_by) if name in by_name for g in by_name[name].globs]
        cover_marks = {tier.name, *tier.covered_by}
        for (conftest, fixture), needed in needs.items():
            for name, line in needed.items():
                if root_tier(roots, name, tier.name):
                    entry.fixtures.append(Use(conftest, line, f"fixture {fixture} needs {name}"))
        for rel, facts in ordered:
            if keep is not None and rel not in keep:
                continue
            for use in _uses(rel, facts, tier, roots, via[rel]):
                if (
                    use.marker
                    or matches(rel, cover_globs)
                    or (not use.module_level and _marked(facts, use.line, cover_marks))
                ):
                    entry.inside.append(use)
                elif tier.accept and matches(rel, tier.accept):
                    entry.accepted.append(use)
                else:
                    entry.outside.append(use)
        reports.append(entry)
    return Census(tuple(reports), len(texts), memo.parsed, memo.reused)


def root_tier(roots: Mapping[str, list[str]], root: str, tier: str) -> bool:
    return tier in roots.get(root, ())


def _glob_text(glob: str) -> str:
    """The glob as :func:`tierlock.tiers.globs.matches` reads it: ``/`` separators, no leading ``./``."""
    import re

    return re.sub(r"^(?:\./)+", "", glob.replace("\\", "/").strip())


def _glob_stem(glob: str) -> str:
    """The folder (or file) a glob starts from: its text before the first wildcard, up to a ``/``."""
    import re

    text = _glob_text(glob)
    wild = re.search(r"[*?\[]", text)
    if wild is None:
        return text.rstrip("/")
    head = text[: wild.start()]
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


def _marked(facts: FileFacts, line: int, tiers: set[str]) -> bool:
    from tierlock.probing import normalize

    if any(normalize(t) in tiers and module for t, _, module in facts.markers):
        return True
    return any(normalize(t) in tiers and first <= line <= last for t, first, last in facts.marked_lines)


def _fixture_needs(parsed: Mapping[str, FileFacts], roots: Mapping[str, list[str]]) -> Needs:
    """(conftest, fixture) -> {root: line} for every conftest fixture that needs roots (also through others)."""
    needs: Needs = {}
    conftests = {rel: f for rel, f in parsed.items() if rel.endswith("conftest.py")}
    for rel, facts in conftests.items():
        for root, line, _how, _module, fixture in facts.imports:
            if fixture is not None and root in roots:
                needs.setdefault((rel, fixture), {}).setdefault(root, line)
    changed = True
    while changed:  # a fixture that requests root-needing fixtures it can see needs their roots too
        changed = False
        for rel, facts in conftests.items():
            for name, (line, _autouse, params) in facts.fixtures.items():
                for param in params:
                    found = _visible(needs, rel, param)
                    if found is None or found == (rel, name):
                        continue
                    mine = needs.setdefault((rel, name), {})
                    for root in needs[found]:
                        if root not in mine:
                            mine[root] = line
                            changed = True
    return needs


def _visible(needs: Needs, rel: str, name: str) -> tuple[str, str] | None:
    """The root-needing conftest fixture *name* that the file *rel* sees (the nearest conftest wins)."""
    best: tuple[str, str] | None = None
    for conftest, fixture in needs:
        if fixture != name:
            continue
        if _below(rel, conftest) and (best is None or len(conftest) > len(best[0])):
            best = (conftest, fixture)
    return best


def _uses(
    rel: str,
    facts: FileFacts,
    tier: CensusTier,
    roots: Mapping[str, list[str]],
    fixture_uses: Sequence[tuple[str, Use]],
) -> list[Use]:
    """Where the file *rel* needs *tier*; *fixture_uses* are its uses of root-needing conftest fixtures."""
    from tierlock.probing import normalize

    out: list[Use] = []
    for root, line, how, module, _fixture in facts.imports:
        if root_tier(roots, root, tier.name):
            out.append(Use(rel, line, how, module))
    for name, line, module in facts.markers:
        if normalize(name) == tier.name:
            use = Use(rel, line, f"tier({name!r}) marker", module)
            use.marker = True
            out.append(use)
    out.extend(use for root, use in fixture_uses if root_tier(roots, root, tier.name))
    return out


def _fixture_uses(rel: str, facts: FileFacts, needs: Needs, autouse: set[tuple[str, str]]) -> list[tuple[str, Use]]:
    """(root, use) for each root-needing conftest fixture the file *rel* requests (or gets through autouse)."""
    if rel.endswith("conftest.py") or not needs:
        return []
    out: list[tuple[str, Use]] = []
    names = {name for _, name in needs}
    wanted = [n for n in facts.uses if n in names] + [n for c, n in autouse if _below(rel, c)]
    for fixture in dict.fromkeys(wanted):
        found = _visible(needs, rel, fixture)
        if found is None:
            continue
        conftest = found[0]
        for root, fline in needs[found].items():
            if found in autouse:
                out.append((root, Use(rel, 1, f"autouse fixture {fixture} ({conftest}:{fline} needs {root})", True)))
            else:
                how = f"fixture {fixture} ({conftest}:{fline} needs {root})"
                out.extend((root, Use(rel, line, how)) for line in facts.uses.get(fixture, ()))
    return out


def _below(rel: str, conftest: str) -> bool:
    """Whether the file *rel* is in the folder of *conftest* (or below it)."""
    folder = conftest.rsplit("/", 1)[0] if "/" in conftest else ""
    return not folder or rel.startswith(folder + "/")


# -- a project's census -----------------------------------------------------------
def census_tiers(project: Any, accept: Mapping[str, Sequence[str]] | None = None) -> list[CensusTier]:
    """The census view of a :class:`tierlock.tiers.Project`'s tiers.

    A tier's import roots are its declared ``import-roots``, else each probe
    distribution's name with ``-`` as ``_`` (declare ``import-roots`` when they
    differ, as for ``pyyaml`` -> ``yaml``).
    """
    out: list[CensusTier] = []
    for tier in project.tiers.values():
        roots: list[str] = []
        for dist in tier.probe:
            roots.extend(tier.import_roots.get(dist) or (str(dist).replace("-", "_").replace(".", "_"),))
        above = [t.name for t in project.tiers.values() if t.name != tier.name and tier in project.chain(t.name)]
        out.append(
            CensusTier(
                name=str(tier.name),
                roots=tuple(dict.fromkeys(roots)),
                globs=tuple(tier.tests),
                covered_by=tuple(str(a) for a in above),
                accept=tuple((accept or {}).get(str(tier.name), ())),
            )
        )
    return out


def pytest_settings(root: str | os.PathLike[str]) -> tuple[list[str], list[str]]:
    """(testpaths, python_files) from the project's pytest configuration (pyproject.toml or pytest.ini).

    Without ``testpaths`` the census reads the whole project (minus
    ``norecursedirs``'s defaults and virtual environments).
    """
    import configparser
    import tomllib

    base = os.fspath(root)
    paths: list[str] = []
    patterns: list[str] = []
    ini = os.path.join(base, "pytest.ini")
    if os.path.isfile(ini):
        parser = configparser.ConfigParser()
        parser.read(ini, encoding="utf-8")
        if parser.has_section("pytest"):
            paths = parser.get("pytest", "testpaths", fallback="").split()
            patterns = parser.get("pytest", "python_files", fallback="").split()
    else:
        try:
            with open(os.path.join(base, "pyproject.toml"), "rb") as handle:
                data = tomllib.load(handle)
        except (OSError, tomllib.TOMLDecodeError):
            data = {}
        tool = data.get("tool", {})
        pytest_table = tool.get("pytest", {}) if isinstance(tool, dict) else {}
        options = pytest_table.get("ini_options", pytest_table) if isinstance(pytest_table, dict) else {}
        if isinstance(options, dict):
            paths = _strings(options.get("testpaths"))
            patterns = _strings(options.get("python_files"))
    return paths or ["."], patterns or list(DEFAULT_PATTERNS)


def _strings(value: object) -> list[str]:
    if isinstance(value, str):
        return value.split()
    if isinstance(value, list):
        return [str(v) for v in value]
    return []


def accept_table(pyproject: str | os.PathLike[str], tiers: Iterable[str]) -> dict[str, list[str]]:
    """``[tool.tierlock.census.accept]``: tier -> globs of files whose use of the tier is accepted.

    A ``ConfigError`` names an unknown tier or a value that is not a list of globs.
    """
    import tomllib

    from tierlock.errors import ConfigError

    with open(pyproject, "rb") as handle:
        data = tomllib.load(handle)
    table = data.get("tool", {}).get("tierlock", {}).get("census", {})
    where = "[tool.tierlock.census]"
    if not isinstance(table, dict):
        raise ConfigError(f"{where} must be a table", file=str(pyproject), remedy=f"make {where} a table")
    unknown = [k for k in table if k != "accept"]
    if unknown:
        raise ConfigError(
            f"{where}: unknown key {unknown[0]!r} (known: accept)", file=str(pyproject), remedy=f"remove {unknown[0]!r}"
        )
    accept = table.get("accept", {})
    if not isinstance(accept, dict):
        raise ConfigError(f"{where}.accept must be a table of tier = [globs]", file=str(pyproject))
    from tierlock.probing import normalize

    known = set(tiers)
    out: dict[str, list[str]] = {}
    for name, globs in accept.items():
        tier = normalize(name)
        if tier not in known:
            raise ConfigError(
                f"{where}.accept: unknown tier {name!r}; declared: {', '.join(sorted(known))}",
                file=str(pyproject),
                remedy=f"remove {name!r} from {where}.accept or declare the tier",
            )
        if not isinstance(globs, list) or not all(isinstance(g, str) and g.strip() for g in globs):
            raise ConfigError(f"{where}.accept.{name} must be a list of path globs", file=str(pyproject))
        out[tier] = list(globs)
    return out


def project_census(project: Any, names: Sequence[str] | None = None) -> Census:
    """The census of a :class:`tierlock.tiers.Project` (only the tiers *names* when given)."""
    accept = accept_table(project.pyproject, project.tiers)
    tiers = census_tiers(project, accept)
    wanted = {str(project.tier(n).name) for n in names} if names else {t.name for t in tiers}
    folders, patterns = pytest_settings(project.root)
    cache = FolderCache(project.root) if os.path.isdir(os.path.join(project.root, ".pytest_cache")) else None
    # Every tier takes part (a tier layered on a named one covers its files); only the named ones are reported.
    return census(project.root, tiers, folders=folders, patterns=patterns, report=wanted, cache=cache)
