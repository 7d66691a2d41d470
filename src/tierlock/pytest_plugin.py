"""tierlock's pytest plugin (entry point ``pytest11: tierlock``; disable with ``-p no:tierlock``).

For the project at pytest's rootdir it probes every declared tier once, from
files (never importing), and then:

* does not collect the test files of a tier that is not present (its
  ``tests`` globs), and skips tests marked ``@pytest.mark.tier("name")``;
* prints a header line and a summary line with the counts;
* in CI (or with ``--tierlock-strict`` / ``TIERLOCK_STRICT=1``) stops before
  collection when a tier in ``ci-require`` is absent or partial: a skipped
  tier on a green run is silent coverage loss.

Under pytest-xdist the controller decides once and hands the decision to its
workers. Module top level stays light (no rich, jsonschema, packaging): the
tier model and the probe are imported only for projects with a tier table.

The parsed tier model is kept in pytest's cache (``.pytest_cache/v/tierlock/``)
keyed by pyproject.toml, the lockfiles and the interpreter, so a warm run skips
the loader and ``packaging.requirements``; the probe runs on every run, from
the files (:mod:`tierlock.probing.facts`).
"""

from __future__ import annotations

import fnmatch
import os
import sys
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import pytest

from tierlock.ci import is_ci

if TYPE_CHECKING:
    from tierlock.probing import TierProbe
    from tierlock.probing.facts import ProjectFacts, TierVerdict

_WIRE = "tierlock"
_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}
_SKIP_DIRS = {"__pycache__", "node_modules", "site-packages"}
COVERAGE_LOSS = "a skipped tier on a green run is silent coverage loss"
NOT_IMPORTED = "named on the command line but not imported:"


def parse_strict_env(value: str | None) -> bool | None:
    """``TIERLOCK_STRICT``: ``1/true/yes/on`` -> True, ``0/false/no/off`` -> False, unset or empty -> None."""
    if value is None or not value.strip():
        return None
    text = value.strip().lower()
    if text in _TRUE:
        return True
    if text in _FALSE:
        return False
    raise pytest.UsageError(f"TIERLOCK_STRICT={value!r} is not understood; use 1 (strict) or 0 (lenient)")


def strictness(strict_flag: bool, lenient_flag: bool, environ: Mapping[str, str]) -> tuple[bool, str]:
    """Whether the run is strict, and why (flags win over ``TIERLOCK_STRICT``, which wins over CI detection)."""
    if strict_flag and lenient_flag:
        raise pytest.UsageError("--tierlock-strict and --tierlock-lenient contradict each other; pass one")
    if strict_flag:
        return True, "--tierlock-strict"
    if lenient_flag:
        return False, "--tierlock-lenient"
    env = parse_strict_env(environ.get("TIERLOCK_STRICT"))
    if env is not None:
        return env, f"TIERLOCK_STRICT={environ['TIERLOCK_STRICT']}"
    if is_ci(environ):
        return True, "CI detected"
    return False, "not CI"


