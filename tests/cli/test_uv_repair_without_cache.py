"""A repair uv made from the copy in its cache that a change in place through a hard link damaged: made once more
without uv's cache, and only a repair (a package there at its version, damaged, before the backend ran).

uv links each installed file to the copy it unpacked into its cache: ``truncate`` of an installed module cuts the
cache's copy too. The repair links the cut file again; tierlock says so and runs uv once more with ``--no-cache``.
A fresh environment armed from that cache gets the cut file in an install (not a repair): that fails closed, exit
3, one backend run, and the same command, printed as the fix, then repairs it.
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

AGAIN = "still damaged after its reinstall (uv links installed files from its cache"


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


def test_a_fresh_environment_armed_from_the_damaged_cache_fails_closed_then_its_printed_fix_repairs(
    tmp_path: Path,
) -> None:
    scene = Scene(tmp_path, "uv")
    _cut(scene)
    make_venv(tmp_path / "fresh")
    fix = shlex.join(["install-tier", "brain", "--python", str(tmp_path / "fresh" / "bin" / "python")])
    first = scene.run(*shlex.split(fix))
    assert first.returncode == 3, first.stdout + first.stderr
    assert AGAIN not in first.stderr  # an install, not a repair: one backend run
    assert f"to fix: {fix}" in first.stderr
    second = scene.run(*shlex.split(fix))
    assert second.returncode == 0, second.stdout + second.stderr
    assert f"uv: corelib {AGAIN}" in second.stderr
    assert "already present" in scene.run(*shlex.split(fix)).stdout
