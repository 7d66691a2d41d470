"""Never break a tierlock: neither the one running nor any installed in the target.

The pytest plugin lives in a project's test environment, which is exactly what
``install-tier`` arms. A tier whose lock pins ``packaging==23.2`` there would
install "verified", and the next pytest would crash inside the plugin
(packaging 23.2 has no ``packaging.dependency_groups``). So before anything
changes, every tierlock installed in the target - read from the target's own
``.dist-info`` metadata, never imported - and what it requires there
(transitively, with the target's markers; an extra counts when everything it
names is installed, as ``tierlock[cli]`` does) is checked against the plan. A
version outside a requirement is refused (exit 2) with both versions and who
requires what, and with the one command that gets both the tier and a working
tierlock, when there is one:

* the lock pins the package but the tiers' declared requirements allow a version
  tierlock accepts (the one installed now): relock with that package upgraded,
  then install (``tierlock lock base brain --upgrade-package packaging && install-tier brain``);
* a declared requirement excludes it (``packaging==23.2``): the two cannot share
  one environment. The command removes tierlock (its plugin) from the target and
  installs; to keep tierlock there instead, relax the requirement and relock.

The environment tierlock runs from is one such target; when it is the one to
lose tierlock, the command first installs tierlock as a tool.
"""

from __future__ import annotations

import os
import shlex

from tierlock.frozen import Frozen

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping, Sequence
    from importlib.metadata import Distribution

    from packaging.requirements import Requirement
    from packaging.utils import NormalizedName

    from tierlock.environment import Target
    from tierlock.installer.plan import Plan, Step
    from tierlock.tiers import Project

#: The distribution whose installs are protected (the CLI and the pytest plugin are one distribution).
TIERLOCK = "tierlock"


class Need(Frozen):
    """One requirement on a distribution by a tierlock in the target, or by what such a tierlock needs."""

    _fields = ("who", "spec")

    who: str
    """``tierlock 0.1.0``, ``rich 13.0.0``: the requiring distribution and its version."""
    spec: str
    """The specifier (``>=26.1``); empty for a bare name."""

    def __init__(self, who: str, spec: str) -> None:
        self._init(who, spec)


def installed(paths: Iterable[str]) -> dict[NormalizedName, Distribution]:
    """The distributions installed in the site folders *paths*, by normalised name (the first on the path wins)."""
    from importlib import metadata

    from packaging.utils import canonicalize_name

    out: dict[NormalizedName, Distribution] = {}
    for dist in metadata.distributions(path=list(paths)):
        name = dist.metadata["Name"]
        if name:
            out.setdefault(canonicalize_name(name), dist)
    return out


def holds_tierlock(paths: Iterable[str]) -> bool:
    """Whether a ``.dist-info`` or ``.egg-info`` named for tierlock is in one of the folders *paths* (a listing each).

    Matches what :func:`installed` finds by folder name (``tierlock-0.1.0.dist-info``, ``Tierlock.egg-info``); a
    folder that cannot be listed holds nothing :func:`installed` could read either.
    """
    for path in paths:
        try:
            names = os.listdir(path)
        except OSError:
            continue
        for name in names:
            low = name.lower()
            if low.endswith((".dist-info", ".egg-info")) and low.rsplit(".", 1)[0].split("-")[0] == TIERLOCK:
                return True
    return False


def _requirements(dist: Distribution) -> list[Requirement]:
    from packaging.requirements import InvalidRequirement, Requirement

    out: list[Requirement] = []
    for line in dist.requires or ():
        try:
            out.append(Requirement(line))
        except InvalidRequirement:
            continue
    return out


def _holds(req: Requirement, env: Mapping[str, str], extra: str = "") -> bool:
    return req.marker is None or req.marker.evaluate({**env, "extra": extra})


def extras_in_use(dist: Distribution, found: Mapping[NormalizedName, object], env: Mapping[str, str]) -> list[str]:
    """The extras of *dist* whose every requirement is installed (``tierlock[cli]``: rich, jsonschema, tomlkit)."""
    from packaging.utils import canonicalize_name

    out: list[str] = []
    for extra in dist.metadata.get_all("Provides-Extra") or ():
        names = [
            canonicalize_name(r.name) for r in _requirements(dist) if r.marker is not None and _holds(r, env, extra)
        ]
        names = [n for n in names if n != canonicalize_name(dist.metadata["Name"] or "")]
        if names and all(n in found for n in names):
            out.append(extra)
    return out


