"""The ends of the remedy walk that are not a re-armed tier: refusals that say so, and labels that say what
happened.

* a receipt the system will not write (a file-size limit, as a full disk) is exit 3 with a JSON error and
  a remedy that converges once the limit is gone, never a traceback;
* ``remove`` on a read-only site-packages is refused up front, as ``install`` is;
* tierlock's own remove, cut short, never leaves a receipt that blames "another tool";
* "pruned" only for packages another tool's sync removed, not for a deleted ``.so``, an emptied file or a
  hand downgrade; "receipt written" only when one was.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
from pathlib import Path

import pytest

from tests.support.remedyscene import Parts, scene_for
from tests.support.remedystates import STATES, State, so_of
from tests.support.remedywalk import Scene, command, present, run_remedy, walk

HUSK = next(s for s in STATES if s.name == "husk: a deleted .so")


@pytest.fixture
def husk(tmp_path: Path, walk_parts: Parts) -> Scene:
    return scene_for(HUSK, tmp_path, walk_parts)


def _file_size_limit(limit: int) -> None:
    resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))


def test_a_receipt_the_system_will_not_write_is_exit_3_with_a_json_error_and_a_remedy_that_converges(
    husk: Scene,
) -> None:
    husk.arm("brain")  # whole again; then its receipt goes: install-tier has no package to write, only the receipt
    (husk.venv / "tierlock" / "receipts" / "brain.json").unlink()
    argv = ["install-tier", "brain", *husk.where(), "--json"]
    done = subprocess.run(
        argv,
        cwd=husk.root,
        env=husk.env(),
        capture_output=True,
        text=True,
        check=False,
        preexec_fn=lambda: _file_size_limit(600),
    )
    assert done.returncode == 3, done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    error = json.loads(done.stdout)["error"]
    assert error["kind"] == "backend"
    assert "could not write the receipt" in error["message"]
    assert error["file"].endswith("brain.json")
    assert error["remedy_argv"] == [["install-tier", "brain", *husk.where()]]
    assert husk.receipt("brain") is None
    run_remedy(husk, error["remedy_argv"])  # the limit gone, the remedy as printed writes it
    assert husk.receipt("brain") is not None


def _immutable(path: Path, on: bool) -> bool:
    if os.geteuid() != 0:
        path.chmod(0o555 if on else 0o755)
        return True
    flag = "+i" if on else "-i"
    return subprocess.run(["chattr", flag, str(path)], capture_output=True, check=False).returncode == 0


def test_remove_on_a_read_only_site_packages_is_refused_before_anything_changes(husk: Scene) -> None:
    before = husk.installed()
    if not _immutable(husk.site, True):
        pytest.skip("neither chattr nor a non-root user can make a folder read-only here")
    try:
        done = husk.tierlock("remove", "brain", "--json")
    finally:
        _immutable(husk.site, False)
    assert done.returncode == 2, done.stdout + done.stderr
    error = json.loads(done.stdout)["error"]
    assert f"cannot remove from {husk.venv}: its site-packages {husk.site} is not writable" in error["message"]
    assert husk.installed() == before
    assert husk.receipt("brain") is not None


def test_a_remove_that_tierlock_could_not_finish_is_never_blamed_on_another_tool(husk: Scene) -> None:
    stuck = husk.site / "helper"
    if not _immutable(stuck, True):
        pytest.skip("neither chattr nor a non-root user can make a folder read-only here")
    try:
        cut = husk.tierlock("remove", "brain")
    finally:
        _immutable(stuck, False)
    assert cut.returncode != 0, cut.stdout + cut.stderr
    status = husk.tierlock("status", "brain", "--json")
    (row,) = json.loads(status.stdout)["tiers"]
    assert row["receipt"] is None
    assert not any("outside tierlock" in p for p in row["problems"]), row["problems"]
    assert walk(husk, command(husk, ("status", "brain")), present("brain")) <= 1


def _emptied(scene: Scene) -> None:
    path = scene.site / "helper" / "data.txt"
    path.unlink()
    path.write_bytes(b"")


@pytest.mark.parametrize(
    ("change", "pruned"),
    [
        (lambda scene: so_of(scene, "corelib").unlink(), False),
        (_emptied, False),
        (lambda scene: scene.uv_pip("install", "corelib==2.0"), False),
        (lambda scene: scene.uv_pip("uninstall", "helper"), True),
    ],
    ids=["deleted-so", "emptied-file", "hand-upgrade", "another-tools-sync"],
)
def test_pruned_is_said_only_when_another_tool_removed_packages(
    tmp_path: Path, walk_parts: Parts, change: object, pruned: bool
) -> None:
    state = State("armed", "single", lambda scene: scene.arm("brain"), ("status", "brain"), present("brain"))
    scene = scene_for(state, tmp_path, walk_parts)
    assert callable(change)
    change(scene)
    done = scene.tierlock("status", "brain", "--json")
    (row,) = json.loads(done.stdout)["tiers"]
    assert row["pruned"] is pruned
    assert any("removed outside tierlock" in p for p in row["problems"]) is pruned
    text = scene.tierlock("status", "brain").stdout
    assert ("removed outside tierlock" in text) is pruned


def test_install_says_receipt_written_only_when_it_wrote_one(husk: Scene) -> None:
    repaired = husk.run(["install-tier", "brain", *husk.where()])
    assert repaired.returncode == 0, repaired.stderr
    assert "brain: repaired" in repaired.stdout
    # uv links the extension again from its (whole) cache: the same file, the same time: the receipt says this
    assert "receipt written" not in repaired.stdout
    assert "receipt unchanged" in repaired.stdout
    (husk.site / "helper" / "data.txt").unlink()  # a package with no shared object: its rows are its sizes
    again = husk.run(["install-tier", "brain", *husk.where()])
    assert "brain: repaired" in again.stdout
    assert "receipt written" not in again.stdout  # the receipt already said exactly this
    assert "receipt unchanged" in again.stdout
    (husk.venv / "tierlock" / "receipts" / "brain.json").unlink()
    so_of(husk, "corelib").unlink()
    again = husk.run(["install-tier", "brain", *husk.where()])
    assert again.returncode == 0, again.stderr
    assert "receipt written" in again.stdout


@pytest.mark.parametrize("name", ["admit", "probe"])
def test_the_help_of_admit_and_probe_names_the_environment_they_act_on(name: str) -> None:
    from tests.support.env import bin_dir, clean_env

    done = subprocess.run(
        [str(bin_dir() / "tierlock"), name, "--help"], capture_output=True, text=True, check=True, env=clean_env()
    )
    flat = " ".join(done.stdout.split())
    assert "the active venv, else the project's environment" in flat
    assert "else this interpreter" not in flat
