"""Remedies that never loop between two tiers, whichever command prints them (the tour: tests/support/remedytour.py).

``brain`` and ``fast`` pin ``corelib`` 1.0 and 2.0; ``install-tier fast --replace-armed`` made ``brain`` stale.
Re-arming ``brain`` makes ``fast`` stale again, so a command that answers for both (``probe`` and ``status`` of
every tier, or of one tier while ``ci-require`` names both; ``admit``; the pytest plugin) that prints
``install-tier brain --replace-armed`` sends the next reading to the opposite command, forever. Each command's
remedy is ``tierlock check brain fast``, whose ``sibling-conflict`` finding names the edit; the tour makes that
edit as printed and the remedies from there converge to every tier present.

Declared in ``conflicts``, the pair is one environment's choice: a command answering for both prints no
re-arming of the tier kept apart (``probe``'s exit stays 1: not every tier asked is here), says so, and the
swap is printed when that tier is asked alone.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.remedyscene import Parts, scene_for
from tests.support.remedystates import State
from tests.support.remedytour import (
    EDIT,
    HEALTHY,
    Reader,
    apply_layering,
    every_tier_present,
    plugin_ready,
    read,
    tour,
)
from tests.support.remedywalk import Scene, present

#: One test file per tier, gated by the tier's ``tests`` glob.
TESTS = {"test_brain.py": "def test_brain():\n    pass\n", "test_fast.py": "def test_fast():\n    pass\n"}
GLOBS = {"brain": "tests/test_brain.py", "fast": "tests/test_fast.py"}


def _require(*tiers: str) -> str:
    return f"ci-require = {json.dumps(list(tiers))}\n"


def _stale_brain(required: tuple[str, ...]) -> State:
    def setup(scene: Scene) -> None:
        pyproject = scene.root / "pyproject.toml"
        text = pyproject.read_text(encoding="utf-8")
        if required:
            text = text.replace("[tool.tierlock]\n", "[tool.tierlock]\n" + _require(*required))
        for tier, glob in GLOBS.items():
            header = f"[tool.tierlock.tiers.{tier}]\n"
            text = text.replace(header, f"{header}tests = {json.dumps([glob])}\n")
        pyproject.write_text(text, encoding="utf-8")
        (scene.root / "tests").mkdir()
        for name, body in TESTS.items():
            (scene.root / "tests" / name).write_text(body, encoding="utf-8")
        scene.arm("brain")
        scene.arm("fast", flags=("--replace-armed",))
        plugin_ready(scene)

    return State("brain made stale by fast", "siblings", setup, ("probe",), present("brain"))


READERS_BOTH_ASKED = [Reader(("probe",)), Reader(("status",))]
READERS_BOTH_REQUIRED = [
    Reader(("probe", "brain")),
    Reader(("status", "brain")),
    Reader(("admit",), ci=True),
    Reader(("pytest",), ci=True),
]


@pytest.mark.parametrize(
    ("required", "reader"),
    [((), r) for r in READERS_BOTH_ASKED] + [(("brain", "fast"), r) for r in READERS_BOTH_REQUIRED],
    ids=str,
)
def test_a_command_answering_for_two_tiers_whose_locks_disagree_names_the_lock_edit_never_a_rearming_loop(
    tmp_path: Path, walk_parts: Parts, required: tuple[str, ...], reader: Reader
) -> None:
    scene = scene_for(_stale_brain(required), tmp_path, walk_parts)
    done = tour(scene, [reader])
    assert done.end == EDIT, done
    (step,) = [remedy for _, remedy in done.steps]  # the first remedy names the locks (admit: its lockfiles part)
    assert step in ("tierlock check", "tierlock check brain fast") or step == done.edit, done.steps
    assert done.edit is not None
    assert 'set layered-on = "brain" in [tool.tierlock.tiers.fast], then run: tierlock lock fast' in done.edit
    assert scene.receipt("brain") is not None
    assert scene.installed()["corelib"] == "2.0"  # nothing was re-armed on the way


@pytest.mark.parametrize("reader", [READERS_BOTH_ASKED[0], READERS_BOTH_REQUIRED[-1]], ids=str)
def test_once_the_edit_the_check_names_is_made_every_command_in_turn_converges_to_both_tiers_present(
    tmp_path: Path, walk_parts: Parts, reader: Reader
) -> None:
    scene = scene_for(_stale_brain(("brain", "fast")), tmp_path, walk_parts)
    done = tour(scene, [reader, *READERS_BOTH_ASKED, Reader(("admit",), ci=True)], edit=apply_layering)
    assert done.end == HEALTHY, done
    assert every_tier_present(scene)
    assert scene.installed()["corelib"] == "1.0"


def _apart_state() -> State:
    def setup(scene: Scene) -> None:
        scene.arm("brain")
        scene.arm("fast", flags=("--replace-armed",))

    return State("fast swapped in for brain, declared apart", "exclusive", setup, ("probe",), present("fast"))


@pytest.mark.parametrize("reader", READERS_BOTH_ASKED, ids=str)
def test_two_tiers_declared_in_conflict_asked_together_print_no_swap_that_would_loop(
    tmp_path: Path, walk_parts: Parts, reader: Reader
) -> None:
    scene = scene_for(_apart_state(), tmp_path, walk_parts)
    reading = read(scene, reader)
    assert "declared in conflict with fast (present here)" in reading.text, reading.text
    assert reading.remedy is None, reading.text
    assert reading.code == (1 if reader.words == ("probe",) else 0)
    rows = {row["tier"]: row for row in reading.document["tiers"]}
    assert rows["brain"]["remedy"] is None
    assert rows["brain"]["remedy_argv"] is None
    done = tour(scene, [reader])
    assert (done.end, done.steps) == (HEALTHY, [])


def test_a_tier_declared_in_conflict_asked_alone_prints_the_swap_and_it_is_accepted(
    tmp_path: Path, walk_parts: Parts
) -> None:
    scene = scene_for(_apart_state(), tmp_path, walk_parts)
    reading = read(scene, Reader(("probe", "brain")))
    assert reading.remedy == f"install-tier brain --python {scene.python} --replace-armed"
    row = reading.document["tiers"][0]
    assert (row["stales"], row["apart_from"]) == ([], [])
    done = tour(scene, [Reader(("probe", "brain"))])
    assert done.end == HEALTHY
    assert len(done.steps) == 1
    probe = json.loads(scene.tierlock("probe", "--json").stdout)
    assert {t["tier"]: t["state"] for t in probe["tiers"]} == {"base": "present", "brain": "present", "fast": "partial"}