def needs_in(target: Target) -> dict[NormalizedName, list[Need]]:
    """What every tierlock installed in *target* needs there, transitively: name -> [Need] (empty: none installed)."""
    paths = [str(p) for p in target.site_paths]
    if not holds_tierlock(paths):
        return {}  # the common case: one listing per site folder, no importlib.metadata (18 ms), no metadata read
    from packaging.utils import canonicalize_name

    found = installed(paths)
    env = dict(target.marker_env)
    out: dict[NormalizedName, list[Need]] = {}
    queue: list[tuple[NormalizedName, tuple[str, ...]]] = []
    own = canonicalize_name(TIERLOCK)
    if own in found:
        queue.append((own, ("", *extras_in_use(found[own], found, env))))
    seen: set[str] = set()
    while queue:
        name, extras = queue.pop()
        if name in seen or name not in found:
            continue
        seen.add(name)
        dist = found[name]
        who = f"{dist.metadata['Name']} {dist.version}"
        for req in _requirements(dist):
            if not any(_holds(req, env, e) for e in extras):
                continue
            key = canonicalize_name(req.name)
            if key == name:
                continue  # a self-reference (tierlock[cli]): its requirements are read above
            out.setdefault(key, []).append(Need(who, str(req.specifier)))
            queue.append((key, ("", *sorted(req.extras))))
    return out


def protected_names(target: Target) -> frozenset[str]:
    """What ``remove`` must keep in *target*: what every tierlock installed there needs."""
    return frozenset(str(n) for n in needs_in(target))


def broken_needs(step: Step, needs: Sequence[Need]) -> list[Need]:
    """The requirements *step*'s new version would break (pure)."""
    return [] if step.entry.version is None else broken_needs_version(str(step.entry.version), needs)


def declared_exclusions(
    project: Project, tiers: Sequence[str], name: str, witness: str, env: Mapping[str, str]
) -> list[str]:
    """The declared requirements on *name* in *tiers* (and below) that exclude *witness*: ``base declares ...``."""
    from packaging.utils import canonicalize_name

    out: list[str] = []
    for tier in project.with_layers(tiers):
        for req in tier.requirements:
            same = canonicalize_name(req.name) == name and _holds(req, env)
            if same and not req.specifier.contains(witness, prereleases=True):
                out.append(f"{tier.name} declares {req}")
    return out


def _uninstall(target: Target) -> str:
    python = shlex.quote(str(target.python))
    if "pip" in installed(str(p) for p in target.site_paths):
        return f"{python} -m pip uninstall --yes {TIERLOCK}"
    return f"uv pip uninstall --python {python} {TIERLOCK}"


def remedy(
    project: Project, tiers: Sequence[str], target: Target, *, packages: Sequence[str], declared: bool, command: str
) -> str:
    """The one command that arms *tiers* and leaves no broken tierlock behind (see the module docstring)."""
    if not declared:
        layers = " ".join(str(t.name) for t in project.with_layers(tiers))
        upgrades = " ".join(f"--upgrade-package {p}" for p in packages)
        return f"tierlock lock {layers} {upgrades} && {command}"
    from tierlock.installer.location import is_running_environment

    steps = [_uninstall(target), command]
    if is_running_environment(target.prefix):
        from tierlock.selfinstall import tool_install_command

        steps.insert(0, tool_install_command())
    return " && ".join(steps)


def refuse(plan: Plan, target: Target, *, project: Project, tiers: Sequence[str], command: str) -> None:
    """Refuse (exit 2) a plan that would put a version a tierlock in *target* cannot run with there."""
    needs = needs_in(target)
    if not needs:
        return
    from tierlock.errors import Problem, UsageError
    from tierlock.installer.location import is_running_environment

    problems: list[Problem] = []
    bad: list[str] = []
    exclusions: list[str] = []
    head = ""
    for step in plan.changes:
        broken = broken_needs(step, needs.get(step.name, ()))
        if not broken:
            continue
        found = step.installed.version if step.installed is not None else None
        now = str(found) if found is not None else "(not installed)"
        required = ", ".join(f"{n.who} requires {step.name}{n.spec}" for n in broken)
        problems.append(Problem(f"{step.name}: {now} -> {step.entry.version}, but {required}"))
        bad.append(str(step.name))
        if found is not None and not broken_needs_version(str(found), needs[step.name]):
            exclusions += declared_exclusions(project, tiers, step.name, str(found), target.marker_env)
        if not head:
            head = f"{step.name} {now} with {step.entry.version} in {target.prefix}: "
            first = broken[0]
            head += (
                f"that is the environment tierlock runs from, and {first.who} needs {step.name}{first.spec}"
                if is_running_environment(target.prefix)
                else f"{first.who} is installed there and needs {step.name}{first.spec}, or its pytest plugin "
                "would crash pytest there"
            )
    if not problems:
        return
    layers = " ".join(str(t.name) for t in project.with_layers(tiers))
    problems += [
        Problem(
            f"{e}: it and tierlock cannot share one environment (the fix below removes tierlock from it; to keep "
            f"tierlock instead, relax that requirement and run tierlock lock {layers})"
        )
        for e in exclusions
    ]
    raise UsageError(
        f"refusing to replace {head} ({len(bad)} package(s)); nothing was changed",
        package=bad[0],
        problems=problems,
        remedy=remedy(project, tiers, target, packages=bad, declared=bool(exclusions), command=command),
    )


def broken_needs_version(version: str, needs: Sequence[Need]) -> list[Need]:
    """The requirements *version* does not satisfy (pure)."""
    from packaging.specifiers import SpecifierSet

    return [n for n in needs if n.spec and not SpecifierSet(n.spec).contains(version, prereleases=True)]
