"""The gate's decision for one pytest run: which tiers are present, what the run selects, strict or not.

Made once, in the earliest hook the plugin gets (before conftests load), by
the xdist controller or a plain run, and handed to xdist workers as plain data
(:meth:`Gate.wire`). Light at import: the tier model, the probe and the census
are imported only for a project with a tier table.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import pytest

from tierlock.ci import is_ci

if TYPE_CHECKING:
    from tierlock.probing import TierProbe
    from tierlock.probing.facts import ProjectFacts, TierVerdict

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}
COVERAGE_LOSS = "a skipped tier on a green run is silent coverage loss"
#: The exit code of a run that fails closed (pytest's own codes are 0 to 5): a CI log tells
#: "tier missing" from "tests failed" (1) by it.
EXIT_TIER_MISSING = 6


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
        named: int = 0,
        selection: list[str] | None = None,
        roots: dict[str, list[str]] | None = None,
        needed: dict[str, int] | None = None,
        globbed: dict[str, int] | None = None,
        layers: dict[str, str | None] | None = None,
        failing: list[str] | None = None,
        globs: dict[str, list[str]] | None = None,
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
        """Gated test files in the run's selection (counted before collection)."""
        self.named = named
        """Tests named on the command line (``file.py::test``) inside gated files."""
        self.selection: list[str] = [] if selection is None else selection
        """The run's collection arguments as absolute paths (without ``::`` parts)."""
        self.roots: dict[str, list[str]] = {} if roots is None else roots
        """Tier that is not present -> its import names (to attribute ``importorskip`` skips)."""
        self.needed: dict[str, int] = {} if needed is None else needed
        """Tier that is not present -> files of the selection that need it (census: imports, markers, fixtures)."""
        self.globbed: dict[str, int] = {} if globbed is None else globbed
        """Tier -> test files of the selection its globs match."""
        self.layers: dict[str, str | None] = {} if layers is None else layers
        """Tier -> the tier it is layered on (for the one shortest remedy)."""
        self.failing: list[str] = [] if failing is None else failing
        """Required tiers, not present, that the selection needs: a strict run fails closed on them."""
        self.globs: dict[str, list[str]] = {} if globs is None else globs
        """Every tier with ``tests`` globs -> its globs."""
        # Per-process counters (not sent to workers).
        self.ignored: set[str] = set()
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
            "named": self.named,
            "selection": list(self.selection),
            "roots": {k: list(v) for k, v in self.roots.items()},
            "needed": dict(self.needed),
            "globbed": dict(self.globbed),
            "layers": dict(self.layers),
            "failing": list(self.failing),
            "globs": {k: list(v) for k, v in self.globs.items()},
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

    def remedy(self, tiers: Iterable[str]) -> str:
        """The one command that arms every tier in *tiers* (leaving out those another is layered on)."""
        from tierlock.remedies import install_remedy

        names = list(tiers)
        layers = self.layers or dict.fromkeys(names)
        unlocked = [t for t in names if self.install.get(t, "").startswith("tierlock lock ")]  # no lockfile yet
        return install_remedy(names, layers, unlocked=unlocked) or ", ".join(self.install[t] for t in names)

    def reason(self, tiers: str | Sequence[str]) -> str:
        names = [tiers] if isinstance(tiers, str) else list(tiers)
        states = ", ".join(f"{t} is {self.states.get(t, 'unknown')}" for t in names)
        return f"tier {states}; to run these tests: {self.remedy(names)}"

    def relevant(self) -> list[str]:
        """The tiers worth naming in this run: they gate something it selected, or CI requires them."""
        out = []
        for tier in self.states:
            required = self.strict and tier in self.required
            if self.globbed.get(tier, 0) or self.needed.get(tier, 0) or required:
                out.append(tier)
        return out

    def in_selection(self, path: str) -> bool:
        """Whether the absolute *path* is (below) one of the run's collection arguments."""
        return any(path == s or path.startswith(s.rstrip(os.sep) + os.sep) for s in self.selection)

    @property
    def not_collected(self) -> int:
        return max(len(self.ignored), self.worker_ignored)


def fail_closed_message(gate: Gate, failing: Iterable[str]) -> list[str]:
    """The lines a strict run prints once before it stops: what is missing, and the one command that fixes it."""
    names = list(failing)
    lines: list[str] = []
    for tier in names:
        lines.append(f"tierlock: tier {tier} is required in CI (ci-require) but it is {gate.states[tier]}:")
        lines.extend(f"  - {line}" for line in gate.broken[tier])
        needed = gate.globbed.get(tier, 0) + gate.needed.get(tier, 0)
        if needed:
            lines.append(f"  this run selects {needed} test file(s) that need it")
    lines.append(f"  to fix: {gate.remedy(names)}")
    lines.append(
        f"tierlock: stopping before collection ({gate.why}), because {COVERAGE_LOSS}. "
        f"Exit code {EXIT_TIER_MISSING}. To run without the tier on purpose: --tierlock-lenient or TIERLOCK_STRICT=0."
    )
    return lines


