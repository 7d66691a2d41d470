"""Builds from source during ``install-tier``: refused for no-build tiers, shown and explained for the others.

A package of a ``no-build`` tier (``[tool.tierlock].no-build``, default
``base``) installs from a wheel or not at all: the backend gets its no-build
option (uv ``--no-build`` / ``--only-binary NAME``, pip ``--only-binary``), and
when the lock's artifact record already shows that no wheel fits the target,
the install stops before the backend runs, with the explanation ``tierlock
check`` gives. A package of a tier that may build is announced before the
backend builds it (a build can take minutes), followed while it builds, and
when the build fails the error names what it lacked and a remedy that changes
something.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tierlock.errors import BackendError, CheckFailed, Problem
from tierlock.frozen import Frozen, replace

if TYPE_CHECKING:
    from tierlock.environment import Target
    from tierlock.installer.backends import InstallFailed
    from tierlock.installer.buildfailure import BuildFailure
    from tierlock.installer.plan import Step
    from tierlock.lockfiles.artifacts import Record
    from tierlock.lockfiles.coverage import Gap
    from tierlock.lockfiles.fileread import ReadResult
    from tierlock.lockfiles.locks import Lock, LockedFile, LockEntry
    from tierlock.tiers import Project, Tier


class Policy(Frozen):
    """Which packages of an install must come from wheels, and the artifact records that tell what exists (a
    :class:`~tierlock.frozen.Frozen` value, as every class an arming loads beside its backend: building a dataclass
    there cost the backend's cores its CPU)."""

    _fields = ("no_build", "records")

    no_build: Mapping[str, str]
    """Package name -> the no-build tier whose lock holds it."""
    records: tuple[tuple[Lock, Record], ...]

    def __init__(self, no_build: Mapping[str, str], records: tuple[tuple[Lock, Record], ...] = ()) -> None:
        self._init(no_build, records)

    def files(self, entry: LockEntry) -> tuple[LockedFile, ...] | None:
        """The files *entry* may be installed from, per the first lock that pins it (None: not recorded).

        Judged by the lock's own entry: an entry chosen for the target (pylock) carries only the chosen file.
        """
        for lock, record in self.records:
            pinned = next((e for e in lock.entries if e.name == entry.name and e.version == entry.version), None)
            if pinned is not None:
                return record.files_for(pinned)
        return None

    def flags(self, steps: Sequence[Step]) -> tuple[str, ...]:
        """The backend's no-build names for *steps*: every one (``:all:``) when all must come from wheels."""
        from tierlock.installer.backends import ALL

        names = tuple(str(s.name) for s in steps if s.name in self.no_build)
        if names and len(names) == len(steps):
            return (ALL,)
        return names


def policy(project: Project, tiers: Sequence[Tier], read: Mapping[str, ReadResult | None]) -> Policy:
    """The policy of installing *tiers*: their chains' no-build tiers, and every chain lock's artifact record."""
    from tierlock.lockfiles.artifacts import record_of

    chain = project.with_layers(t.name for t in tiers)
    locks = [(t, result.lock) for t in chain if (result := read.get(t.name)) is not None]
    no_build: dict[str, str] = {}
    for tier, lock in locks:
        if not project.builds(tier.name):
            for entry in lock.entries:
                no_build.setdefault(str(entry.name), str(tier.name))
    return Policy(no_build, tuple((lock, record_of(lock)) for _, lock in locks))


class Build(Frozen):
    """A package the install would build from source: no recorded wheel fits the target."""

    _fields = ("entry", "files", "tier")

    entry: LockEntry
    files: tuple[LockedFile, ...]
    tier: str | None
    """The no-build tier that forbids building it (None: its tiers may build)."""

    def __init__(self, entry: LockEntry, files: tuple[LockedFile, ...], tier: str | None) -> None:
        self._init(entry, files, tier)


def planned(rules: Policy, steps: Sequence[Step], target: Target) -> list[Build]:
    """The *steps* whose recorded files hold no wheel for *target* (an unrecorded package is not judged)."""
    out: list[Build] = []
    accepted = Accepted(target)
    for step in steps:
        files = rules.files(step.entry)
        if files is None:
            continue
        if not fits([f.filename for f in files if f.kind == "wheel"], accepted):
            out.append(Build(step.entry, files, rules.no_build.get(str(step.name))))
    return out


class Accepted:
    """The wheel tags a target accepts, as one set made at the first wheel that is not pure (none before)."""

    def __init__(self, target: Target) -> None:
        self.target = target
        self._tags: frozenset[str] | None = None
        self.hint = f"{target.version[0]}{target.version[1]}"
        """The target's Python version as wheel names spell it (``311`` of ``cp311``): only an order to look in."""

    @property
    def tags(self) -> frozenset[str]:
        if self._tags is None:
            self._tags = self.target.tags
        return self._tags


def fits(wheels: Sequence[str], accepted: Accepted) -> bool:
    """Whether one of the wheel files *wheels* fits the target: a pure wheel for any Python 3 (``py3-none-any``)
    fits every Python 3 (no need to ask the target for its tags), any other one when it carries a tag the target
    accepts (``py312-none-any`` only a 3.12 or later).

    Each name's tags are parsed by :mod:`packaging` (:func:`~tierlock.lockfiles.coverage.wheel_tags`) until one
    fits, the likeliest first (pure ones, then those naming the target's Python version): a lock's record lists
    every platform's wheels (1,046 for the 46 packages of a JAX tier) and the target takes one per package."""
    from tierlock.lockfiles.coverage import wheel_tags

    hint = accepted.hint
    for name in sorted(wheels, key=lambda n: (not n.endswith("-any.whl"), hint not in n)):
        tags = wheel_tags(name)
        if "py3-none-any" in tags:  # (not py39, py313...: a Python 3 accepts those only up to its own version)
            return True
        if not tags.isdisjoint(accepted.tags):
            return True
    return False


def refuse(project: Project, builds: Sequence[Build], target: Target, *, command: str) -> None:
    """Stop before the backend when a no-build tier's package has no wheel for *target* (as check explains it)."""
    refused = [b for b in builds if b.tier is not None]
    if not refused:
        return
    from tierlock.lockfiles.nobuild import relock_command, remedies

    here = _with_target(project, target_platform(target))
    found = [_gaps(here, b, target) for b in refused]
    first, (gap, everywhere) = refused[0], found[0]
    assert first.tier is not None
    # The remedies check gives (every declared platform, and here), without its notes.
    fixes = [f for f in remedies(here, first.tier, everywhere) if not f.startswith("(")]
    raise WheelsOnly(
        f"{gap.describe()}; tier {first.tier} installs from wheels only (no-build), so it would be built "
        f"from source here; nothing was installed",
        tier=first.tier,
        package=str(first.entry.name),
        problems=[
            Problem(g.describe(), where=f"tier {b.tier}") for b, (g, _) in zip(refused[1:], found[1:], strict=True)
        ],
        remedy=f"{'; or '.join(fixes)}; then run: {relock_command(project, first.tier)} && {command}",
    )


def _gaps(project: Project, build: Build, target: Target) -> tuple[Gap, list[Gap]]:
    """*build*'s gap on the target's platform, and its gaps everywhere (the target's platform last), as check says."""
    from tierlock.lockfiles.artifacts import Record, key
    from tierlock.lockfiles.coverage import gaps_of
    from tierlock.tiers.platforms import python_versions

    entry = replace(build.entry, hashes=_hashes(build.files))
    record = Record("recorded", {key(entry): build.files})
    found = gaps_of([entry], record, project.platforms, python_versions(project.requires_python))[1]
    here = f"{target.version[0]}.{target.version[1]}"
    mine = [g for g in found if g.platform.tag == project.platforms[-1].tag and here in g.pythons]
    gap = mine[0] if mine else gap_for(build, target)
    return gap, found if mine else [gap]


def gap_for(build: Build, target: Target) -> Gap:
    """*build* as a gap on the target's own platform and Python version (one the project may not list)."""
    from tierlock.lockfiles.coverage import Exists, Gap, nearest_tags

    platform = target_platform(target)
    python = f"{target.version[0]}.{target.version[1]}"
    wheels = [f.filename for f in build.files if f.kind == "wheel"]
    sdists = [f.filename for f in build.files if f.kind == "sdist"]
    name, version, line = str(build.entry.name), str(build.entry.version), build.entry.line
    if wheels:
        nearest = nearest_tags(wheels, platform, [python])
        return Gap(name, version, platform, (python,), "other-wheels", tuple(wheels), nearest, line)
    exists: Exists = "sdist-only" if sdists else "nothing"
    return Gap(name, version, platform, (python,), exists, tuple(sdists), (), line)


def _hashes(files: Sequence[LockedFile]) -> tuple[str, ...]:
    return tuple(f"{a}:{h}" for f in files for a, h in f.hashes.items())


def _with_target(project: Project, platform: Any) -> Project:
    """*project* with the target's platform as its last declared one (the one the install gap is about)."""
    from tierlock.frozen import replace

    others = tuple(p for p in project.platforms if p.tag != platform.tag)
    return replace(project, platforms=(*others, platform))


def target_platform(target: Target) -> Any:
    """The target's platform (its most preferred wheel platform tag), as a declared one would be."""
    from tierlock.tiers.platforms import Platform, parse

    for tag in target.ordered_tags:
        try:
            found: Platform = parse(tag.rsplit("-", 1)[-1])
        except ValueError:
            continue
        return found
    return parse("manylinux_2_17_x86_64")  # not reached on a platform with wheel tags of its own


def announce(note: Callable[[str], None], builds: Sequence[Build]) -> set[str]:
    """Say, before the backend starts, which packages it will build from source; the names said."""
    said: set[str] = set()
    for build in builds:
        if build.tier is None:
            only = "only an sdist" if all(f.kind == "sdist" for f in build.files) else "no wheel for this environment"
            pin = f"{build.entry.name} {build.entry.version}"
            note(f"building {pin} from source ({only} in the lock); this can take minutes")
            said.add(str(build.entry.name))
    return said


# Patterns as text: ``re`` compiles (and caches) each at its first use - while the backend runs, or when it failed -
# not when arming imports this module.
_UV_BUILDING = r"^\s*Building ([A-Za-z0-9._-]+)==(\S+)"
_UV_BUILT = r"^\s*Built ([A-Za-z0-9._-]+)==(\S+)"
_PIP_WHEEL_FOR = r"^\s*Building wheel for ([A-Za-z0-9._-]+) \(.*\): (started|finished with status 'done')"


class Watcher:
    """Reads the backend's lines as they come; says when a build from source starts and ends (also without -v)."""

    def __init__(
        self,
        note: Callable[[str], None],
        said: set[str] | None = None,
        started: dict[str, float] | None = None,
    ) -> None:
        self.note = note
        self.said: set[str] = set() if said is None else said
        """The packages whose build was said (once each)."""
        self.started: dict[str, float] = {} if started is None else started
        """When each build seen started (``time.monotonic``)."""

    def __call__(self, line: str) -> None:
        building = re.match(_UV_BUILDING, line)
        pip = re.match(_PIP_WHEEL_FOR, line)
        if building is not None or (pip is not None and pip.group(2) == "started"):
            name = building.group(1) if building is not None else pip.group(1) if pip is not None else ""
            self.started[name] = time.monotonic()
            if name not in self.said:
                self.said.add(name)
                self.note(f"building {name} from source; this can take minutes")
            return
        built = re.match(_UV_BUILT, line)
        if built is not None or (pip is not None and pip.group(2) != "started"):
            name = built.group(1) if built is not None else pip.group(1) if pip is not None else ""
            seconds = time.monotonic() - self.started.pop(name, time.monotonic())
            self.note(f"built {name} from source ({seconds:.0f} s)")


class WheelsOnly(CheckFailed):
    """A no-build tier's package has no wheel for the target: stopped before the backend ran (exit 1)."""

    kind = "no-build"


class BuildRefused(BackendError):
    """The backend refused to build a no-build tier's package (exit 3): the lock recorded no artifacts to tell."""

    kind = "no-build"


class BuildFailed(BackendError):
    """A build from source failed (exit 3); the error names the package and what its build lacked."""

    kind = "build-failed"
    build: BuildFailure | None = None

    def to_dict(self) -> dict[str, Any]:
        document = super().to_dict()
        document["build"] = self.build.to_dict() if self.build is not None else None
        return document


_NO_BUILD_UV = r"Wheels are required for `([A-Za-z0-9._-]+)`|`([A-Za-z0-9._-]+)==[^`]*` .*--no-build"
_NO_BUILD_PIP = r"No matching distribution found for ([A-Za-z0-9._-]+)==(\S+)"


def explain(
    error: InstallFailed,
    *,
    tiers: Sequence[str],
    rules: Policy,
    command: str,
    no_build: Sequence[str],
    backend: str = "uv",
) -> BackendError:
    """*error* of the backend, explained: a no-build refusal or a failed build, else *error* itself."""
    output = error.output
    refused = re.search(_NO_BUILD_UV, output) or (re.search(_NO_BUILD_PIP, output) if no_build else None)
    if refused is not None:
        name = next(g for g in refused.groups() if g)
        tier = rules.no_build.get(name.lower().replace("_", "-"), "")
        return _refused(error, name, tier, command)
    from tierlock.installer.buildfailure import diagnose  # only when the backend failed: its patterns are many

    failure = diagnose(output)
    if failure is None:
        return error
    return _build_failed(error, failure, tiers=tiers, command=command, backend=backend)


def _refused(error: InstallFailed, name: str, tier: str, command: str) -> BuildRefused:
    where = f"tier {tier} installs from wheels only (no-build)" if tier else "its tier installs from wheels only"
    fixed = BuildRefused(
        f"{name} has no wheel for this environment and {where}, so the backend refused to build it; nothing was built",
        tier=tier or None,
        package=name,
        problems=error.problems,
        detail=error.detail,
        remedy=(
            f"require a version of {name} that publishes a wheel for this platform, leave it out here with a "
            f"marker, or move it to a tier that may build; then run: tierlock lock {tier or 'base'} && {command} "
            f"(tierlock lock also records every pin's files, so tierlock check proves this before any install)"
        ),
    )
    return fixed


def _build_failed(
    error: InstallFailed, failure: BuildFailure, *, tiers: Sequence[str], command: str, backend: str
) -> BuildFailed:
    lacks = failure.lacks()
    said = f": its build lacks {lacks}" if lacks else " (its output above says why)"
    err = BuildFailed(
        f"{failure.pin} could not be built from source for {', '.join(tiers)}{said}; {error.message}",
        package=failure.package,
        tier=", ".join(tiers),
        problems=error.problems,
        detail=error.detail,
        remedy=build_remedy(failure, command, debian=_debian(), backend=backend),
    )
    err.build = failure
    return err


def build_remedy(failure: BuildFailure, command: str, *, debian: bool, backend: str = "uv") -> str:
    """The fix that changes something (install what the build lacks), then the same install; then the way around."""
    from tierlock.installer.buildfailure import BUILD_CONSTRAINTS, apt_package, system_fix

    apt: list[str] = []
    steps: list[str] = []
    env: list[str] = []
    words: list[str] = []
    for missing in failure.missing:
        constraint = BUILD_CONSTRAINTS.get(missing.name) if missing.kind == "build-dependency" else None
        package = apt_package(missing) if debian else None
        if constraint is not None:  # the build dependency dropped it: build with the release that has it
            steps.append(f"printf '%s\\n' '{constraint}' > build-constraints.txt")
            env.append(f"{'UV' if backend == 'uv' else 'PIP'}_BUILD_CONSTRAINT=build-constraints.txt")
        elif package is not None:
            apt.append(package)
        else:
            words.append(system_fix(missing))
    if apt:
        steps.insert(0, f"apt-get install {' '.join(dict.fromkeys(apt))}")
    run = " && ".join([*steps, " ".join([*env, command])])
    if words:
        first = f"{'; '.join(words)}; then run: {run}"
    elif steps:
        first = run
    else:
        first = f"fix what the build output above says is missing, then run: {command}"
    name = failure.package or "the package"
    return (
        f"{first}; or require a version of {name} that publishes a wheel for this platform (then tierlock lock), "
        f"or move {name} to a tier you arm only where it can be built"
    )


def _debian(os_release: Path = Path("/etc/os-release")) -> bool:
    """Whether this machine is Debian or Ubuntu, or says it is like one (*os_release*): apt package names then
    apply."""
    try:
        text = os_release.read_text(encoding="utf-8")
    except OSError:
        return False
    found = {k: v.strip('"').split() for k, _, v in (line.partition("=") for line in text.splitlines())}
    return bool({"debian", "ubuntu"} & {*found.get("ID", []), *found.get("ID_LIKE", [])})
