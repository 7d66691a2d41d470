# ruff: noqa: F811  (pytest fixtures imported from the installer's end-to-end tests are redefined as parameters)
"""``tierlock remove`` with real uv and pip: decided under the environment lock, from lockfiles (never from
receipts alone), keeping what any distribution that stays requires, and saying who needs what it keeps."""

from __future__ import annotations

import subprocess
import threading
from pathlib import Path

import pytest

from tests.cli.test_install_cli import (  # noqa: F401  (fixtures shared with the installer's end-to-end tests)
    World,
    armed_venv,
    empty_venv,
    kit,
    lines_of,
    use_armed,
    uv_cache,
    wheel_dir,
    wheels,
    world,
)
from tests.support.env import bin_dir
from tests.support.wheels import build_wheel
from tierlock.installer import receipts
from tierlock.installer.locking import environment_lock

pytestmark = pytest.mark.slow


@pytest.fixture(scope="session")
def needy_links(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``needy``: not in any tier; requires helper, and corelib only under a marker that never holds."""
    links = tmp_path_factory.mktemp("needy")
    build_wheel(
        links, "needy", "1.0", requires=["helper>=1", 'corelib>=1 ; python_version < "3"', "zzz[x] ; extra == 'x'"]
    )
    return links


def add_needy(world: World, links: Path) -> None:
    """Install ``needy`` the way a user would, outside tierlock."""
    argv = [str(bin_dir() / "uv"), "pip", "install", "--python", world.python, "--no-deps", "needy"]
    env = world.sub_env(links=str(links))
    subprocess.run(argv, env=env, check=True, capture_output=True, text=True)


def installed(world: World) -> set[str]:
    return {p.name.split("-")[0] for p in world.site.glob("*.dist-info")}


def test_remove_keeps_what_an_installed_non_tier_package_requires_and_names_who_needs_it(
    world: World, armed_venv: Path, needy_links: Path
) -> None:
    use_armed(world, armed_venv)
    add_needy(world, needy_links)
    run = world.cli("remove", "brain")
    assert run.code == 0, run.err
    assert "brain: removed 1 package(s): corelib; receipt deleted" in run.out
    assert (
        "kept 2 package(s): basepkg (needed by tier base), helper (needed by needy, which stays installed)" in run.out
    )
    assert installed(world) == {"basepkg", "helper", "needy"}
    assert world.receipt() is None


def test_deleting_a_receipt_never_changes_what_remove_deletes(world: World, armed_venv: Path) -> None:
    use_armed(world, armed_venv)
    before = world.cli("remove", "brain", "--dry-run", "--json").json
    base_before = world.cli("remove", "base", "--dry-run", "--json").json
    assert receipts.remove(world.venv, "brain")
    after = world.cli("remove", "brain", "--dry-run", "--json").json
    base_after = world.cli("remove", "base", "--dry-run", "--json").json
    assert before["would_remove"] == after["would_remove"] == ["corelib", "helper"]
    # brain is still armed (its packages are there) although its receipt is gone: base stays whole.
    assert base_before["would_remove"] == base_after["would_remove"] == []
    assert base_after["layered_tiers_armed"] == ["brain"]

    run = world.cli("remove", "brain")
    assert run.code == 0, run.err
    assert "brain: removed 2 package(s): corelib, helper; there was no receipt" in run.out
    assert installed(world) == {"basepkg"}


def test_removing_a_tier_an_armed_tier_is_layered_on_is_refused_with_the_command_that_removes_both(
    world: World, armed_venv: Path
) -> None:
    use_armed(world, armed_venv)
    run = world.cli("remove", "base", "--backend", "pip")
    assert run.code == 2, run.err
    assert "base: nothing removed - armed tier(s) brain are layered on it" in run.err
    at = f"--project {world.root}"
    both = f"tierlock {at} remove brain --python {world.python} && tierlock {at} remove base --python {world.python}"
    assert f"to fix: {both}" in run.err
    assert installed(world) == {"basepkg", "corelib", "helper"}
    assert world.receipt() is not None
    assert world.probe().state == "present"


def test_remove_decides_under_the_lock_so_a_concurrent_install_of_a_dependent_is_respected(
    world: World, armed_venv: Path, needy_links: Path
) -> None:
    use_armed(world, armed_venv)
    notes: list[str] = []
    waiting = threading.Event()
    with environment_lock(world.venv, on_wait=notes.append):  # another install holds the environment
        proc = world.spawn("remove", "brain", env=world.sub_env())
        assert proc.stderr is not None
        pump = lines_of(proc.stderr, notes, waiting, "waiting for another tierlock install")
        assert waiting.wait(60), notes
        add_needy(world, needy_links)  # what that install put in, while remove waited
    out, _ = proc.communicate(timeout=120)
    pump.join(10)
    assert proc.returncode == 0, notes
    assert "removed 1 package(s): corelib" in out
    assert "helper (needed by needy, which stays installed)" in out
    assert installed(world) == {"basepkg", "helper", "needy"}