class Gate:
    """The decision for one run, made once (by the xdist controller) and shared with workers.

    A plain class, not a dataclass: building a dataclass costs about a
    millisecond at import, and this module is imported by every pytest run.
    """

    def __init__(
        self,
        *,
        root: str,
        strict: bool,
        why: str,
        states: dict[str, str],
        gated: dict[str, list[str]],
        install: dict[str, str],
        broken: dict[str, list[str]],
        required: list[str] | None = None,
        expected: int = 0,
    ) -> None:
        self.root = root
        self.strict = strict
        self.why = why
        self.states = states
        """Tier name -> present / partial / absent, in project order."""
        self.gated = gated
        """Tier that is not present -> its test globs."""
        self.install = install
        """Tier -> the command that installs it."""
        self.broken = broken
        """Tier that is not present -> one line per missing or broken root."""
        self.required: list[str] = [] if required is None else required
        """The ci-require tiers."""
        self.expected = expected
        """Gated test files among the collection arguments (counted before collection)."""
        # Per-process counters (not sent to workers).
        self.ignored: set[str] = set()
        self.skipped = 0
        self.worker_ignored = 0

    def wire(self) -> dict[str, Any]:
        """The decision as plain data (what :meth:`from_wire` takes), without the per-process counters."""
        return {
            "root": self.root,
            "strict": self.strict,
            "why": self.why,
            "states": dict(self.states),
            "gated": {k: list(v) for k, v in self.gated.items()},
            "install": dict(self.install),
            "broken": {k: list(v) for k, v in self.broken.items()},
            "required": list(self.required),
            "expected": self.expected,
        }

    @classmethod
    def from_wire(cls, data: Mapping[str, Any]) -> Gate:
        return cls(**dict(data))

    def tier_of(self, rel: str) -> str | None:
        """The not-present tier whose test globs match the relative path *rel*."""
        from tierlock.tiers.globs import matches

        for tier, globs in self.gated.items():
            if matches(rel, globs):
                return tier
        return None

    def tier_covering_dir(self, rel: str) -> str | None:
        """The not-present tier whose globs cover every file below folder *rel*."""
        from tierlock.tiers.globs import compile_glob, matches

        for tier, globs in self.gated.items():
            if matches(rel, globs):
                return tier
            for glob in globs:
                stem = glob.replace("\\", "/").rstrip("/")
                if stem.endswith("/**") and compile_glob(stem[:-3]).match(rel):
                    return tier
        return None

    def reason(self, tier: str) -> str:
        return f"tier {tier} is {self.states.get(tier, 'unknown')}; to run these tests: {self.install[tier]}"

    @property
    def not_collected(self) -> int:
        return max(len(self.ignored), self.worker_ignored)


_GATE = pytest.StashKey["Gate | None"]()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("tierlock", "tierlock: gate tests on dependency tiers")
    group.addoption(
        "--tierlock-strict",
        action="store_true",
        default=False,
        help="fail before collection when a ci-require tier is absent or partial (the default in CI)",
    )
    group.addoption(
        "--tierlock-lenient",
        action="store_true",
        default=False,
        help="never fail for missing tiers, even in CI: not-present tiers' tests are not collected",
    )


@pytest.hookimpl(trylast=True)
def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "tier(name): the test needs tier NAME; skipped when the tier is not present")
    workerinput = getattr(config, "workerinput", None)
    if workerinput is not None:
        wire = workerinput.get(_WIRE)
        config.stash[_GATE] = Gate.from_wire(wire) if wire else None
        return
    gate = decide(config)
    config.stash[_GATE] = gate
    if gate is not None and gate.strict and not _informational(config):
        failing = [t for t in gate.broken if t in gate.required]
        if failing:
            sys.stderr.write("\n".join(fail_closed_message(gate, failing)) + "\n")
            sys.stderr.flush()
            names = ", ".join(f"{t} {gate.states[t]}" for t in failing)
            pytest.exit(f"tierlock: failing closed in CI: {names}", returncode=pytest.ExitCode.TESTS_FAILED)


def _informational(config: pytest.Config) -> bool:
    """``--help``, ``--version``, ``--markers``, ``--fixtures``: runs that test nothing never fail closed."""
    names = ("help", "version", "markers", "showfixtures", "show_fixtures_per_test")
    return any(getattr(config.option, name, False) for name in names)


def decide(config: pytest.Config) -> Gate | None:
    """Probe the tiers of the project at the rootdir; None when it has no tier table."""
    pyproject = config.rootpath / "pyproject.toml"
    try:
        text = pyproject.read_text(encoding="utf-8-sig")
    except OSError:
        return None
    if "tierlock" not in text:
        return None
    strict, why = strictness(config.getoption("tierlock_strict"), config.getoption("tierlock_lenient"), os.environ)
    gate = gate_for(pyproject, text, getattr(config, "cache", None), strict, why)
    if gate is not None:
        gate.expected = count_gated_files(config, gate)
    return gate


class _Cache(Protocol):
    """What the plugin uses of pytest's ``config.cache``."""

    def get(self, key: str, default: Any) -> Any: ...

    def set(self, key: str, value: object) -> None: ...


