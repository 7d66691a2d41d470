"""Every printed remedy converges:
two tiers that pin one package differently, with and without a declared conflict, and a gate that
requires two tiers declared in conflict (no one environment holds both: the remedy admits one job).

Each state is built with the real CLI and real uv in a real venv (offline), then
walked: the remedy printed by the state's command (human and ``--json``) is run
exactly as printed until the state is healthy, in at most three steps, and no
remedy is refused by tierlock itself (see tests/support/remedywalk.py).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.remedyscene import Parts, scene_for, walk_state
from tests.support.remedystates import State, by_layout, state_id
from tests.support.remedywalk import Scene, command, present, read, run_remedy


@pytest.mark.parametrize("state", by_layout("siblings", "exclusive"), ids=state_id)
def test_the_printed_remedy_reaches_the_healthy_state_in_three_steps(
    state: State, tmp_path: Path, walk_parts: Parts
) -> None:
    scene = scene_for(state, tmp_path, walk_parts)
    assert walk_state(state, scene) <= 3


def _require_both(scene: Scene) -> None:
    pyproject = scene.root / "pyproject.toml"
    text = pyproject.read_text(encoding="utf-8")
    pyproject.write_text(
        text.replace("conflicts = [", 'ci-require = ["brain", "fast"]\nconflicts = ['), encoding="utf-8"
    )


@pytest.mark.parametrize(("armed", "job"), [((), "brain"), (("brain",), "brain"), (("fast",), "fast")])
def test_a_gate_that_requires_two_tiers_declared_in_conflict_says_so_and_its_remedy_admits_one_job(
    tmp_path: Path, walk_parts: Parts, armed: tuple[str, ...], job: str
) -> None:
    scene = scene_for(
        State("a required pair in conflict", "exclusive", _require_both, ("admit",), present(job)), tmp_path, walk_parts
    )
    if armed:
        scene.arm(*armed)
    reading = read(scene, command(scene, ("admit",)))
    assert reading.code == 1
    assert "keeps brain and fast apart" in reading.text, reading.text
    assert reading.remedy_argv is not None
    assert reading.remedy_argv[-1] == ["tierlock", "admit", "--tier", job, *scene.where()], reading.remedy
    assert [a for a in reading.remedy_argv if a[0] == "install-tier"] == (
        [] if armed else [["install-tier", job, *scene.where()]]
    )
    run_remedy(scene, reading.remedy_argv)  # every part exits 0, the job's own gate last
    assert read(scene, command(scene, ("admit",))).code == 1  # the gate of both still fails closed
