"""``tierlock verify --twice``: the run-twice discipline of a setup, recorded.

The setup runs twice in a row. Around each run the target environment and the working tree
are snapshotted (:mod:`tierlock.evidence.snapshot`), and the files each run added, removed
and changed are counted. The setup is idempotent when the second run changed nothing; the
first run either changed something (it set the environment up) or changed nothing, and then
the environment was already set up, which the record says (``alreadySetUp``). A setup that is
not idempotent fails the run (exit 1) and names what the second run changed.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from tierlock.evidence import snapshot
from tierlock.evidence.answer import listed

if TYPE_CHECKING:
    from tierlock.evidence.execution import Execution
    from tierlock.evidence.prepare import Prepared


@dataclass
class Twice:
    """Both runs of the setup: what each changed, and how many commands ran."""

    runs: list[dict[str, Any]] = field(default_factory=list)
    ok: bool = True
    """Every setup command of both runs passed."""
    commands_run: int = 0

    def _total(self, index: int) -> int:
        run = self.runs[index]
        return sum(run[part]["added"] + run[part]["removed"] + run[part]["changed"] for part in ("environment", "tree"))

    @property
    def idempotent(self) -> bool:
        return self.ok and len(self.runs) == 2 and self._total(1) == 0

    def to_dict(self) -> dict[str, Any]:
        return {
            "runs": self.runs,
            "idempotent": self.idempotent,
            "alreadySetUp": bool(self.runs) and self._total(0) == 0,
            "commandsRun": self.commands_run,
        }


def run_twice(p: Prepared, ex: Execution, run_setup: Callable[[Prepared, Execution], tuple[bool, int]]) -> Twice:
    """Run the setup twice (*run_setup* runs it once), snapshotting the environment and the tree around each run."""
    skip = [p.target.path, p.evidence_dir]
    twice = Twice()
    for number in (1, 2):
        env_before, tree_before = snapshot.take(p.target.path), snapshot.take(p.root, skip)
        ok, count = run_setup(p, ex)
        twice.commands_run += count
        twice.runs.append(
            {
                "run": number,
                "environment": snapshot.compare(env_before, snapshot.take(p.target.path)).to_dict(),
                "tree": snapshot.compare(tree_before, snapshot.take(p.root, skip)).to_dict(),
                "commands": count,
            }
        )
        if not ok:
            twice.ok = False
            break
    return twice


def not_idempotent(twice: dict[str, Any]) -> str:
    """Why a setup whose second run changed something is not evidence, naming what changed."""
    second = twice["runs"][1]
    parts = []
    for part in ("environment", "tree"):
        counts = second[part]
        total = counts["added"] + counts["removed"] + counts["changed"]
        if total:
            parts.append(
                f"{total} file(s) in the {part} ({counts['added']} added, {counts['removed']} removed, "
                f"{counts['changed']} changed: {listed(counts['files'])})"
            )
    return "the setup is not idempotent: its second run changed " + "; ".join(parts)
