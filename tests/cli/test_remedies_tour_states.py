"""Every command's remedy, in hostile states of one tier, followed until no command has one left (the tour).

The states are the walker's catalogue (tests/support/remedystates.py: husks, drift, lost receipts, interrupted
installs' leftovers, a pip stash, a missing lockfile) and three more: the lock out of date with the pyproject
(a requirement added), the base's dependencies changed after the tier was locked, and the tier armed with pip.
In each, ``brain`` is required in CI and gates a test file; the tour asks one of ``check``, ``status brain``,
``probe brain``, ``admit --tier brain`` under ``CI=true`` and the pytest plugin under ``CI=true`` (each command
as text and ``--json``), then ``status brain``, runs the first remedy either prints exactly as printed, and
repeats: a state seen twice, a remedy
that changes nothing or one tierlock refuses fails the test. Each state is led by another of the commands, so
every command's remedy is the one followed somewhere (then ``status brain``'s, whatever the lead leaves).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.support.remedyscene import Parts, scene_for
from tests.support.remedystates import STATES, State
from tests.support.remedytour import HEALTHY, Reader, every_tier_present, plugin_ready, read, tour
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


def _edit(old: str, new: str) -> Callable[[Scene], None]:
    def step(scene: Scene) -> None:
        pyproject = scene.root / "pyproject.toml"
        text = pyproject.read_text(encoding="utf-8")
        assert old in text
        pyproject.write_text(text.replace(old, new, 1), encoding="utf-8")

    return step


def _then(*steps: Callable[[Scene], None]) -> Callable[[Scene], None]:
    def setup(scene: Scene) -> None:
        for step in steps:
            step(scene)

    return setup


def _arm(*flags: str) -> Callable[[Scene], None]:
    def step(scene: Scene) -> None:
        scene.arm("brain", flags=flags)

    return step


def _delete_so(scene: Scene) -> None:
    next((scene.site / "corelib").glob("_core*.so")).unlink()


MORE = [
    State(
        "the lock out of date with the pyproject",
        "single",
        _then(_arm(), _edit('brain = ["corelib>=1", "helper>=1"]', 'brain = ["corelib>=1", "helper>=1", "alib>=1"]')),
        ("status", "brain"),
        present("brain"),
    ),
    State(
        "the base's dependencies changed after the tier was locked",
        "single",
        _then(_arm(), _edit('dependencies = ["basepkg>=1"]', 'dependencies = ["basepkg>=1", "blib>=1"]')),
        ("status", "brain"),
        present("brain"),
    ),
    State(
        "armed with pip, then a husk",
        "single",
        _then(_arm("--backend", "pip"), _delete_so),
        ("status",),
        present("brain"),
    ),
]

#: The catalogue's states of brain that an interrupt, another tool or a hand leaves (the walker follows status's
#: remedy in all of them already), and the three above.
TOURED = [
    s
    for s in STATES
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


@pytest.mark.parametrize(
    ("state", "lead"),
    [(s, READERS[i % len(READERS)]) for i, s in enumerate(TOURED)],
    ids=[f"{s.name.replace(' ', '-')}-{READERS[i % len(READERS)]}" for i, s in enumerate(TOURED)],
)
def test_every_commands_remedy_followed_as_printed_ends_with_the_tier_present_and_never_loops(
    state: State, lead: Reader, tmp_path: Path, walk_parts: Parts
) -> None:
    gated = State(state.name, state.layout, _gated(state.setup), state.reader, state.healthy)
    scene = scene_for(gated, tmp_path, walk_parts)
    done = tour(scene, [lead, *(r for r in READERS[:1] if r != lead)])  # (status: whatever the lead leaves)
    assert done.end == HEALTHY, done
    assert every_tier_present(scene) or scene.probe_state("brain") == "present"


def test_the_tour_holds_every_state_it_names_and_every_command_leads_one() -> None:
    assert len(TOURED) == 10
    assert {READERS[i % len(READERS)] for i in range(len(TOURED))} == set(READERS)


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