def gate_for(pyproject: Path, text: str, cache: _Cache | None, strict: bool, why: str) -> Gate | None:
    """The gate for the project of *pyproject* (its *text* already read), probing every tier now.

    With a *cache* (pytest's cacheprovider) the tier model comes from it when
    nothing it was derived from changed (:mod:`tierlock.probing.facts`);
    otherwise the project is loaded in full and the cache entry rewritten. The
    probe itself always runs, from the files.
    """
    from tierlock.probing import facts as model

    key = model.base_key(pyproject, text)
    name = model.cache_name(pyproject)
    if cache is not None:
        cached = model.from_entry(cache.get(name, None), key)
        if cached is not None:
            return _gate(cached, model.probe_facts(cached), strict, why) if cached.configured else None
    from tierlock.errors import TierlockError
    from tierlock.probing import probe_tiers
    from tierlock.tiers.loader import parse_project, parse_toml

    try:
        data = parse_toml(text, pyproject)
        tool = data.get("tool")
        if not (isinstance(tool, dict) and "tierlock" in tool):
            # No tier table: leave the project alone, even when the rest of its pyproject would not load.
            _remember(cache, name, model.entry(key, {}, model.unconfigured(pyproject)))
            return None
        project = parse_project(data, pyproject=pyproject, text=text)
        stamps = model.lock_stamps([str(t.lockfile) for t in project.tiers.values()])
        results = probe_tiers(None, project)
    except TierlockError as err:
        raise pytest.UsageError("tierlock: " + "\n".join(err.lines())) from err
    facts = model.facts_of(project, results)
    _remember(cache, name, model.entry(key, stamps, facts))
    return _gate(facts, results, strict, why)


def _remember(cache: _Cache | None, name: str, value: object) -> None:
    """Write the cache entry, best effort: a read-only checkout must not fail the run (or warn as an error)."""
    if cache is None:
        return
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cache.set(name, value)


def _gate(facts: ProjectFacts, results: Sequence[TierProbe] | Sequence[TierVerdict], strict: bool, why: str) -> Gate:
    gate = Gate(
        root=facts.root,
        strict=strict,
        why=why,
        states={r.tier: r.state for r in results},
        gated={},
        install={r.tier: r.install_command for r in results},
        broken={},
    )
    for r in results:
        if r.present:
            continue
        gate.gated[r.tier] = list(facts.tier(r.tier).tests)
        gate.broken[r.tier] = [f"{d.name}: {d.state} — {'; '.join(d.reasons) or d.state}" for d in r.broken]
    gate.required = list(facts.ci_require)
    return gate


def fail_closed_message(gate: Gate, failing: Iterable[str]) -> list[str]:
    lines: list[str] = []
    for tier in failing:
        lines.append(f"tierlock: tier {tier} is required in CI (ci-require) but it is {gate.states[tier]}:")
        lines.extend(f"  - {line}" for line in gate.broken[tier])
        lines.append(f"  to fix: {gate.install[tier]}")
    lines.append(
        f"tierlock: stopping before collection ({gate.why}), because {COVERAGE_LOSS}. "
        "To run without the tier on purpose: --tierlock-lenient or TIERLOCK_STRICT=0."
    )
    return lines


# -- collection ----------------------------------------------------------------
def _rel(gate: Gate, path: Path) -> str | None:
    try:
        return path.relative_to(gate.root).as_posix()
    except ValueError:
        return None


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    gate = config.stash.get(_GATE, None)
    if gate is None or not gate.gated:
        return None
    rel = _rel(gate, collection_path)
    if not rel or rel == ".":
        return None
    if collection_path.is_dir():
        if gate.tier_covering_dir(rel) is None:
            return None
        gate.ignored.update(str(p) for p in _test_files(collection_path, _patterns(config)))
        return True
    if gate.tier_of(rel) is None:
        return None
    if _is_test_file(collection_path.name, _patterns(config)):
        gate.ignored.add(str(collection_path))
    return True  # never False: that would override --ignore and other plugins


