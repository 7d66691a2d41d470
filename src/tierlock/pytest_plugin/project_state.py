"""The project's tiers as this interpreter has them: probed once per run, from files, into a :class:`Gate`.

The tier model comes from pytest's cache when nothing it was derived from
changed (:mod:`tierlock.probing.facts`); the probe itself always runs. Beside
the states, the gate gets what the rest of the plugin attributes and prints:

* **damage**: an installed distribution of a tier's locked closure that is
  missing files or sits at another version than the lock (a probe verdict of
  ``partial``; ``absent`` is only not armed);
* **owners**: each import root (and distribution name) of a tier that is not
  present, given to the smallest tier that provides it (fewest roots, then
  project order), so a missing ``pyarrow`` names ``arrow``, not ``full``; a
  root that is installed whole, in a tier whose closure is intact, imports
  fine and is nobody's missing root (``pytest`` in a partial ``test`` tier);
* **python**: the interpreter a remedy names with ``--python`` when
  ``install-tier`` would pick another environment by default.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tierlock.importnames import import_names
from tierlock.pytest_plugin.caches import Cache, remember
from tierlock.pytest_plugin.decision import Gate

if TYPE_CHECKING:
    from tierlock.probing import DistributionProbe, TierProbe
    from tierlock.probing.facts import ProjectFacts, TierVerdict


def gate_for(pyproject: Path, text: str, cache: Cache | None, strict: bool, why: str) -> Gate | None:
    """The gate for the project of *pyproject* (its *text* already read), probing every tier now.

    None for a project without a ``[tool.tierlock]`` table.
    """
    from tierlock.probing import facts

    key = facts.base_key(pyproject, text)
    name = facts.cache_name(pyproject)
    if cache is not None:
        cached = facts.from_entry(cache.get(name, None), key)
        if cached is not None:
            return build(cached, facts.probe_facts(cached), strict, why) if cached.configured else None
    from tierlock.errors import TierlockError
    from tierlock.probing import probe_tiers
    from tierlock.tiers.loader import parse_project, parse_toml

    try:
        data = parse_toml(text, pyproject)
        tool = data.get("tool")
        if not (isinstance(tool, dict) and "tierlock" in tool):
            # No tier table: leave the project alone, even when the rest of its pyproject would not load.
            remember(cache, name, facts.entry(key, {}, facts.unconfigured(pyproject)))
            return None
        project = parse_project(data, pyproject=pyproject, text=text)
        stamps = facts.lock_stamps([str(t.lockfile) for t in project.tiers.values()])
        results = probe_tiers(None, project)
    except TierlockError as err:
        raise pytest.UsageError("tierlock: " + "\n".join(err.lines())) from err
    found = facts.facts_of(project, results)
    remember(cache, name, facts.entry(key, stamps, found))
    return build(found, results, strict, why)


def _line(d: DistributionProbe) -> str:
    return f"{d.name}: {d.state} — {'; '.join(d.reasons) or d.state}"


def damage(result: TierProbe | TierVerdict) -> list[DistributionProbe]:
    """The installed distributions of the tier's closure that are broken or at another version than the lock."""
    return [d for d in (*result.roots, *result.closure) if d.state == "partial"]


def version_only(broken: Sequence[DistributionProbe]) -> bool:
    """Whether every damaged distribution is intact but at another version than the lock (another job's pin)."""
    return all(
        d.version_text is not None and d.locked_text not in (None, d.version_text) and len(d.reasons) == 1
        for d in broken
    )


def build(facts: ProjectFacts, results: Sequence[TierProbe] | Sequence[TierVerdict], strict: bool, why: str) -> Gate:
    gate = Gate(
        root=facts.root,
        strict=strict,
        why=why,
        states={r.tier: r.state for r in results},
        gated={},
        install={r.tier: r.install_command for r in results},
        broken={},
    )
    gate.required = list(facts.ci_require)
    gate.ci_require = list(facts.ci_require)
    gate.version_only = set()
    for r in results:
        tier = facts.tier(r.tier)
        if tier.tests:
            gate.globs[r.tier] = list(tier.tests)
        broken = damage(r)
        if broken:
            gate.damaged[r.tier] = [_line(d) for d in broken]
            if version_only(broken):
                gate.version_only.add(r.tier)
        if r.present:
            continue
        gate.gated[r.tier] = list(tier.tests)
        gate.broken[r.tier] = [_line(d) for d in r.broken]
        if all(d.present for d in r.closure):
            # Only some roots are missing and nothing they need is broken: the present roots import fine.
            gate.working |= {d.name for d in r.roots if d.present}
    _give_owners(gate, facts)
    gate.rearm = _rearming(facts, results)
    return gate


