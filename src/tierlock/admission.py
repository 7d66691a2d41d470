"""The CI gate: lockfiles in sync, runtime config valid, required tiers present, every test that needs one gated.

:func:`admit` runs the four parts and returns an :class:`Admission`: one
verdict per part with its denominators; it admits only when every part passes
(a part with nothing to check, such as a project without a runtime config, is
skipped). The census part is ``tierlock check``'s census of the same tiers as
the lockfile part: a test that needs a tier outside its gates fails it, unless
``[tool.tierlock.census.accept]`` accepts it on purpose.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from tierlock.frozen import Frozen

if TYPE_CHECKING:
    from tierlock.environment import Target
    from tierlock.errors import TierlockError
    from tierlock.outsidepython import Outside
    from tierlock.probing import TierProbe
    from tierlock.tiers import Project

Verdict = Literal["pass", "fail", "skipped"]


class Part(Frozen):
    """One part of the gate: its verdict, its denominators and what failed."""

    _fields = ("name", "verdict", "counts", "problems", "remedy", "brief")

    name: str
    verdict: Verdict
    counts: dict[str, int]
    problems: list[str]
    remedy: str | None
    brief: list[str] | None
    """The problems as a person reads them (each package's first reasons); None: the problems as they are.
    ``--json`` always carries :attr:`problems` whole."""

    def __init__(  # noqa: PLR0917 (the signature it had as a dataclass)
        self,
        name: str,
        verdict: Verdict,
        counts: dict[str, int] | None = None,
        problems: list[str] | None = None,
        remedy: str | None = None,
        brief: list[str] | None = None,
    ) -> None:
        self._init(name, verdict, {} if counts is None else counts, [] if problems is None else problems, remedy, brief)

    def lines(self, *, verbose: bool) -> list[str]:
        """The problems to print: all of them when *verbose*, else the first few and a count of the rest."""
        from tierlock import volume

        if verbose:
            return list(self.problems)
        shown = self.brief if self.brief is not None else self.problems
        return volume.capped(shown, verbose=False, what="problem", hint=volume.CLI_HINT)

    @property
    def ok(self) -> bool:
        return self.verdict in ("pass", "skipped")

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"verdict": self.verdict, **self.counts, "problems": self.problems}
        if self.remedy:
            from tierlock.remedies import argv_of

            out["remedy"] = self.remedy
            out["remedy_argv"] = argv_of(self.remedy)
        return out


class Admission(Frozen):
    """The gate's result."""

    _fields = ("parts", "tiers")

    parts: tuple[Part, ...]
    tiers: tuple[str, ...]

    def __init__(
        self,
        parts: tuple[Part, ...],
        tiers: tuple[str, ...],
    ) -> None:
        self._init(parts, tiers)

    @property
    def ok(self) -> bool:
        return all(p.ok for p in self.parts)

    def to_dict(self) -> dict[str, Any]:
        return {
            "admitted": self.ok,
            "tiers": list(self.tiers),
            **{p.name: p.to_dict() for p in self.parts},
        }


def admit(project: Project, tiers: Sequence[str] = (), python: str | Path | None = None) -> Admission:
    """Run the gate for *tiers* (default: the project's ``ci-require``, else every tier with tests)."""
    names = [project.tier(t).name for t in tiers] if tiers else list(project.ci_require)
    parts = (
        lockfile_part(project, names),
        runtime_part(project),
        probe_part(project, names, python, chosen=bool(tiers)),
        census_part(project, names),
    )
    return Admission(parts, tuple(names))


def lockfile_part(project: Project, names: Sequence[str]) -> Part:
    """The offline lockfile check (drift, hand edits, integrity, layering) of the admitted tiers
    and of every tier they are layered on (a drifted base lock would arm a drifted tier)."""
    from tierlock.lockfiles.check import check, one_remedy

    chain = [t.name for t in project.with_layers(names)]
    report = check(project, chain or None)
    counts = {
        "tiers": len(report.tiers),
        "lockfiles": report.lockfiles,
        "packages": report.packages,
    }
    return Part(
        "lockfiles",
        "pass" if report.ok else "fail",
        counts,
        [f.render() for f in report.findings],
        one_remedy((f.remedy for f in report.findings), names) or None,
    )


def census_part(project: Project, names: Sequence[str]) -> Part:
    """The census of the admitted tiers and those they are layered on (every tier when none is required)."""
    from tierlock.census import project_census

    chain = [t.name for t in project.with_layers(names)]
    result = project_census(project, chain or None)
    findings = result.findings()
    counts = {
        "tiers": len(result.tiers),
        "files": result.files_read,
        "findings": len(findings),
        "accepted": sum(len({u.file for u in r.accepted}) for r in result.tiers),
    }
    remedies = ["tierlock census --fix"] if any(f.fix for f in findings) else []
    remedies.extend(f.remedy for f in findings if not f.fix)
    problems = [f"{f.render()}; to fix: {f.remedy}" for f in findings]
    # The plugin switched off gates nothing (tierlock.gateoff): in CI the part fails closed, elsewhere it warns.
    from tierlock.gateoff import verdict

    off, strict = verdict(project.root)
    problems += [o.said(strict) for o in off]
    remedies += [o.remedy for o in off] if strict else []
    failed = bool(findings) or strict
    return Part("census", "fail" if failed else "pass", counts, problems, "; ".join(dict.fromkeys(remedies)) or None)


def runtime_part(project: Project) -> Part:
    """The runtime config of setup and verification commands, when the project has one."""
    from tierlock.validators.configfile import discover

    path = discover(project.root)
    if path is None:
        return Part("runtime", "skipped", {"configs": 0, "commands": 0})
    from tierlock.validators.core import validate_runtime_config

    result = validate_runtime_config(path, project=project)
    problems = []
    for error in result.errors:
        place = f"{error.file}:{error.line}" if error.file and error.line else (error.file or "")
        problems.append(f"{place}: {error.where}: {error.message} [{error.rule}]".lstrip(": "))
    counts = {"configs": 1, "commands": result.commands_checked}
    remedy = None if result.ok else f"fix {project.relpath(path)}, then run: tierlock validate"
    return Part("runtime", "pass" if result.ok else "fail", counts, problems, remedy)


def probe_part(project: Project, names: Sequence[str], python: str | Path | None, *, chosen: bool = True) -> Part:
    """Every required tier present in the environment, by the probe's one definition
    (:mod:`tierlock.probing.verdict`: roots in full, compiled artifacts of the locked closure).

    Unless the tiers were *chosen* (``--tier``), a ``ci-require`` that names tiers declared in conflict
    can never pass in one environment: the part says so and admits one job's tiers (:func:`one_job`)."""
    from tierlock.errors import TierlockError
    from tierlock.installer.location import resolve_existing
    from tierlock.probing import Prober
    from tierlock.remedies import layers_of_project

    results: list[TierProbe] = []
    failed: list[tuple[str, TierlockError]] = []
    if not names:  # nothing required: no environment to look at
        return probe_verdict(results, failed, layers_of_project(project), exclusive=project.exclusive)
    # The same target as install-tier, status and probe: --python, else the active venv, else the project's own.
    try:
        target = resolve_existing(None if python is None else str(python), project, names)
    except TierlockError as err:  # no environment at all: every required tier is absent, and the fix arms them
        return Part(
            "probe",
            "fail",
            {"tiers": len(names), "tiers_present": 0, "packages": 0, "files_checked": 0},
            [err.message],
            err.remedy,
        )
    prober = Prober(project, target, python=python)
    for name in names:
        tier = project.tier(name)
        try:
            results.append(prober.probe(tier))  # the one verdict: the same as probe, status and the plugin
        except TierlockError as err:  # a lockfile that cannot be trusted: the tier fails, the gate still reports
            failed.append((tier.name, err))
    job = None if chosen else one_job(project, names, [r.tier for r in results if r.present])
    if job is not None:
        results = [r for r in results if r.tier in job]
        failed = [(tier, err) for tier, err in failed if tier in job]
    # install-tier refuses to replace what another armed tier pins: the remedy says --replace-armed, as probe's;
    # a tier whose re-arming makes another required tier stale is fixed by the locks agreeing (tierlock check).
    replace, looping = _replaces_armed(project, target.prefix, [r for r in results if not r.present], names)
    part = probe_verdict(
        results,
        failed,
        layers_of_project(project),
        python=python,
        exclusive=project.exclusive,
        replace_armed=replace,
        looping=looping,
        remade=_remade(project, target) if len(results) > sum(r.present for r in results) else None,
    )
    if job is None:
        return part
    return _apart(part, project, names, job, python)


def _remade(project: Project, target: Target) -> Outside | None:
    """Why the target's Python is outside the project's ``requires-python``, with the command that makes its venv
    again with one inside (None: inside, or no such command: the plain install-tier then)."""
    from tierlock.outsidepython import outside

    found = outside(target, project.requires_python)
    return found if found is not None and found.remake is not None else None


def _replaces_armed(
    project: Project, prefix: Path, missing: Sequence[TierProbe], names: Sequence[str]
) -> tuple[bool, dict[str, tuple[str, str]]]:
    """Whether arming *missing* replaces what another armed tier pins (:func:`tierlock.installer.rearm.rearming`;
    loaded only when a tier is missing), and per missing tier whose re-arming makes stale another tier of *names*
    (the required ones) the remedy that names the two locks instead (``tierlock check A B``) and why."""
    if not missing:
        return False, {}
    from tierlock.installer import rearm

    answers = [rearm.rearming(project, prefix, r, names) for r in missing]
    looping = {a.tier: (a.remedy, rearm.said(a) or "") for a in answers if a.loops and a.remedy}
    flagged = any(a.command != r.install_command for a, r in zip(answers, missing, strict=True) if not a.loops)
    return flagged, looping


def one_job(project: Project, names: Sequence[str], present: Sequence[str]) -> list[str] | None:
    """The required tiers one environment can hold when *names* include tiers declared in conflict, those
    *present* first (the job this environment already is); None when one environment can hold them all."""
    job: list[str] = []
    for name in [*present, *(n for n in names if n not in present)]:
        if not any(project.exclusive(name, other) for other in job):
            job.append(name)
    return None if len(job) == len(names) else [n for n in names if n in job]


def _apart(part: Part, project: Project, names: Sequence[str], job: Sequence[str], python: str | Path | None) -> Part:
    """The probe part of *job*, failed: the gate of every required tier can never pass in one environment."""
    import shlex

    apart = [n for n in names if n not in job]
    pairs = sorted({" and ".join(sorted((a, b))) for a in job for b in apart if project.exclusive(a, b)})
    line = (
        f"ci-require names {', '.join(names)}, but conflicts keeps {'; '.join(pairs)} apart: no one environment "
        f"holds them all, so this gate cannot pass here; admit one job's tiers in each CI job (tierlock matrix "
        f"lists the jobs): here {', '.join(job)}"
    )
    admit = ["tierlock", "admit", *(a for n in job for a in ("--tier", n))]
    admit += ["--python", str(python)] if python is not None else []
    remedy = " && ".join([*([part.remedy] if part.remedy else []), shlex.join(admit)])
    return Part("probe", "fail", part.counts, [line, *part.problems], remedy, [line, *(part.brief or part.problems)])


def probe_verdict(
    results: Sequence[TierProbe],
    failed: Sequence[tuple[str, TierlockError]] = (),
    layers: Mapping[str, str | None] | None = None,
    *,
    python: str | Path | None = None,
    exclusive: Callable[[str, str], bool] | None = None,
    replace_armed: bool = False,
    looping: Mapping[str, tuple[str, str]] | None = None,
    remade: Outside | None = None,
) -> Part:
    """The probe part from the tiers probed (*results*) and the tiers that could not be probed (*failed*).

    Every tier that is not present is armed by one command (:func:`tierlock.remedies.install_remedy`),
    leaving out the tiers another of them is layered on (*layers*: tier -> the tier below it), in the
    environment that was probed (*python*, as the caller named it); with ``--replace-armed`` when
    *replace_armed* (another armed tier pins what arming them replaces). A tier of *looping* (tier -> its
    remedy and why) is not armed: re-arming it makes another required tier stale, and its remedy names the locks.
    *remade*: the probed venv runs a Python ``requires-python`` excludes, and this makes it again first.
    """
    if not results and not failed:  # nothing is required: say so rather than pass a check that could not fail
        return Part("probe", "skipped", {"tiers": 0, "tiers_present": 0, "packages": 0, "files_checked": 0})
    from tierlock import volume

    problems = [f"tier {tier}: not probed: {err.message}" for tier, err in failed]
    brief = list(problems)
    for r in results:
        for d in r.broken:
            problems.append(f"tier {r.tier}: {d.name} {d.state}: {volume.joined(d.reasons, verbose=True) or d.state}")
            brief.append(f"tier {r.tier}: {d.name} {d.state}: {volume.joined(d.reasons, verbose=False) or d.state}")
    missing = [r for r in results if not r.present]
    looping = looping or {}
    problems += [f"tier {r.tier}: {looping[r.tier][1]}" for r in missing if r.tier in looping]
    brief += [f"tier {r.tier}: {looping[r.tier][1]}" for r in missing if r.tier in looping]
    problems += [remade.why] if remade is not None and missing else []
    brief += [remade.why] if remade is not None and missing else []
    unlocked = [r.tier for r in missing if r.install_command.startswith("tierlock lock ")]  # no lockfile yet
    arm = [r.tier for r in missing if (r.needs_install or r.project_command is None) and r.tier not in looping]
    install = _install(missing, arm, layers or {}, python=python, exclusive=exclusive, unlocked=unlocked, remade=remade)
    if install and replace_armed:
        from tierlock.installer.rearm import with_flag

        install = with_flag(install)
    itself = [r.project_command for r in missing if r.project_command]  # the project itself, before the tiers
    remedies = [err.remedy for _, err in failed if err.remedy] + itself + ([install] if install else [])
    remedies += [looping[r.tier][0] for r in missing if r.tier in looping]
    remedy = " && ".join(dict.fromkeys(remedies)) or None
    distinct = {d.name: d.files_checked for r in results for d in r.checked}
    counts = {
        "tiers": len(results) + len(failed),
        "tiers_present": len(results) - len(missing),
        # A distribution in several tiers' closures (layers, shared dependencies) counts once.
        "packages": len(distinct),
        "files_checked": sum(distinct.values()),
    }
    return Part("probe", "fail" if missing or failed else "pass", counts, problems, remedy, brief)


def _install(
    missing: Sequence[TierProbe],
    arm: Sequence[str],
    layers: Mapping[str, str | None],
    *,
    python: str | Path | None,
    exclusive: Callable[[str, str], bool] | None,
    unlocked: Sequence[str],
    remade: Outside | None,
) -> str | None:
    """The one ``install-tier`` command arming *arm* in the probed environment (:func:`install_remedy`); its venv
    made again first when *remade* (its Python outside ``requires-python``), ``--python`` then naming its folder."""
    from tierlock.remedies import MANAGED_VENV, install_remedy

    if remade is not None and arm:
        named = None if python is None else remade.prefix
        install = install_remedy(arm, layers, python=named, unlocked=unlocked, exclusive=exclusive)
        return f"{remade.remake} && {install}" if install else None
    system = any("--system" in r.install_command.split() for r in missing)  # the probed Python is no venv
    managed = any(f" {MANAGED_VENV} && " in r.install_command for r in missing)  # nor one to install into
    return install_remedy(
        arm, layers, python=python, unlocked=unlocked, exclusive=exclusive, system=system, managed=managed
    )
