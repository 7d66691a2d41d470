"""tierlock's pytest plugin (entry point ``pytest11: tierlock``; disable with ``-p no:tierlock``).

For the project at pytest's rootdir it probes every declared tier once, from
files (never importing), in the earliest hook a plugin gets
(``pytest_load_initial_conftests``, before conftests are imported), and then:

* does not collect the test files of a tier that is not present (its
  ``tests`` globs), and skips tests marked ``@pytest.mark.tier("name")``;
* prints a header line and a summary line with the counts, naming only the
  tiers that matter in this run;
* in CI (or with ``--tierlock-strict`` / ``TIERLOCK_STRICT=1``) stops before
  conftests and collection, with exit code 6, when the run selects tests of a
  ``ci-require`` tier that is absent or partial: a skipped tier on a green run
  is silent coverage loss.

The modules: :mod:`.gate` (the decision), :mod:`.selection` (what the run
selects, the census), :mod:`.collect` (gating at collection) and
:mod:`.report` (header and summary). Under pytest-xdist the controller decides
once and hands the decision to its workers.
"""

from __future__ import annotations

import sys
from collections.abc import Generator
from pathlib import Path
from typing import Any

import pytest

from tierlock.pytest_plugin.collect import (
    NOT_IMPORTED,
    GatedFile,
    GatedGroup,
    GatedItem,
    gated_children,
    requested_names,
)
from tierlock.pytest_plugin.gate import (
    COVERAGE_LOSS,
    EXIT_TIER_MISSING,
    Gate,
    decide,
    early_cache,
    fail_closed_message,
    gate_for,
    parse_strict_env,
    strictness,
)
from tierlock.pytest_plugin.report import header_lines, summary_line

__all__ = [
    "COVERAGE_LOSS",
    "EXIT_TIER_MISSING",
    "NOT_IMPORTED",
    "Gate",
    "GatedFile",
    "GatedGroup",
    "GatedItem",
    "fail_closed_message",
    "gate_for",
    "gated_children",
    "header_lines",
    "parse_strict_env",
    "requested_names",
    "strictness",
    "summary_line",
]

_WIRE = "tierlock"
_GATE = pytest.StashKey["Gate | None"]()
_CACHE = pytest.StashKey[Any]()
_STOP = pytest.StashKey[bool]()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("tierlock", "tierlock: gate tests on dependency tiers")
    group.addoption(
        "--tierlock-strict",
        action="store_true",
        default=False,
        help="fail before collection when the run selects tests of a ci-require tier that is absent or partial "
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


def _fail_closed(gate: Gate) -> None:
    """Print the fail-closed lines, once."""
    sys.stderr.write("\n".join(fail_closed_message(gate, gate.failing)) + "\n")
    sys.stderr.flush()


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_load_initial_conftests(early_config: pytest.Config, args: list[str]) -> Generator[None]:
    """Decide before any conftest is imported (and before the warnings plugin re-applies ``filterwarnings``).

    A strict run that must fail closed says so now, loads no conftest, and
    :func:`pytest_cmdline_main` ends it with :data:`EXIT_TIER_MISSING` before
    any session starts (no traceback, no second ``Exit`` line, no workers).
    """
    # Every process decides here, xdist workers too: a worker cannot be told at this point from a pytest run
    # started inside one (its environment says PYTEST_XDIST_WORKER as well); a worker then takes the
    # controller's decision in pytest_configure, and only a run that is not a worker stops.
    namespace = early_config.known_args_namespace
    cache = early_cache(early_config)
    gate = decide(early_config, cache, getattr(namespace, "file_or_dir", None) or [])
    early_config.stash[_GATE] = gate
    early_config.stash[_CACHE] = cache
    if gate is not None and gate.strict and gate.failing and not _informational(namespace):
        _fail_closed(gate)
        early_config.stash[_STOP] = True
        namespace.noconftest = True
    try:
        return (yield)
    except Exception as exc:
        if early_config.stash.get(_STOP, False):
            # The run fails closed and said so: what broke next (a `filterwarnings` entry or a conftest naming
            # the missing tier's package) is a consequence, so the run ends with the gate's own code.
            raise SystemExit(EXIT_TIER_MISSING) from None
        if gate is not None:
            _explain(gate, exc)
        raise


def _explain(gate: Gate, exc: BaseException) -> None:
    """A conftest failed to import a missing tier's package: say which tier and its remedy before pytest's report."""
    import re

    text = f"{exc} {getattr(exc, 'cause', '')}"
    words = set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", text))
    missing = [t for t, names in gate.roots.items() if words.intersection(names)]
    if missing:
        states = ", ".join(f"{t} {gate.states[t]}" for t in missing)
        sys.stderr.write(f"tierlock: {states}; to fix: {gate.remedy(missing)}\n")
        sys.stderr.flush()


@pytest.hookimpl(tryfirst=True)
def pytest_cmdline_main(config: pytest.Config) -> int | None:
    """End a run that failed closed (its lines are printed already) with :data:`EXIT_TIER_MISSING`."""
    if config.stash.get(_STOP, False) and getattr(config, "workerinput", None) is None:
        return EXIT_TIER_MISSING
    return None


@pytest.hookimpl(trylast=True)
def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "tier(name): the test needs tier NAME; skipped when the tier is not present")
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
        _fail_closed(gate)
        pytest.exit("tierlock: failing closed (see above)", returncode=EXIT_TIER_MISSING)


def _gate(config: pytest.Config) -> Gate | None:
    return config.stash.get(_GATE, None)


# -- collection ----------------------------------------------------------------
def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    gate = _gate(config)
    if gate is None or not gate.gated:
        return None
    from tierlock.pytest_plugin.collect import ignore_collect

    return ignore_collect(gate, collection_path, config)


@pytest.hookimpl(tryfirst=True)
def pytest_pycollect_makemodule(module_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    gate = _gate(parent.config)
    if gate is None or not gate.gated:
        return None
    from tierlock.pytest_plugin.collect import make_module

    return make_module(gate, module_path, parent)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    gate = _gate(config)
    if gate is None:
        return
    from tierlock.pytest_plugin.collect import skip_marked

    skip_marked(gate, items)


# -- reporting -----------------------------------------------------------------
def pytest_report_header(config: pytest.Config) -> list[str]:
    gate = _gate(config)
    return [] if gate is None else header_lines(gate)


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
    gate = _gate(config)
    if gate is not None:
        terminalreporter.write_line(summary_line(gate, terminalreporter.stats.get("skipped", [])))


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
        gate.worker_ignored = max(gate.worker_ignored, int(output[_WIRE]))


def pytest_sessionfinish(session: pytest.Session) -> None:
    gate = _gate(session.config)
    workeroutput = getattr(session.config, "workeroutput", None)
    if gate is not None and workeroutput is not None:
        workeroutput[_WIRE] = len(gate.ignored)