def _rearming(facts: ProjectFacts, results: Sequence[TierProbe] | Sequence[TierVerdict]) -> dict[str, list[str]]:
    """Each tier not present whose ``install-tier`` is refused without ``--replace-armed`` -> the armed tiers it
    would make stale: an installed package of its lock at another version that another armed tier's receipt pins
    (:func:`tierlock.installer.rearm.blocking`, as ``tierlock probe`` decides it). Receipts are read only when such
    a package is there."""
    moved = [
        r
        for r in results
        if not r.present
        and any(d.version_text and d.locked_text and d.version_text != d.locked_text for d in (*r.roots, *r.closure))
    ]
    if not moved:
        return {}
    from tierlock.installer import rearm, receipts

    armed = receipts.load_all(Path(sys.prefix))
    pins = {t.name: {k: v for k, v in {**t.locked, **t.closure}.items() if v} for t in facts.tiers}
    out: dict[str, list[str]] = {}
    for r in moved:
        dists = (*r.roots, *r.closure)
        locked = {str(d.name): d.locked_text for d in dists if d.locked_text}
        installed = {str(d.name): d.version_text for d in dists}
        blockers = rearm.blocking(locked, installed, armed, skip=[r.tier], others_locked=pins)
        if blockers:
            out[r.tier] = sorted(blockers)
    return out


def _give_owners(gate: Gate, facts: ProjectFacts) -> None:
    """Each root to the smallest tier providing it (fewest roots, then project order), kept when not present."""
    ranked = sorted(enumerate(facts.tiers), key=lambda pair: (len(pair[1].probe), pair[0]))
    owners: dict[str, str] = {}
    words: dict[str, str] = {}
    for _, tier in ranked:
        for dist in tier.probe:
            for name in tier.import_roots.get(dist) or import_names(dist):
                if name not in owners and dist not in gate.working:
                    owners[name] = tier.name
            for spelling in {dist.lower(), dist.lower().replace("-", "_")}:
                if dist not in gate.working:
                    words.setdefault(spelling, tier.name)
    gate.all_owners, gate.all_words = owners, words
    restrict_owners(gate, {t for t, state in gate.states.items() if state != "present"})


def restrict_owners(gate: Gate, tiers: set[str]) -> None:
    """Keep the roots (and distribution names) of *tiers* only: those a run attributes skips and errors to."""
    gate.owners = {name: owner for name, owner in gate.all_owners.items() if owner in tiers}
    gate.words = {name: owner for name, owner in gate.all_words.items() if owner in tiers}
    gate.roots = {}
    for name, owner in gate.owners.items():
        gate.roots.setdefault(owner, []).append(name)


def remedy_python(root: str, text: str) -> str | None:
    """``sys.executable`` when ``install-tier`` would pick another environment by default, else None.

    The default is the active virtual environment, else the project's
    (``$TIERLOCK_PROJECT_ENVIRONMENT``, ``$UV_PROJECT_ENVIRONMENT``, ``[tool.tierlock].venv``, ``.venv``).
    """
    from tierlock.installer.location import environment_key, project_environment

    active = os.environ.get("VIRTUAL_ENV")
    if active:
        default = active
    else:
        default = project_environment(root, _configured_venv(text))
    if environment_key(default) == environment_key(sys.prefix):
        return None
    return sys.executable


def outside_here(text: str) -> list[str]:
    """Why this interpreter (the run's, which is the target) is outside the project's ``requires-python`` (its
    pyproject *text*), the command that makes its venv again with one that satisfies it ("" when none is found or
    it is no venv), and its prefix; empty inside (:attr:`Gate.outside`)."""
    import tomllib

    try:
        project = tomllib.loads(text).get("project")
    except tomllib.TOMLDecodeError:
        return []
    wanted = project.get("requires-python") if isinstance(project, dict) else None
    if not isinstance(wanted, str):
        return []
    from tierlock.outsidepython import outside_of

    version = (sys.version_info[0], sys.version_info[1], sys.version_info[2])
    found = outside_of(version, sys.prefix, sys.prefix != sys.base_prefix, wanted)
    return [] if found is None else [found.why, found.remake or "", found.prefix]


def _configured_venv(text: str) -> str | None:
    import tomllib

    try:
        tool = tomllib.loads(text).get("tool", {})
    except tomllib.TOMLDecodeError:
        return None
    venv = tool.get("tierlock", {}).get("venv") if isinstance(tool, dict) else None
    return venv if isinstance(venv, str) else None