class GatedFile(pytest.File):
    """Stands in for a test module of a tier that is not present; never imports it.

    Its one child is a skipped entry named after the file; when the command
    line names tests inside it (``file.py::TestX::test_y``, as IDEs do), it
    has skipped entries of those names instead, so pytest finds what it was
    asked for without importing the module.
    """

    reason: str = ""

    def collect(self) -> Iterable[pytest.Item | pytest.Collector]:
        chains = requested_names(self.config.args, self.config.invocation_params.dir, self.path)
        return gated_children(self, chains or [[self.path.name]], self.reason)


class GatedGroup(pytest.Collector):
    """A class (or other collector) named on the command line inside a gated file."""

    reason: str = ""
    chains: tuple[tuple[str, ...], ...] = ()

    def collect(self) -> Iterable[pytest.Item | pytest.Collector]:
        return gated_children(self, self.chains, self.reason)


def requested_names(args: Iterable[str], base: Path, path: Path) -> list[list[str]]:
    """The ``::`` parts of the collection arguments that name tests inside the file *path*."""
    out: list[list[str]] = []
    for arg in args:
        head, sep, rest = str(arg).partition("::")
        if sep and rest and Path(os.path.abspath(base / head)) == path:
            out.append(rest.split("::"))
    return out


def gated_children(
    parent: pytest.Collector, chains: Sequence[Sequence[str]], reason: str
) -> list[pytest.Item | pytest.Collector]:
    """Skipped entries (and the collectors that hold them) for each chain of names below *parent*."""
    tails: dict[str, list[tuple[str, ...]]] = {}
    for chain in chains:
        tails.setdefault(chain[0], []).append(tuple(chain[1:]))
    out: list[pytest.Item | pytest.Collector] = []
    for name, rest in tails.items():
        deeper = [t for t in rest if t]
        if deeper:
            group = GatedGroup.from_parent(parent, name=name)
            group.reason, group.chains = reason, tuple(deeper)
            out.append(group)
        else:
            item = GatedItem.from_parent(parent, name=name)
            item.reason = reason
            out.append(item)
    return out


class GatedItem(pytest.Item):
    """One skipped entry for a gated file named on the command line, reported at the file."""

    reason: str = ""

    def runtest(self) -> None:
        raise pytest.skip.Exception(self.reason, _use_item_location=True)

    def reportinfo(self) -> tuple[Path, int, str]:
        return self.path, 0, self.name


