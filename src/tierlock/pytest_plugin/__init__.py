"""tierlock's pytest plugin (entry point ``pytest11: tierlock``; disable with ``-p no:tierlock``).

For the project at pytest's rootdir it probes every declared tier once, from
files (never importing), in the earliest hook a plugin gets
(``pytest_load_initial_conftests``, before conftests are imported), and then:

* does not collect the test files of a tier that is not present (its
  ``tests`` globs), by any collector, and skips tests marked
  ``@pytest.mark.tier("name")``;
* in CI (or with ``--tierlock-strict`` / ``TIERLOCK_STRICT=1``) stops before
  conftests and collection, with exit code 6, when a ``ci-require`` tier is
  damaged, or when the run selects tests of one that is absent or partial;
* attributes, while the run goes, every skip, error or failure a missing
  tier causes (the backstop): a strict run then ends with exit code 6 naming
  each test; a lenient one counts it as a skip with the tier's remedy;
* prints a header line and a summary line per tier with the counts.

The modules, in the order the data flows: :mod:`.strictness` (the mode and a
matrix job's tiers), :mod:`.project_state` (probe, damage, owners),
:mod:`.selection` and :mod:`.static_items` (what the run selects),
:mod:`.needs` (the census of the selection), :mod:`.startup` (the decision,
a :class:`~.decision.Gate`), :mod:`.collection` (gating at collection),
:mod:`.attribution` and :mod:`.backstop` (the run-time backstop) and
:mod:`.messages` (what is printed). Under pytest-xdist the controller decides
once and hands the decision to its workers.
"""

from __future__ import annotations

import sys
from collections.abc import Generator
from pathlib import Path
from typing import Any

import pytest

from tierlock.errors import EXIT_TIER_MISSING
from tierlock.pytest_plugin import failedimports
from tierlock.pytest_plugin.backstop import attribute, failing_at_end, relpath, tally
from tierlock.pytest_plugin.caches import early_cache
from tierlock.pytest_plugin.decision import Gate
from tierlock.pytest_plugin.messages import fail_closed_at_end, fail_closed_message, header_lines, summary_lines
from tierlock.pytest_plugin.selection import Selection
from tierlock.pytest_plugin.startup import decide
from tierlock.pytest_plugin.strictness import COVERAGE_LOSS, parse_strict_env, strictness

__all__ = [
    "COVERAGE_LOSS",
    "EXIT_TIER_MISSING",
    "Gate",
    "fail_closed_message",
    "header_lines",
    "parse_strict_env",
    "strictness",
    "summary_lines",
]

_WIRE = "tierlock"
_GATE = pytest.StashKey["Gate | None"]()
_CACHE = pytest.StashKey[Any]()
_STOP = pytest.StashKey[bool]()
_SELECTION = pytest.StashKey[Selection]()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("tierlock", "tierlock: gate tests on dependency tiers")
    group.addoption(
        "--tierlock-strict",
        action="store_true",
        default=False,
        help="fail when the run needs a ci-require tier that is absent or partial, or one is damaged "
        "(the default in CI)",
    )
    group.addoption(
        "--tierlock-lenient",
        action="store_true",
        default=False,
        help="never fail for missing tiers, even in CI: not-present tiers' tests are not collected",
    )


def _informational(namespace: Any) -> bool:
    """``--help``, ``--version``, ``--markers``, ``--fixtures``: runs that test nothing never fail closed."""
    names = ("help", "version", "markers", "showfixtures", "show_fixtures_per_test")
    return any(getattr(namespace, name, False) for name in names)


def _print_err(lines: list[str]) -> None:
    sys.stderr.write("\n".join(lines) + "\n")
    sys.stderr.flush()


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_load_initial_conftests(early_config: pytest.Config, args: list[str]) -> Generator[None]:
    """Decide before any conftest is imported (and before the warnings plugin re-applies ``filterwarnings``).

    A strict run that must fail closed says so now, loads no conftest, and
    :func:`pytest_cmdline_main` ends it with :data:`EXIT_TIER_MISSING` before
    any session starts (no traceback, no second ``Exit`` line, no workers).
    Its command line is not parsed any further: the options a conftest would
    have added (``--constructors``) must not turn the stop into a usage error.
    """
    # Every process decides here, xdist workers too: a worker cannot be told at this point from a pytest run
    # started inside one (its environment says PYTEST_XDIST_WORKER as well); a worker then takes the
    # controller's decision in pytest_configure, and only a run that is not a worker stops. (No SystemExit here:
    # pytester's in-process runs cannot report one raised this early.)
    namespace = early_config.known_args_namespace
    cache = early_cache(early_config)
    gate = decide(early_config, cache, getattr(namespace, "file_or_dir", None) or [])
    early_config.stash[_GATE] = gate
    early_config.stash[_CACHE] = cache
    if gate is not None and gate.owners:
        failedimports.start(early_config, gate.owners)  # before the conftests: their tops' imports count
    if gate is not None and gate.strict and gate.failing and not _informational(namespace):
        _print_err(fail_closed_message(gate, gate.failing, verbose=_verbose(namespace)))
        early_config.stash[_STOP] = True
        namespace.noconftest = True
        args[:] = []
    try:
        return (yield)
    except (Exception, pytest.skip.Exception) as exc:  # an initial conftest's module-level importorskip: Skipped
        if early_config.stash.get(_STOP, False):
            # The run fails closed and said so: what broke next (a `filterwarnings` entry or a conftest naming
            # the missing tier's package) is a consequence, so the run ends with the gate's own code.
            raise SystemExit(EXIT_TIER_MISSING) from None
        if gate is not None and _explain(gate, exc):
            early_config.stash[_STOP] = True  # pytest_cmdline_main ends the run with the gate's code
            args[:] = []
            return None
        raise