# -- deciding -----------------------------------------------------------------------
class _Cache(Protocol):
    """What the plugin uses of pytest's ``config.cache``."""

    def get(self, key: str, default: Any) -> Any: ...

    def set(self, key: str, value: object) -> None: ...


def gate_for(pyproject: Path, text: str, cache: _Cache | None, strict: bool, why: str) -> Gate | None:
    """The gate for the project of *pyproject* (its *text* already read), probing every tier now.

    With a *cache* (pytest's cacheprovider, or :class:`EarlyCache`) the tier
    model comes from it when nothing it was derived from changed
    (:mod:`tierlock.probing.facts`); otherwise the project is loaded in full
    and the cache entry rewritten. The probe itself always runs, from the files.
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
        tier = facts.tier(r.tier)
        if tier.tests:
            gate.globs[r.tier] = list(tier.tests)
        if r.present:
            continue
        gate.gated[r.tier] = list(tier.tests)
        gate.broken[r.tier] = [f"{d.name}: {d.state} — {'; '.join(d.reasons) or d.state}" for d in r.broken]
        names: list[str] = []
        for dist in tier.probe:
            names.extend(tier.import_roots.get(dist) or (dist.replace("-", "_").replace(".", "_"),))
        gate.roots[r.tier] = list(dict.fromkeys(names))
    gate.required = list(facts.ci_require)
    return gate


class QuietCache:
    """A cache whose writes never fail or warn (:func:`_remember`), for the census's per-file entry."""

    def __init__(self, cache: _Cache) -> None:
        self.cache = cache

    def get(self, key: str, default: Any) -> Any:
        return self.cache.get(key, default)

    def set(self, key: str, value: object) -> None:
        _remember(self.cache, key, value)


class EarlyCache:
    """pytest's cache folder read before the cacheprovider is configured (the gate decides before conftests).

    Reads ``<cache_dir>/v/<key>`` as pytest's cache does; writes are kept and
    handed to ``config.cache`` once it exists (:meth:`flush`), so the folder
    and its ``.gitignore`` are still made by pytest.
    """

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.pending: dict[str, object] = {}

    def get(self, key: str, default: Any) -> Any:
        import json

        try:
            with open(self.folder / "v" / key, encoding="utf-8") as handle:
                return json.load(handle)
        except (OSError, ValueError):
            return default

    def set(self, key: str, value: object) -> None:
        self.pending[key] = value

    def flush(self, cache: _Cache | None) -> None:
        for key, value in self.pending.items():
            _remember(cache, key, value)
        self.pending.clear()


def early_cache(config: pytest.Config) -> EarlyCache | None:
    """The cache pytest will use for this run, or None with ``-p no:cacheprovider``."""
    if not config.pluginmanager.has_plugin("cacheprovider"):
        return None
    try:
        value = str(config.getini("cache_dir"))
    except ValueError:
        return None
    folder = Path(os.path.expanduser(os.path.expandvars(value)))
    return EarlyCache(folder if folder.is_absolute() else config.rootpath / folder)


def decide(config: pytest.Config, cache: _Cache | None, file_or_dir: Sequence[str]) -> Gate | None:
    """Probe the tiers of the project at the rootdir and weigh them against the run's selection.

    None when the project has no tier table. *file_or_dir* are the run's
    positional arguments (empty: ``testpaths``, else the invocation folder).
    """
    pyproject = config.rootpath / "pyproject.toml"
    try:
        text = pyproject.read_text(encoding="utf-8-sig")
    except OSError:
        return None
    if "tierlock" not in text:
        return None
    strict, why = strictness(_option(config, "tierlock_strict"), _option(config, "tierlock_lenient"), os.environ)
    gate = gate_for(pyproject, text, cache, strict, why)
    if gate is None:
        return gate
    from tierlock.pytest_plugin.selection import weigh

    weigh(gate, config, text, file_or_dir, QuietCache(cache) if cache is not None else None)
    return gate


def _option(config: pytest.Config, name: str) -> bool:
    namespace = getattr(config, "known_args_namespace", None)
    value = getattr(namespace, name, None)
    if value is None:
        value = config.getoption(name, False)
    return bool(value)
