"""Every command's remedy, in hostile states of one tier, followed as printed until no command has one left (the tour).

The states are the walker's catalogue of one tier (tests/support/remedystates.py: never armed, husks, drift, lost
receipts, interrupted installs' leftovers, a pip stash, a missing lockfile, a base husk, the project's own .venv)
and three more: the lock out of date with the pyproject (a requirement added), the base's dependencies changed after
the tier was locked, and the tier armed with pip. Each state is toured from its own command (``status brain``,
``probe brain``, ``admit --tier brain`` ...), text and ``--json``: its remedy is run exactly as printed until it
prints none, and the state is then healthy as the catalogue means it (the command exits 0 and the tier is present)
after at most three remedies (tests/support/remedytour.py: ``tour_state``). A state seen twice, a remedy that
changes nothing or one tierlock refuses fails the test.

Ten of them are also toured led by another command: ``brain`` is required in CI and gates a test file, and the tour
asks one of ``check``, ``status brain``, ``probe brain``, ``admit --tier brain`` under ``CI=true`` and the pytest
plugin under ``CI=true`` first, then the state's own command, running the first remedy either prints. Each lead
leads two states, so every command's remedy is the one followed somewhere (then the state's own command's, whatever
the lead leaves).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.support.remedyscene import Parts, scene_for
from tests.support.remedystates import State, armed, by_layout, delete_so, edit, state_id, then
from tests.support.remedytour import HEALTHY, Reader, own_reader, plugin_ready, read, tour, tour_state
from tests.support.remedywalk import Scene, present

READERS = [
    Reader(("status", "brain")),
    Reader(("probe", "brain")),
    Reader(("admit", "--tier", "brain"), ci=True),
    Reader(("pytest",), ci=True),
    Reader(("check",)),
]


def _gated(setup: Callable[[Scene], None]) -> Callable[[Scene], None]:
    """*setup*, in a project that requires brain in CI and gates tests/test_brain.py on it."""

    def made(scene: Scene) -> None:
        pyproject = scene.root / "pyproject.toml"
        text = pyproject.read_text(encoding="utf-8")
        text = text.replace("[tool.tierlock]\n", '[tool.tierlock]\nci-require = ["brain"]\n')
        text = text.replace(
            "[tool.tierlock.tiers.brain]\n", '[tool.tierlock.tiers.brain]\ntests = ["tests/test_brain.py"]\n'
        )
        pyproject.write_text(text, encoding="utf-8")
        (scene.root / "tests").mkdir()
        (scene.root / "tests" / "test_brain.py").write_text("def test_brain():\n    pass\n", encoding="utf-8")
        plugin_ready(scene)
        setup(scene)

    return made


MORE = [
    State(
        "the lock out of date with the pyproject",
        "single",
        then(
            armed("brain"),
            edit('brain = ["corelib>=1", "helper>=1"]', 'brain = ["corelib>=1", "helper>=1", "alib>=1"]'),
        ),
        ("status", "brain"),
        present("brain"),
    ),
    State(
        "the base's dependencies changed after the tier was locked",
        "single",
        then(armed("brain"), edit('dependencies = ["basepkg>=1"]', 'dependencies = ["basepkg>=1", "blib>=1"]')),
        ("status", "brain"),
        present("brain"),
    ),
    State(
        "armed with pip, then a husk",
        "single",
        then(armed("brain", flags=("--backend", "pip")), delete_so),
        ("status",),
        present("brain"),
    ),
]

#: The states of brain that an interrupt, another tool or a hand leaves, toured led by another command, and the
#: three above.
LED = [
    s
    for s in by_layout("single")
    if s.name
    in {
        "husk: a deleted .so",
        "half installed, no receipt",
        "the lock moved on",
        "pip's interrupted uninstall",
        "a killed receipt write",
        "no lockfile",
        "RECORD gone",
    }
] + MORE
LEADS = {s.name: READERS[i % len(READERS)] for i, s in enumerate(LED)}

#: Each state of one tier from its own command alone (the one whose lead is its own command is that tour already),
#: and each led state.
CASES = [(s, None) for s in by_layout("single") if LEADS.get(s.name) != own_reader(s)] + [
    (s, LEADS[s.name]) for s in LED
]


@pytest.mark.parametrize(
    ("state", "lead"),
    CASES,
    ids=[f"{state_id(s)}-{lead}" if lead else f"{state_id(s)}-alone" for s, lead in CASES],
)
def test_every_commands_remedy_followed_as_printed_ends_healthy_within_three_remedies_and_never_loops(
    state: State, lead: Reader | None, tmp_path: Path, walk_parts: Parts
) -> None:
    if lead is not None:
        state = State(state.name, state.layout, _gated(state.setup), state.reader, state.healthy, state.project_venv)
    tour_state(scene_for(state, tmp_path, walk_parts), state, lead)


def test_the_tour_holds_every_state_of_one_tier_and_every_command_leads_two() -> None:
    assert len(by_layout("single")) == 18
    assert len(LED) == 10
    assert sorted(LEADS.values(), key=str) == sorted(READERS * 2, key=str)
    alone = {s.name for s, lead in CASES if lead is None}
    assert alone == {s.name for s in by_layout("single")} - {"husk: a deleted .so", "no lockfile"}


def test_a_requirement_added_after_arming_is_locked_first_and_never_called_removed_by_another_tool(
    tmp_path: Path, walk_parts: Parts
) -> None:
    """status and probe printed ``install-tier brain``, which install-tier refuses for the lock's drift (its own
    remedy is ``tierlock lock brain``), and status blamed "a plain pip install -r or uv pip sync" for removing
    ``alib``, a package no lock had ever named."""
    state = next(s for s in MORE if s.name == "the lock out of date with the pyproject")
    scene = scene_for(state, tmp_path, walk_parts)
    for reader in (Reader(("status", "brain")), Reader(("probe", "brain"))):
        reading = read(scene, reader)
        assert reading.remedy == f"tierlock lock brain && install-tier brain --python {scene.python}", reading.text
    (row,) = read(scene, Reader(("status", "brain"))).document["tiers"]
    assert row["pruned"] is False
    assert not any("removed outside tierlock" in p for p in row["problems"]), row["problems"]
    done = tour(scene, [Reader(("status", "brain"))])
    assert (done.end, len(done.steps)) == (HEALTHY, 1)
    assert scene.installed()["alib"] == "1.0"
