"""``tierlock matrix``: one CI job per tier combination worth testing, as the CI's own job matrix (pure).

The jobs: the base tier alone, each ``ci-require`` tier with the tiers it is
layered on, and one job for each set of required tiers that some test file
needs together (httpx's ``tests/test_decoders.py`` needs ``brotli`` and
``zstd``) when no job has them all, unless they are declared in conflict.
Each job carries its tier set for ``TIERLOCK_TIERS`` (the pytest plugin then
collects only the tests of those tiers and is strict about them), the command
that arms it and the gate that proves it. :func:`coverage` proves from the
census that every test file needing a required tier runs in at least one job.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from tierlock.remedies import covering
from tierlock.tiers import Project
from tierlock.tiers.model import BASE
from tierlock.tiers.platforms import python_versions, version_text

if TYPE_CHECKING:
    from tierlock.tiers.platforms import Platform

#: The variable that tells the pytest plugin which tiers a job armed.
JOB_TIERS_VAR = "TIERLOCK_TIERS"

#: A GitHub-hosted runner per platform (OS, machine, libc), and the container a musl job runs in.
RUNNERS: Mapping[tuple[str, str, str | None], tuple[str, str]] = {
    ("linux", "x86_64", "glibc"): ("ubuntu-latest", ""),
    ("linux", "aarch64", "glibc"): ("ubuntu-24.04-arm", ""),
    ("linux", "x86_64", "musl"): ("ubuntu-latest", "python:{python}-alpine"),
    ("linux", "aarch64", "musl"): ("ubuntu-24.04-arm", "python:{python}-alpine"),
    ("macos", "arm64", None): ("macos-latest", ""),
    ("macos", "x86_64", None): ("macos-15-intel", ""),
    ("windows", "AMD64", None): ("windows-latest", ""),
    ("windows", "ARM64", None): ("windows-11-arm", ""),
    ("windows", "x86", None): ("windows-latest", ""),
}


@dataclass(frozen=True)
class Job:
    name: str
    tier: str
    """The tiers this job is for (one, or several joined with ``+``)."""
    layers: tuple[str, ...]
    """Those tiers and everything they are layered on, base first: ``TIERLOCK_TIERS``."""
    install: str
    admit: str
    platform: str | None = None
    """A platform job: the declared platform it proves the tier installs on from wheels alone."""
    runs_on: str = ""
    """A platform job: the GitHub-hosted runner for it ("" when none is hosted)."""
    container: str = ""
    """A platform job: the container image it runs in (musl: Alpine), else ""."""
    python: str = ""
    """A platform job: the Python version to set up (the newest ``requires-python`` allows)."""

    def to_dict(self) -> dict[str, str]:
        document = {
            "name": self.name,
            "tier": self.tier,
            "tiers": " ".join(self.layers),
            "install": self.install,
            "admit": self.admit,
        }
        if self.platform is not None:
            document.update(platform=self.platform, runs_on=self.runs_on, container=self.container, python=self.python)
        return document


@dataclass(frozen=True)
class Coverage:
    """Which job runs each test file that needs a required tier, and the files no job can run."""

    runs_in: dict[str, str] = field(default_factory=dict)
    """Test file -> the first job that has every tier it needs."""
    uncovered: dict[str, str] = field(default_factory=dict)
    """Test file -> why no job runs it."""

    @property
    def ok(self) -> bool:
        return not self.uncovered


def _job(project: Project, names: Sequence[str]) -> Job:
    layers: list[str] = []
    for name in names:
        for tier in project.chain(name):
            if str(tier.name) not in layers:
                layers.append(str(tier.name))
    ordered = tuple(t for t in project.tiers if t in layers)
    return Job(
        name="+".join(names),
        tier="+".join(names),
        layers=ordered,
        install=f"install-tier {' '.join(names)}",
        admit="tierlock admit " + " ".join(f"--tier {n}" for n in names),
    )


def _layers(project: Project) -> dict[str, str | None]:
    return {str(n): (str(t.layered_on) if t.layered_on else None) for n, t in project.tiers.items()}


def conflict_of(project: Project, names: Sequence[str]) -> frozenset[str] | None:
    """A declared conflict among *names* (or among the tiers they are layered on), else None."""
    below = {str(t.name) for n in names for t in project.chain(n)}
    for declared in project.conflicts:
        if len(declared & below) >= 2:
            return frozenset(str(d) for d in declared)
    return None


def jobs(project: Project, needs: Mapping[str, set[str]] | None = None) -> list[Job]:
    """Base alone, each ci-require tier with its layers, then each set of tiers a test file needs together.

    *needs*: test file -> the tiers it needs (from the census); without it, no combined job.
    """
    names = [BASE, *(t for t in project.tiers if t in project.ci_require and t != BASE)]
    out = [_job(project, [name]) for name in names]
    required = {str(t) for t in project.ci_require} | {BASE}
    for file in sorted(needs or {}):
        wanted = (needs or {})[file] & required
        if not wanted or any(wanted <= set(j.layers) for j in out):
            continue
        combined = covering([t for t in project.tiers if t in wanted], _layers(project))
        if conflict_of(project, combined) is None:
            out.append(_job(project, combined))
    return out


def platform_jobs(project: Project) -> list[Job]:
    """One job per no-build tier and declared platform: it installs the tier there, from wheels alone.

    ``tierlock check`` proves from the lock that every package has a wheel on each
    platform; these jobs prove it where it counts, on a machine of each.
    """

    allowed = python_versions(project.requires_python)
    python = version_text(allowed[-1][0]) if allowed else ""
    out: list[Job] = []
    for tier in (t for t in project.tiers if t in project.no_build):
        base = _job(project, [str(tier)])
        for platform in project.platforms:
            runs_on, container = _runner(platform)
            out.append(
                replace(
                    base,
                    name=f"{tier} on {platform.name}",
                    platform=platform.name,
                    runs_on=runs_on,
                    container=container.format(python=python),
                    python=python,
                )
            )
    return out


def _runner(platform: Platform) -> tuple[str, str]:
    return RUNNERS.get((platform.os, platform.arch, platform.libc), ("", ""))


def coverage(project: Project, needs: Mapping[str, set[str]], planned: Sequence[Job]) -> Coverage:
    """Where each test file needing a required tier runs; a file whose tiers are in conflict runs nowhere."""
    required = {str(t) for t in project.ci_require} | {BASE}
    result = Coverage()
    for file in sorted(needs):
        wanted = needs[file] & required
        if not wanted - {BASE}:
            continue
        job = next((j for j in planned if wanted <= set(j.layers)), None)
        if job is not None:
            result.runs_in[file] = job.name
            continue
        conflict = conflict_of(project, sorted(wanted))
        why = (
            f"needs {' and '.join(sorted(wanted))}, declared in conflict ({', '.join(sorted(conflict))})"
            if conflict is not None
            else f"needs {' and '.join(sorted(wanted))}, and no job arms them together"
        )
        result.uncovered[file] = why
    return result


def github(planned: Sequence[Job]) -> dict[str, object]:
    """A GitHub Actions ``strategy.matrix`` (``include`` entries) for ``fromJSON``."""
    return {"include": [job.to_dict() for job in planned]}


def gitlab(planned: Sequence[Job]) -> str:
    """A GitLab CI ``parallel: matrix:`` block (YAML), one entry per job; ``TIERLOCK_TIERS`` is set per job."""
    lines = ["parallel:", "  matrix:"]
    for job in planned:
        fields = job.to_dict()
        lines.append(f"    - TIER: {_yaml(fields['tier'])}")
        lines.append(f"      {JOB_TIERS_VAR}: {_yaml(fields['tiers'])}")
        lines.append(f"      INSTALL: {_yaml(fields['install'])}")
        lines.append(f"      ADMIT: {_yaml(fields['admit'])}")
        if job.platform is not None:
            lines.append(f"      PLATFORM: {_yaml(job.platform)}")
            lines.append(f"      IMAGE: {_yaml(job.container)}")
            lines.append(f"      PYTHON: {_yaml(job.python)}")
    return "\n".join(lines) + "\n"


def _yaml(value: str) -> str:
    return json.dumps(value)  # a JSON string is a YAML double-quoted scalar