@pytest.hookimpl(tryfirst=True)
def pytest_cmdline_main(config: pytest.Config) -> int | None:
    """End a run that failed closed (its lines are printed already) with :data:`EXIT_TIER_MISSING`."""
    if config.stash.get(_STOP, False) and getattr(config, "workerinput", None) is None:
        return EXIT_TIER_MISSING
    return None


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_sessionstart(session: pytest.Session) -> Generator[None]:
    """A session start (a project's own test plugin opening its database driver) that fails to import a missing
    tier's package: name the tier and its remedy; strict with the tier required, end the run with the gate's code
    rather than pytest's internal error."""
    try:
        return (yield)
    except Exception as exc:
        gate = _gate(session.config)
        if gate is not None and _explain(gate, exc, where="session start"):
            raise pytest.exit("tierlock: failing closed", returncode=EXIT_TIER_MISSING) from None
        raise


def _explain(gate: Gate, exc: BaseException, where: str = "conftest.py") -> bool:
    """A conftest (or a session start: *where*) failed to import a missing tier's package: name the tier and its
    remedy.

    True when the run fails closed on it (strict, the tier required): its lines are printed, the run stops.
    """
    from tierlock.pytest_plugin.attribution import from_exception, from_skip_reason

    hit = from_exception(exc, gate.owners)
    if hit is None and isinstance(exc, pytest.skip.Exception):  # ``pytest.importorskip`` at a conftest's top
        hit = from_skip_reason(str(exc.msg or ""), gate.owners, gate.words)
    if hit is None:
        return False
    tier, _ = hit
    if gate.fails_closed_on(tier):
        text = str(exc).strip()
        detail = f"{type(exc).__name__}: {text.splitlines()[0] if text else ''}"
        gate.at_run[tier] = [[where, f"error while loading: {detail}", "failed"]]
        _print_err(fail_closed_at_end(gate, [tier], {}))
        return True
    _print_err([f"tierlock: {tier} {gate.state_of(tier)}; to fix: {gate.remedy([tier])}"])
    return False


@pytest.hookimpl(trylast=True)
def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "tier(name): the test needs tier NAME; skipped when the tier is not present")
    _configure(config)
    gate = _gate(config)
    if gate is not None:
        config.pluginmanager.register(_Tally(gate), "tierlock-tally")
    if gate is not None and gate.owners:
        failedimports.start(config, gate.owners)
        from tierlock.pytest_plugin.hidden import ProjectIgnores

        config.pluginmanager.register(ProjectIgnores(gate), "tierlock-hidden")


def _configure(config: pytest.Config) -> None:
    workerinput = getattr(config, "workerinput", None)
    if workerinput is not None:
        wire = workerinput.get(_WIRE)
        config.stash[_GATE] = Gate.from_wire(wire) if wire else None
        return
    if _GATE in config.stash:
        cache = config.stash.get(_CACHE, None)
        if cache is not None:
            cache.flush(getattr(config, "cache", None))
        return
    # Registered after the initial conftests (``-p`` from a conftest, ``pytest.main(plugins=...)``): decide now.
    gate = decide(config, getattr(config, "cache", None), [str(a) for a in config.args])
    config.stash[_GATE] = gate
    if gate is not None and gate.strict and gate.failing and not _informational(config.option):
        _print_err(fail_closed_message(gate, gate.failing, verbose=_verbose(config.option)))
        pytest.exit("tierlock: failing closed (see above)", returncode=EXIT_TIER_MISSING)


def _verbose(namespace: object) -> bool:
    """Whether the run asked for every line (``-v``): the plugin's listings are cut short otherwise."""
    return int(getattr(namespace, "verbose", 0) or 0) > 0


def _gate(config: pytest.Config) -> Gate | None:
    return config.stash.get(_GATE, None)


def _selection(config: pytest.Config) -> Selection:
    if _SELECTION not in config.stash:
        config.stash[_SELECTION] = Selection(config, [str(a) for a in config.args])
    return config.stash[_SELECTION]


