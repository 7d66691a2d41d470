"""The gate's decision for one pytest run, as plain data: tier states, what the run selects, strict or not.

Made once, before conftests load, by the xdist controller or a plain run
(:mod:`.startup`), and handed to xdist workers as plain data
(:meth:`Gate.wire`). Light at import: a plain class, not a dataclass
(building a dataclass costs about a millisecond, and every pytest run imports
this module).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

#: Every field of the decision and its empty value (what :meth:`Gate.wire` hands on).
_DEFAULTS: dict[str, Any] = {
    "required": [],
    "expected": 0,
    "named": 0,
    "selection": [],
    "roots": {},
    "needed": {},
    "needing": {},
    "tests_needing": {},
    "globbed": {},
    "layers": {},
    "failing": [],
    "globs": {},
    "damaged": {},
    "owners": {},
    "words": {},
    "job": [],
    "apart": {},
    "rearm": {},
    "python": None,
    "outside": [],
    "exact": True,
    "project": None,
}


def _known(fields: Mapping[str, Any]) -> None:
    """A decision takes no other field than those of :data:`_DEFAULTS` (besides the required ones)."""
    unknown = set(fields) - set(_DEFAULTS)
    if unknown:
        raise TypeError(f"unknown fields of a decision: {', '.join(sorted(unknown))}")


class Gate:
    """The decision for one run, made once (by the xdist controller) and shared with workers.

    Required: ``root`` (the project folder), ``strict``, ``why`` (what decided
    the mode), ``states`` (tier -> present / partial / absent, in project
    order), ``gated`` (tier whose test files are not collected -> its globs),
    ``install`` (tier -> the command that arms it) and ``broken`` (tier not
    present -> one line per missing or broken package). The rest default to
    empty (see :data:`_DEFAULTS`):

    * ``required``: the tiers whose absence fails a strict run (``ci-require``,
      or a matrix job's own tiers); ``failing``: those the selection needs;
    * ``expected`` / ``named``: gated test files, and tests named inside them,
      in the selection (counted before collection); ``selection``: the run's
      collection arguments as absolute paths;
    * ``roots`` / ``owners`` / ``words``: per tier not present its import
      roots; import root -> its tier; distribution name -> its tier (each
      root given to the smallest tier that provides it);
    * ``needed`` / ``globbed``: per tier the selected files that need it
      (census) and that its globs match; ``needing``: per tier those files
      the census found (relative, ``/``); ``tests_needing``: per tier what in them needs it (``file::Class.test``,
      or ``file`` for each of its tests) and the root: a skip of it is the tier's; ``globs``: every tier's globs;
    * ``layers``: tier -> the tier it is layered on; ``damaged``: tier ->
      its damage lines; ``job``: a matrix job's tiers; ``apart``: tier not
      present -> the present tier it is declared in conflict with (outside a
      matrix job: this environment holds the other one); ``python``: the
      interpreter a remedy must name (None: the default target); ``outside``: why this interpreter is outside the
      project's ``requires-python``, the command that makes its venv again ("" when none) and its prefix (empty
      inside: every remedy then makes the venv again first); ``project``: the ``--project`` every
      ``tierlock`` and ``install-tier`` command of a remedy names (None: pytest ran where that is the project);
    * ``exact``: whether the counts before collection are the run's own
      (False when ``-k``/``-m`` or a computed ``collect_ignore`` narrow it).
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
        **rest: Any,
    ) -> None:
        _known(rest)
        self.root = root
        self.strict = strict
        self.why = why
        self.states = states
        self.gated = gated
        self.install = install
        self.broken = broken
        self.required: list[str] = rest.get("required", [])
        self.expected: int = rest.get("expected", 0)
        self.named: int = rest.get("named", 0)
        self.selection: list[str] = rest.get("selection", [])
        self.roots: dict[str, list[str]] = rest.get("roots", {})
        self.needed: dict[str, int] = rest.get("needed", {})
        self.needing: dict[str, list[str]] = rest.get("needing", {})
        self.tests_needing: dict[str, dict[str, str]] = rest.get("tests_needing", {})
        self.globbed: dict[str, int] = rest.get("globbed", {})
        self.layers: dict[str, str | None] = rest.get("layers", {})
        self.failing: list[str] = rest.get("failing", [])
        self.globs: dict[str, list[str]] = rest.get("globs", {})
        self.damaged: dict[str, list[str]] = rest.get("damaged", {})
        self.owners: dict[str, str] = rest.get("owners", {})
        self.words: dict[str, str] = rest.get("words", {})
        self.job: list[str] = rest.get("job", [])
        self.apart: dict[str, str] = rest.get("apart", {})
        self.rearm: dict[str, list[str]] = rest.get("rearm", {})
        """Tier -> the armed tiers whose pins its install-tier replaces (it needs ``--replace-armed``)."""
        self.python: str | None = rest.get("python")
        self.outside: list[str] = rest.get("outside", [])
        self.exact: bool = rest.get("exact", True)
        self.project: str | None = rest.get("project")
        self._per_process()

    def _per_process(self) -> None:
        """What each process keeps for itself (never sent to workers): what it kept out and attributed."""
        self.ci_require: list[str] = list(self.required)
        """The project's ``ci-require`` tiers (``required`` becomes a matrix job's own tiers; damage uses both)."""
        self.all_owners: dict[str, str] = {}
        """Every tier's import roots -> the smallest tier providing each (decided before the wire)."""
        self.all_words: dict[str, str] = {}
        self.working: set[str] = set()
        """Root distributions installed whole in a tier whose closure is intact (they import fine)."""
        self.version_only: set[str] = set()
        """Damaged tiers whose damage is only a version other than their lock (decided before the wire)."""
        self.ignored: set[str] = set()
        self.worker_ignored = 0
        self.kept_by_tier: dict[str, set[str]] = {}
        """Tier -> gated files this process kept out."""
        self.worker_kept: dict[str, set[str]] = {}
        """Tier -> gated files the xdist workers kept out."""
        self.at_run: dict[str, list[list[str]]] = {}
        """Tier -> ``[node id, what happened, outcome]`` of each report a missing tier caused."""

    def wire(self) -> dict[str, Any]:
        """The decision as plain data (what :meth:`from_wire` takes), without the per-process counters."""
        out: dict[str, Any] = {}
        for name in ("root", "strict", "why", "states", "gated", "install", "broken", *_DEFAULTS):
            value = getattr(self, name)
            if isinstance(value, dict):
                value = {k: list(v) if isinstance(v, list) else v for k, v in value.items()}
            elif isinstance(value, list):
                value = list(value)
            out[name] = value
        return out

    @classmethod
    def from_wire(cls, data: Mapping[str, Any]) -> Gate:
        return cls(**dict(data))

    # -- which tier ----------------------------------------------------------------
    def tier_of(self, rel: str) -> str | None:
        """The gated tier whose test globs match the relative path *rel*."""
        from tierlock.tiers.globs import matches

        for tier, globs in self.gated.items():
            if matches(rel, globs):
                return tier
        return None

    def tiers_of(self, rel: str) -> list[str]:
        """Every gated tier whose test globs match the relative path *rel*."""
        from tierlock.tiers.globs import matches

        return [tier for tier, globs in self.gated.items() if matches(rel, globs)]

    def tier_covering_dir(self, rel: str) -> str | None:
        """The gated tier whose globs cover every file below folder *rel*."""
        from tierlock.tiers.globs import compile_glob, matches

        for tier, globs in self.gated.items():
            if matches(rel, globs):
                return tier
            for glob in globs:
                stem = glob.replace("\\", "/").rstrip("/")
                if stem.endswith("/**") and compile_glob(stem[:-3]).match(rel):
                    return tier
        return None

    def fails_closed_on(self, tier: str) -> bool:
        """Whether a test needing *tier* fails this run closed: strict, the tier required and not present."""
        return self.strict and tier in self.required and self.states.get(tier) != "present"

    def outside_job(self, tier: str) -> bool:
        """Whether *tier* belongs to another matrix job (its tests are not collected here)."""
        return bool(self.job) and tier not in self.job

    # -- what to say ---------------------------------------------------------------
    def remedy(self, tiers: Iterable[str]) -> str:
        """The one command that arms every tier in *tiers* (leaving out those another is layered on)."""
        from tierlock.remedies import carried, install_remedy

        names = list(tiers)
        # A required tier kept apart from another required one, present here: no one environment holds both.
        jobs = [t for t in names if self.strict and self.apart.get(t) in self.required]
        names = [t for t in names if t not in jobs]
        layers = self.layers or dict.fromkeys(names)
        unlocked = [t for t in names if self.install.get(t, "").startswith("tierlock lock ")]  # no lockfile yet
        # pytest runs outside any venv (a container's own Python): install-tier arms it only with --system.
        system = self.python is not None and sys.prefix == sys.base_prefix
        # ... and never into an externally managed one (PEP 668's marker in its standard library's folder).
        managed = system and os.path.isfile(os.path.join(os.path.dirname(os.__file__), "EXTERNALLY-MANAGED"))
        # Re-arming a tier would make stale another this run needs: no install converges, the locks must agree.
        looping = [t for t in names if self.loops(t)]
        names = [t for t in names if t not in looping]
        remake, python = self._remade()
        command = install_remedy(names, layers, python=python, unlocked=unlocked, system=system, managed=managed)
        if command and any(t in self.apart or t in self.rearm for t in names):
            command += " --replace-armed"  # the tier it conflicts with is armed (or pins what it replaces)
        command = f"{remake} && {command}" if remake and command else command
        command = command or ", ".join(self.install[t] for t in names)
        after = ["tierlock matrix"] * bool(jobs) + ["tierlock check"] * bool(looping)
        return carried(" && ".join(c for c in (command, *after) if c), self.project)

    def _remade(self) -> tuple[str, str | None]:
        """The command that makes this venv again with a Python ``requires-python`` admits ("" inside it, or none
        found), and the interpreter a remedy then names: the venv's folder (its old interpreter's name is gone)."""
        remake = self.outside[1] if self.outside else ""
        return remake, self.outside[2] if remake and self.python is not None else self.python

    def matrix(self) -> str:
        """The command that lists the matrix jobs (the remedy of a tier another job runs)."""
        from tierlock.remedies import carried

        return carried("tierlock matrix", self.project)

    def loops(self, tier: str) -> list[str]:
        """The armed tiers that re-arming *tier* makes stale (:attr:`rearm`) and that this run needs too (required,
        or tests of theirs selected): ``--replace-armed`` would only swap which of the two is missing. Not for a tier
        declared in conflict with one present here (:attr:`apart`): one or the other is what the project said."""
        if tier in self.apart:
            return []
        return [t for t in self.rearm.get(tier, []) if t in self.required or self.globbed.get(t)]

    def state_of(self, tier: str) -> str:
        """The tier's state as the output names it: present, partial or absent, and ``, damaged`` when it is."""
        state = self.states.get(tier, "unknown")
        if tier in self.apart:
            return f"{state}, declared in conflict with {self.apart[tier]} (present here)"
        state = f"{state}, damaged" if tier in self.damaged else state
        if self.loops(tier):
            others = ", ".join(self.loops(tier))
            return f"{state}; its lock and {others}'s pin a package differently and this run needs both"
        return state

    def reason(self, tiers: str | Sequence[str]) -> str:
        names = [tiers] if isinstance(tiers, str) else list(tiers)
        others = [t for t in names if self.outside_job(t)]
        if others and len(others) == len(names):
            listed = ", ".join(others)
            return (
                f"tier {listed} runs in another matrix job (not in TIERLOCK_TIERS); to run these tests: {self.matrix()}"
            )
        states = ", ".join(f"{t} is {self.state_of(t)}" for t in names)
        return f"tier {states}; to run these tests: {self.remedy(names)}"

    def relevant(self) -> list[str]:
        """The tiers worth naming in this run: they gate something it selected, CI requires them, or damaged."""
        out = []
        for tier in self.states:
            required = self.strict and tier in self.required
            if self.globbed.get(tier, 0) or self.needed.get(tier, 0) or required or tier in self.damaged:
                out.append(tier)
        return out

    def in_selection(self, path: str) -> bool:
        """Whether the absolute *path* is (below) one of the run's collection arguments (whole path components)."""
        return any(path == s or path.startswith(s.rstrip(os.sep) + os.sep) for s in self.selection)

    @property
    def not_collected(self) -> int:
        return max(len(self.ignored), self.worker_ignored)

    def reached(self) -> dict[str, set[str]]:
        """Tier -> the gated files kept out of this run (by this process or its xdist workers)."""
        out = {t: set(files) for t, files in self.kept_by_tier.items()}
        for tier, files in self.worker_kept.items():
            out.setdefault(tier, set()).update(files)
        return out
