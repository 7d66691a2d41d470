"""``tierlock matrix``: one CI job per tier combination worth testing, as the CI's own job matrix (pure).

The jobs: the base tier alone, then each ``ci-require`` tier with the tiers it
is layered on. Each job carries the command that arms it and the gate that
proves it (``tierlock admit --tier``), so the union of the jobs covers every
required tier while each runner installs only one closure. In a job, tests of
the other tiers are not collected: run pytest lenient there
(``TIERLOCK_STRICT=0``); the per-job ``admit`` is the fail-closed gate.
"""

from __future__ import annotations

from dataclasses import dataclass

from tierlock.tiers import Project
from tierlock.tiers.model import BASE


@dataclass(frozen=True)
class Job:
    name: str
    tier: str
    layers: tuple[str, ...]
    """The tier and everything it is layered on, base first."""
    install: str
    admit: str

    def to_dict(self) -> dict[str, str]:
        return {
            "name": self.name,
            "tier": self.tier,
            "tiers": " ".join(self.layers),
            "install": self.install,
            "admit": self.admit,
        }


def jobs(project: Project) -> list[Job]:
    """Base alone, then each ci-require tier with its layers (in project order)."""
    names = [BASE, *(t for t in project.tiers if t in project.ci_require and t != BASE)]
    out: list[Job] = []
    for name in names:
        layers = tuple(t.name for t in project.chain(name))
        out.append(
            Job(
                name=name,
                tier=name,
                layers=layers,
                install=f"install-tier {name}",
                admit=f"tierlock admit --tier {name}",
            )
        )
    return out


def github(project: Project) -> dict[str, object]:
    """A GitHub Actions ``strategy.matrix`` (``include`` entries) for ``fromJSON``."""
    return {"include": [job.to_dict() for job in jobs(project)]}


def gitlab(project: Project) -> str:
    """A GitLab CI ``parallel: matrix:`` block (YAML), one entry per job."""
    lines = ["parallel:", "  matrix:"]
    for job in jobs(project):
        fields = job.to_dict()
        lines.append(f"    - TIER: {_yaml(fields['tier'])}")
        lines.append(f"      TIERS: {_yaml(fields['tiers'])}")
        lines.append(f"      INSTALL: {_yaml(fields['install'])}")
        lines.append(f"      ADMIT: {_yaml(fields['admit'])}")
    return "\n".join(lines) + "\n"


def _yaml(value: str) -> str:
    import json

    return json.dumps(value)  # a JSON string is a YAML double-quoted scalar