# -- collection ----------------------------------------------------------------
@pytest.hookimpl(trylast=True)
def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """Asked last: a path pytest itself ignores (``--ignore``, ``collect_ignore`` ...) is never counted here."""
    gate = _gate(config)
    if gate is None or not gate.gated:
        return None
    from tierlock.pytest_plugin.collection import ignore_collect

    return ignore_collect(gate, collection_path, config, _selection(config))


@pytest.hookimpl(tryfirst=True)
def pytest_pycollect_makemodule(module_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    gate = _gate(parent.config)
    if gate is None or not gate.gated:
        return None
    from tierlock.pytest_plugin.collection import make_module

    return make_module(gate, module_path, parent, _selection(parent.config))


@pytest.hookimpl(wrapper=True)
def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> Generator[None, list[Any], list[Any]]:
    """A gated file keeps only its stand-in: no other collector (``--doctest-modules``) ever imports it."""
    collectors = yield
    gate = _gate(parent.config)
    if gate is None or not gate.gated or not collectors:
        return collectors
    from tierlock.pytest_plugin.collection import only_gated

    return only_gated(gate, file_path, collectors)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    gate = _gate(config)
    if gate is None:
        return
    from tierlock.pytest_plugin.collection import skip_marked

    skip_marked(gate, items)


# -- the run-time backstop -------------------------------------------------------
@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Generator[None, Any, Any]:
    report = yield
    gate = _gate(item.config)
    failed = failedimports.phase(item.config)
    if gate is not None and (gate.owners or gate.job or gate.gated):
        exc = call.excinfo.value if call.excinfo else None
        if report.skipped and not failed and exc is not None:
            failed = failedimports.where_raised(item, exc)
        ever = failedimports.ever(item.config) if report.failed or report.skipped else []
        marks = [m.name for m in item.iter_markers()] if report.skipped else []
        test = (str(item.path), item.nodeid) if report.skipped else None
        attribute(gate, report, exc, call.when, failed=failed, ever=ever, marks=marks, test=test)
    return report


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    failedimports.phase(item.config)  # a phase's failed imports are its own


@pytest.hookimpl(tryfirst=True)
def pytest_collectstart(collector: pytest.Collector) -> None:
    failedimports.phase(collector.config)


@pytest.hookimpl(wrapper=True)
def pytest_make_collect_report(collector: pytest.Collector) -> Generator[None, Any, Any]:
    report = yield
    gate = _gate(collector.config)
    failed = failedimports.phase(collector.config)
    if gate is not None and (gate.owners or gate.job or gate.gated) and not report.passed:
        call = report.__dict__.get("call")
        excinfo = getattr(call, "excinfo", None)
        kept = _kept_module(collector)
        attribute(gate, report, excinfo.value if excinfo else None, "collection", kept=kept, failed=failed)
    return report


def _kept_module(collector: pytest.Collector) -> bool:
    """Whether the run keeps a test of the module *collector* stands for (``-k``, ``-m``, node ids; folders: yes)."""
    path = getattr(collector, "path", None)
    if not isinstance(collector, pytest.File) or path is None:
        return True
    selection = _selection(collector.config)
    return not selection.narrows(str(path)) or bool(selection.kept_items(str(path)))


class _Tally:
    """Keeps this session's attributed reports (report hooks get no config: one per config, nested runs apart)."""

    def __init__(self, gate: Gate) -> None:
        self.gate = gate

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        tally(self.gate, report)

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        tally(self.gate, report)


# -- reporting -----------------------------------------------------------------
def pytest_report_header(config: pytest.Config) -> list[str]:
    gate = _gate(config)
    return [] if gate is None else header_lines(gate, verbose=_verbose(config.option))


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
    gate = _gate(config)
    if gate is None:
        return
    for line in summary_lines(gate):
        terminalreporter.write_line(line)
    failing = failing_at_end(gate)
    if failing:
        files = {f: relpath(gate, f) for t in failing for f in gate.reached().get(t, ())}
        for line in fail_closed_at_end(gate, failing, files):
            terminalreporter.write_line(line)


# -- pytest-xdist: the controller decides, workers agree ------------------------
@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: Any) -> None:
    gate = _gate(node.config)
    if gate is not None:
        node.workerinput[_WIRE] = gate.wire()


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: Any) -> None:
    gate = _gate(node.config)
    output = getattr(node, "workeroutput", None) or {}
    if gate is not None and _WIRE in output:
        kept = output[_WIRE]
        gate.worker_ignored = max(gate.worker_ignored, len({f for files in kept.values() for f in files}))
        for tier, files in kept.items():
            gate.worker_kept.setdefault(tier, set()).update(files)


def pytest_sessionfinish(session: pytest.Session) -> None:
    gate = _gate(session.config)
    if gate is None:
        return
    workeroutput = getattr(session.config, "workeroutput", None)
    if workeroutput is not None:
        workeroutput[_WIRE] = {t: sorted(files) for t, files in gate.kept_by_tier.items()}
        return
    if failing_at_end(gate):
        session.exitstatus = EXIT_TIER_MISSING
