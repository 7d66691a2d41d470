"""Session-shared parts of the remedy walker: the wheels, one locked copy per layout, a pristine venv.

Test modules import these fixtures (``from tests.support.remedyscene import ...``)
and ask :func:`scene_for` for a fresh scene per state: the project and the venv
are copies (a few milliseconds), the packages come from the shared uv cache.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.support.env import make_venv
from tests.support.remedylayouts import LAYOUTS, build_wheels, write_layout
from tests.support.remedystates import State
from tests.support.remedywalk import Scene, command, copy_tree, walk


@pytest.fixture(scope="session")
def walk_wheels(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("walk-wheels")
    build_wheels(folder)
    return folder


@pytest.fixture(scope="session")
def walk_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("walk-uv-cache")


@pytest.fixture(scope="session")
def walk_layouts(tmp_path_factory: pytest.TempPathFactory, walk_wheels: Path) -> dict[str, Path]:
    """Every layout, locked once: tests copy them."""
    wheels = {p.name.split("-")[0] + "-" + p.name.split("-")[1]: p for p in walk_wheels.glob("*.whl")}
    root = tmp_path_factory.mktemp("walk-layouts")
    return {name: write_layout(root / name, name, wheels) for name in LAYOUTS}


@pytest.fixture(scope="session")
def walk_venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("walk-venv") / "venv"
    make_venv(folder)
    return folder


@dataclass(frozen=True)
class Parts:
    """What every scene of a session is built from."""

    layouts: dict[str, Path]
    venv: Path
    wheels: Path
    cache: Path


@pytest.fixture(scope="session")
def walk_parts(walk_layouts: dict[str, Path], walk_venv: Path, walk_wheels: Path, walk_cache: Path) -> Parts:
    return Parts(walk_layouts, walk_venv, walk_wheels, walk_cache)


def scene_for(state: State, tmp_path: Path, parts: Parts) -> Scene:
    """A fresh copy of the state's project and a pristine venv, then the state's setup run on them."""
    root = copy_tree(parts.layouts[state.layout], tmp_path / "project")
    where = root / ".venv" if state.project_venv else tmp_path / "venv"
    copy_tree(parts.venv, where)
    scene = Scene(state.name, root, where, parts.wheels, parts.cache, use_python=not state.project_venv)
    state.setup(scene)
    return scene


def walk_state(state: State, scene: Scene) -> int:
    return walk(scene, command(scene, state.reader), state.healthy)
