"""The fix of a pip-tools lock made for another platform (``installer.lockload.universal_relock``): universal locks
of every such tier of the install or below it, and of every tier layered on one of them, up to the install's."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.targets import a_target
from tests.support.tierproject import write_lock
from tierlock.installer.lockload import universal_relock
from tierlock.tiers import load_project

PYPROJECT = """\
[project]
name = "app"
version = "0.1.0"
dependencies = []

[project.optional-dependencies]
mid = []
top = []
side = []

[tool.tierlock]
lock-dir = "lockfiles"

[tool.tierlock.tiers.mid]
source = "extra:mid"

[tool.tierlock.tiers.top]
source = "extra:top"
layered-on = "mid"

[tool.tierlock.tiers.side]
source = "extra:side"
"""

ELSEWHERE = "win-amd64/cpython-3.11"  # a platform no test target is


def _project(root: Path, foreign: tuple[str, ...]) -> Path:
    root.mkdir()
    (root / "pyproject.toml").write_text(PYPROJECT)
    for tier in ("base", "mid", "top", "side"):  # bottom first: each lock records the one below
        write_lock(root, tier, [], platform=ELSEWHERE if tier in foreign else None)
    return root


@pytest.mark.parametrize(
    ("foreign", "install", "fix"),
    [
        (("base",), "top", "base mid top"),  # three levels: the bottom one reached through the middle one
        (("mid",), "top", "mid top"),  # base is universal: kept
        (("top",), "top", "top"),
        (("base", "top"), "top", "base mid top"),
        (("base",), "mid", "base mid"),  # top is not installed: not locked again
        (("base",), "side", "base side"),
        (("side",), "top", "top"),  # nothing of the install is another platform's: the install's own tiers
    ],
)
def test_the_fix_locks_every_foreign_lock_of_the_install_and_what_is_layered_on_it(
    tmp_path: Path, foreign: tuple[str, ...], install: str, fix: str
) -> None:
    project = load_project(_project(tmp_path / "proj", foreign))
    target = a_target(tmp_path / "venv")
    assert universal_relock(project, [project.tier(install)], target) == f"tierlock lock {fix} --backend uv"


def test_a_lock_that_cannot_be_read_counts_as_none(tmp_path: Path) -> None:
    project = load_project(_project(tmp_path / "proj", ("base",)))
    (tmp_path / "proj" / "lockfiles" / "mid.txt").unlink()
    fix = universal_relock(project, [project.tier("top")], a_target(tmp_path / "venv"))
    assert fix == "tierlock lock base mid top --backend uv"
