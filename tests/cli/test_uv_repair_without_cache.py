"""What uv wrote from the copy in its cache that a change in place through a hard link damaged: written once more
without uv's cache, in the same run, for a repair and for an install into another environment.

uv links each installed file to the copy it unpacked into its cache: ``truncate`` of an installed module cuts the
cache's copy too. The repair links the cut file again; tierlock says so and runs uv once more with ``--no-cache``.
A fresh environment armed from that cache gets the cut file in an install: the same, in one run (before, that
failed closed with exit 3, and only the printed fix, run again, repaired it).
"""

from __future__ import annotations

import shlex
import subprocess
from pathlib import Path

import pytest

from tests.cli.test_rewritten_in_place_remedy import UTIL, Scene
from tests.support.env import make_venv
from tests.support.native import needs_compiler

pytestmark = [needs_compiler, pytest.mark.slow]

AGAIN = "damaged as uv wrote it (uv links installed files from its cache"


def _cut(scene: Scene) -> None:
    util = scene.file("util.py")
    assert util.stat().st_nlink > 1  # the case: a hard link to uv's cache
    subprocess.run(["truncate", "-s", str(len(UTIL) // 2), str(util)], check=True)


def test_a_module_cut_in_place_through_uvs_link_is_repaired_without_the_cache(tmp_path: Path) -> None:
    scene = Scene(tmp_path, "uv")
    _cut(scene)
    repaired = scene.run(*shlex.split(scene.fix))
    assert repaired.returncode == 0, repaired.stdout + repaired.stderr
    assert f"uv: corelib {AGAIN}" in repaired.stderr
    assert repaired.stderr.count("uv: installing 0, replacing 0, repairing 1 of") == 2
    assert scene.imports().stdout.split() == ["0", "1"]
    assert "already present" in scene.run(*shlex.split(scene.fix)).stdout


def test_a_fresh_environment_armed_from_the_damaged_cache_is_installed_again_without_it_in_the_same_run(
    tmp_path: Path,
) -> None:
    scene = Scene(tmp_path, "uv")
    _cut(scene)
    make_venv(tmp_path / "fresh")
    arm = shlex.join(["install-tier", "brain", "--python", str(tmp_path / "fresh" / "bin" / "python")])
    first = scene.run(*shlex.split(arm))
    assert first.returncode == 0, first.stdout + first.stderr
    assert f"uv: corelib {AGAIN}" in first.stderr
    assert first.stderr.index(AGAIN) < first.stderr.index("uv: installing 0, replacing 0, repairing 1 of 1 package(s)")
    assert "already present" in scene.run(*shlex.split(arm)).stdout
