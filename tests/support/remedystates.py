"""The catalogue of broken states the remedy walker drives (see :mod:`tests.support.remedywalk`).

The projects are :mod:`tests.support.remedylayouts`. Each
:class:`State` builds its broken environment from a pristine locked copy with
the real CLI (``install-tier``) and the tools a user has at hand (``uv pip``,
``rm``), then names the command whose remedy is walked and what healthy means.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from tests.support.remedywalk import Healthy, Reading, Scene, present
from tests.support.tierproject import write_lock
from tests.support.wheels import EXT_SUFFIX


def relock(scene: Scene, tier: str, pins: list[tuple[str, str]]) -> None:
    """Rewrite *tier*'s lock of the scene's project with other pins (the lock changed after arming)."""
    base = [("basepkg", "1.0", scene.wheels / "basepkg-1.0-py3-none-any.whl")]
    tagged = [(n, v, next(scene.wheels.glob(f"{n}-{v}-*.whl"))) for n, v in pins]
    write_lock(scene.root, tier, [*base, *tagged])


# -- the states ------------------------------------------------------------------------------


@dataclass(frozen=True)
class State:
    name: str
    layout: str
    setup: Callable[[Scene], None]
    reader: tuple[str, ...]
    """The tierlock command whose remedy is walked (run with the scene's ``--python``)."""
    healthy: Healthy
    project_venv: bool = False
    """The scene's venv is the project's ``.venv`` (commands carry no ``--python``)."""


def so_of(scene: Scene, package: str) -> Path:
    return next((scene.site / package).glob(f"*{EXT_SUFFIX}"))


def _nothing(scene: Scene) -> None:
    del scene


def armed(*tiers: str, flags: tuple[str, ...] = ()) -> Callable[[Scene], None]:
    def setup(scene: Scene) -> None:
        scene.arm(*tiers, flags=flags)

    return setup


def then(*steps: Callable[[Scene], None]) -> Callable[[Scene], None]:
    def setup(scene: Scene) -> None:
        for step in steps:
            step(scene)

    return setup


def delete_so(scene: Scene) -> None:
    so_of(scene, "corelib").unlink()


def edit(old: str, new: str) -> Callable[[Scene], None]:
    """A step that edits the project's pyproject.toml by hand: *old* (which must be there) becomes *new*."""

    def step(scene: Scene) -> None:
        pyproject = scene.root / "pyproject.toml"
        text = pyproject.read_text(encoding="utf-8")
        assert old in text
        pyproject.write_text(text.replace(old, new, 1), encoding="utf-8")

    return step


def _zero_file(scene: Scene) -> None:
    """A file emptied by a new inode (uv hard-links from its cache: writing in place would empty the cache too)."""
    path = scene.site / "helper" / "data.txt"
    path.unlink()
    path.write_bytes(b"")


def _hand_upgrade(scene: Scene) -> None:
    scene.uv_pip("install", "corelib==2.0")


def _sync_prunes(scene: Scene) -> None:
    scene.uv_pip("uninstall", "helper")


def _delete_receipt(tier: str) -> Callable[[Scene], None]:
    def step(scene: Scene) -> None:
        (scene.venv / "tierlock" / "receipts" / f"{tier}.json").unlink()

    return step


def _files_gone(scene: Scene) -> None:
    shutil.rmtree(scene.site / "helper")


def _half_installed(scene: Scene) -> None:
    scene.uv_pip("install", "corelib==1.0")


def _lock_moved_on(scene: Scene) -> None:
    relock(scene, "brain", [("corelib", "2.0"), ("helper", "1.0")])


def _pip_leftover(scene: Scene) -> None:
    """An interrupted pip uninstall: the package folder renamed to pip's ``~name`` stash."""
    (scene.site / "corelib").rename(scene.site / "~orelib")


def _temporary_receipt(scene: Scene) -> None:
    (scene.venv / "tierlock" / "receipts" / ".brain.json.1234.tmp").write_text("{")


def _no_lockfile(scene: Scene) -> None:
    (scene.root / "lockfiles" / "brain.txt").unlink()


def _base_husk(scene: Scene) -> None:
    (scene.site / "basepkg" / "__init__.py").unlink()


def _corrupt_receipt(scene: Scene) -> None:
    (scene.venv / "tierlock" / "receipts" / "brain.json").write_text("not json")


def _record_gone(scene: Scene) -> None:
    next(scene.site.glob("helper-*.dist-info")).joinpath("RECORD").unlink()


def _interrupted_replace(scene: Scene) -> None:
    """What an ``install-tier fast --replace-armed`` interrupted before its backend replaced anything leaves:
    brain's receipt marked stale by fast, fast not installed."""
    path = scene.venv / "tierlock" / "receipts" / "brain.json"
    document = json.loads(path.read_text())
    document["stale"] = {"replaced_by": ["fast"], "packages": ["corelib"]}
    path.write_text(json.dumps(document))


def _install_staying(scene: Scene) -> None:
    scene.uv_pip("install", "staying==1.0", "--no-deps")


def _no_project_environment(scene: Scene) -> None:
    shutil.rmtree(scene.venv)


def _done_when(check: Callable[[Scene, Reading], bool], *, remedy_allowed: bool = False) -> Healthy:
    """Healthy: the command exits 0 without a remedy (*remedy_allowed*: a report may still name one per
    tier), and *check* holds."""

    def healthy(scene: Scene, reading: Reading) -> bool:
        quiet = remedy_allowed or reading.remedy is None
        return reading.code == 0 and quiet and check(scene, reading)

    return healthy


def _without(*names: str) -> Healthy:
    return _done_when(lambda scene, _r: not set(names) & set(scene.installed()))


def _armed_ok() -> Healthy:
    return _done_when(lambda _s, _r: True)


STATUS_BRAIN = ("status", "brain")
B = "brain"

STATES: list[State] = [
    # -- one tier, one environment: what already worked, and the words around it
    State("never armed", "single", _nothing, STATUS_BRAIN, present(B)),
    State("husk: a deleted .so", "single", then(armed(B), delete_so), STATUS_BRAIN, present(B)),
    State("a zeroed file", "single", then(armed(B), _zero_file), STATUS_BRAIN, present(B)),
    State("a hand upgrade", "single", then(armed(B), _hand_upgrade), STATUS_BRAIN, present(B)),
    State("pruned by another tool's sync", "single", then(armed(B), _sync_prunes), STATUS_BRAIN, present(B)),
    State("receipt deleted, packages whole", "single", then(armed(B), _delete_receipt(B)), STATUS_BRAIN, present(B)),
    State("a package's files gone", "single", then(armed(B), _files_gone), STATUS_BRAIN, present(B)),
    State("half installed, no receipt", "single", _half_installed, STATUS_BRAIN, present(B)),
    State("the lock moved on", "single", then(armed(B), _lock_moved_on), STATUS_BRAIN, present(B)),
    State("pip's interrupted uninstall", "single", then(armed(B), _pip_leftover), STATUS_BRAIN, present(B)),
    State("a killed receipt write", "single", then(armed(B), _temporary_receipt, delete_so), STATUS_BRAIN, present(B)),
    State("no lockfile", "single", _no_lockfile, STATUS_BRAIN, present(B)),
    State("base husk", "single", then(armed("base"), _base_husk), ("status", "base"), present("base")),
    State("unreadable receipt", "single", then(armed(B), _corrupt_receipt, delete_so), STATUS_BRAIN, present(B)),
    State("RECORD gone", "single", then(armed(B), _record_gone), STATUS_BRAIN, present(B)),
    State("husk read by probe", "single", then(armed(B), delete_so), ("probe", B), present(B)),
    State("husk read by admit", "single", then(armed(B), delete_so), ("admit", "--tier", B), present(B)),
    State("husk in the project's .venv", "single", then(armed(B), delete_so), STATUS_BRAIN, present(B), True),
    # -- two tiers that pin one package differently
    State(
        "stale after --replace-armed",
        "siblings",
        then(armed(B), armed("fast", flags=("--replace-armed",))),
        STATUS_BRAIN,
        present(B),
    ),
    State(
        "stale, read by probe",
        "siblings",
        then(armed(B), armed("fast", flags=("--replace-armed",))),
        ("probe", B),
        present(B),
    ),
    State(
        "both sides hold receipts: install-tier --armed",
        "siblings",
        then(armed(B), armed("fast", flags=("--replace-armed",))),
        ("install-tier", "--armed"),
        _armed_ok(),
    ),
    State(
        "husk of a tier a stale sibling blocks",
        "siblings",
        then(
            armed(B),
            armed("fast", flags=("--replace-armed",)),
            armed(B, flags=("--replace-armed",)),
            delete_so,
        ),
        STATUS_BRAIN,
        present(B),
    ),
    State(
        "interrupted --replace-armed",
        "siblings",
        then(armed(B), _interrupted_replace),
        ("status", "fast"),
        present("fast"),
    ),
    State(
        "interrupted --replace-armed, the tier it did not replace",
        "siblings",
        then(armed(B), _interrupted_replace),
        STATUS_BRAIN,
        present(B),
    ),
    State("sibling armed, the other absent", "siblings", armed(B), ("status", "fast"), present("fast")),
    State("declared conflict: the other absent", "exclusive", armed(B), ("status", "fast"), present("fast")),
    State("declared conflict: nothing armed, admit", "exclusive", _nothing, ("admit",), _armed_ok()),
    State(
        "declared conflict: both hold receipts",
        "exclusive",
        then(armed(B), armed("fast", flags=("--replace-armed",))),
        ("install-tier", "--armed"),
        _armed_ok(),
    ),
    State(
        "declared conflict: no project environment, status of every tier",
        "exclusive",
        _no_project_environment,
        ("status",),
        _done_when(lambda scene, _r: scene.python.exists(), remedy_allowed=True),
        True,
    ),
    State(
        "no project environment, admit of one tier",
        "exclusive",
        _no_project_environment,
        ("admit", "--tier", "brain"),
        _done_when(lambda scene, _r: scene.python.exists()),
        True,
    ),
    # -- aggregates, partial roots, extras
    State("aggregate without receipt: remove a", "aggregate", armed("a", "b"), ("remove", "a"), _without("alib")),
    State("aggregate armed: remove a", "aggregate", armed("all", "b"), ("remove", "a"), _without("alib")),
    State("aggregate without receipt: status", "aggregate", armed("a", "b"), ("status", "all"), present("all")),
    State(
        "partial roots without a receipt: remove the other",
        "siblings",
        armed("fast"),
        ("remove", "fast"),
        _without("corelib"),
    ),
    State(
        "a staying package needs a removed one through an extra",
        "extras",
        then(armed("ana"), _install_staying),
        ("remove", "ana"),
        _done_when(lambda scene, _r: "xduck" in scene.installed()),
    ),
]


def by_layout(*layouts: str) -> list[State]:
    return [s for s in STATES if s.layout in layouts]


def state_id(state: State) -> str:
    return state.name.replace(" ", "-")