@pytest.hookimpl(tryfirst=True)
def pytest_pycollect_makemodule(module_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    gate = parent.config.stash.get(_GATE, None)
    if gate is None or not gate.gated:
        return None
    rel = _rel(gate, module_path)
    tier = gate.tier_of(rel) if rel else None
    if tier is None:
        return None
    gate.ignored.add(str(module_path))
    node = GatedFile.from_parent(parent, path=module_path)
    node.reason = f"{NOT_IMPORTED} {gate.reason(tier)}"
    return node


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    gate = config.stash.get(_GATE, None)
    if gate is None:
        return
    for item in items:
        marker = item.get_closest_marker("tier")
        if marker is None:
            continue
        name = marker.args[0] if marker.args else marker.kwargs.get("name")
        if not isinstance(name, str):
            raise pytest.UsageError(f"{item.nodeid}: the tier marker needs a tier name: @pytest.mark.tier('brain')")
        tier = _canonical(name)
        if tier not in gate.states:
            declared = ", ".join(gate.states)
            raise pytest.UsageError(f"{item.nodeid}: unknown tier {name!r} in its tier marker; declared: {declared}")
        if gate.states[tier] != "present":
            item.add_marker(pytest.mark.skip(reason=gate.reason(tier)))


def _canonical(name: str) -> str:
    from tierlock.probing import normalize

    return normalize(name)


# -- reporting -----------------------------------------------------------------
def pytest_report_header(config: pytest.Config) -> list[str]:
    gate = config.stash.get(_GATE, None)
    if gate is None:
        return []
    return header_lines(gate)


def header_lines(gate: Gate) -> list[str]:
    states = " · ".join(f"{tier} {state}" for tier, state in gate.states.items())
    line = f"tierlock: {states}"
    if gate.gated:
        files = f"{gate.expected} test file{'s' if gate.expected != 1 else ''}"
        commands = ", ".join(gate.install[t] for t in gate.gated)
        line += f" — {files} not collected; to run them: {commands}"
    mode = "strict" if gate.strict else "lenient"
    lines = [line, f"tierlock: {mode} ({gate.why})"]
    for tier, broken in gate.broken.items():
        lines.extend(f"tierlock:   {tier}: {text}" for text in broken if " absent — " not in text)
    return lines


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
    gate = config.stash.get(_GATE, None)
    if gate is None:
        return
    skipped = 0
    for report in terminalreporter.stats.get("skipped", []):
        longrepr = getattr(report, "longrepr", None)
        text = str(longrepr[2]) if isinstance(longrepr, tuple) and len(longrepr) == 3 else ""
        if "; to run these tests: " in text and NOT_IMPORTED not in text:
            skipped += 1
    not_present = [f"{t} {gate.states[t]}" for t in gate.gated]
    if not not_present:
        terminalreporter.write_line(f"tierlock: every tier present ({len(gate.states)} checked)")
        return
    files = gate.not_collected
    terminalreporter.write_line(
        f"tierlock: {files} test file{'s' if files != 1 else ''} not collected and "
        f"{skipped} test{'s' if skipped != 1 else ''} skipped because {', '.join(not_present)}; "
        f"to run them: {', '.join(gate.install[t] for t in gate.gated)}"
    )


# -- pytest-xdist: the controller decides, workers agree ------------------------
@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: Any) -> None:
    gate = node.config.stash.get(_GATE, None)
    if gate is not None:
        node.workerinput[_WIRE] = gate.wire()


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: Any) -> None:
    gate = node.config.stash.get(_GATE, None)
    output = getattr(node, "workeroutput", None) or {}
    if gate is not None and _WIRE in output:
        gate.worker_ignored = max(gate.worker_ignored, int(output[_WIRE]))


def pytest_sessionfinish(session: pytest.Session) -> None:
    gate = session.config.stash.get(_GATE, None)
    workeroutput = getattr(session.config, "workeroutput", None)
    if gate is not None and workeroutput is not None:
        workeroutput[_WIRE] = len(gate.ignored)


# -- counting gated test files before collection ----------------------------------
def _patterns(config: pytest.Config) -> list[str]:
    value = config.getini("python_files")
    return [str(v) for v in value] if isinstance(value, list) else ["test_*.py", "*_test.py"]


def _is_test_file(name: str, patterns: Sequence[str]) -> bool:
    return name.endswith(".py") and any(fnmatch.fnmatch(name, p) for p in patterns)


def _test_files(folder: Path, patterns: Sequence[str]) -> list[Path]:
    out: list[Path] = []
    for dirpath, dirnames, filenames in os.walk(folder):
        dirnames[:] = [d for d in dirnames if not d.startswith(".") and d not in _SKIP_DIRS]
        out.extend(Path(dirpath, f) for f in filenames if _is_test_file(f, patterns))
    return out


def count_gated_files(config: pytest.Config, gate: Gate) -> int:
    """How many test files under the collection arguments the gate will keep out."""
    import re

    root = Path(gate.root)
    patterns = _patterns(config)
    base = config.invocation_params.dir
    args = [(base / str(a).split("::", 1)[0]).resolve() for a in config.args] or [root]
    found: set[Path] = set()
    for globs in gate.gated.values():
        for glob in globs:
            literal = re.split(r"[*?\[]", glob.replace("\\", "/"), maxsplit=1)[0].lstrip("./")
            start = root / literal.rstrip("/")
            while not start.is_dir() and start != root:
                start = start.parent
            for path in _test_files(start, patterns):
                rel = path.relative_to(root).as_posix()
                if gate.tier_of(rel) and any(path == a or path.is_relative_to(a) for a in args):
                    found.add(path)
    return len(found)
