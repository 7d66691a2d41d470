# ruff: noqa: F811  (pytest fixtures imported from the installer's end-to-end tests are redefined as parameters)
"""The backend step of an install (``installer/backendrun.py``): what it says of each package, and what runs beside
the backend.

An arming's kept plan does not depend on which thread ran first: the backend's version is asked beside the
backend only once what the install reads is no longer recorded for the plan.

uv put on a machine by its own installer (or a package manager) has no Python distribution beside tierlock: the
install asks its version by running ``uv --version``, in a thread beside the backend. That thread was started
while the part before the backend was still recorded (:mod:`tierlock.armrecord`), so a process it started (the
environment read whole) spoilt the plan whenever the thread ran first - on a loaded machine, often enough that
four armings in a row kept none - and the next arming into a fresh venv did not start early. pip's version,
read from the target's folder, was a fact of the plan or not by the same race.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.cli.test_install_cli import Kit, World, empty_venv, kit, uv_cache, wheel_dir, wheels, world  # noqa: F401
from tests.cli.test_install_early import Arming, venv_told  # noqa: F401
from tests.support.kept import backdate
from tierlock import armrecord
from tierlock.installer import backendrun

pytestmark = pytest.mark.slow


def test_the_backends_version_is_asked_only_once_the_install_no_longer_records_what_it_reads(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The order, seen in the install itself (real uv into a real venv): the end of the recording, then the thread
    that asks the version - whatever the machine's load does to the threads afterwards."""
    order: list[str] = []
    pause, background = armrecord.pause, backendrun.background

    def paused() -> None:
        order.append("recording ended")
        pause()

    def asked(work: Callable[[], str]) -> Callable[[], str | None]:
        order.append("version asked")
        return background(work)

    monkeypatch.setattr(armrecord, "pause", paused)
    monkeypatch.setattr(backendrun, "background", asked)
    run = world.install("brain")
    assert run.code == 0, run.err
    assert "version asked" in order
    assert order.index("recording ended") < order.index("version asked"), order


def test_an_arming_whose_uv_is_an_executable_of_its_own_keeps_its_plan_at_its_first_run(
    tmp_path: Path, kit: Kit, venv_told: Path
) -> None:
    """The test's uv is such an executable (a wrapper script around the real uv: no ``RECORD`` lists it). Each
    first arming into a fresh venv keeps its plan, and the next one starts the backend early from it."""
    backdate(kit.empty_venv)
    for round_ in range(3):
        arming = Arming(tmp_path / f"round{round_}", kit, "uv", told=venv_told)
        code, _doc, runs = arming.arm(arming.venv("first"))
        assert (code, runs) == (0, ["own"]), arming.last_err
        assert arming.plans(), f"round {round_}: the first arming kept no plan"
        code, _doc, runs = arming.arm(arming.venv("second"))
        assert (code, runs) == (0, ["early"]), arming.last_err


def test_each_package_an_install_changes_is_a_line_only_with_verbose_off_a_terminal(world: World) -> None:
    """Off a terminal (no spinner), each package the backend is about to change is said only with ``-v``."""
    quiet = world.cli("install", "brain")
    assert quiet.code == 0, quiet.err
    assert "install corelib==1.0: not installed" not in quiet.err, quiet.err
    again = world.cli("install", "brain", "--reinstall", "-v")
    assert again.code == 0, again.err
    changed = sorted(line.strip() for line in again.err.splitlines() if line.endswith(": reinstall requested"))
    assert changed == [f"repair {name}==1.0: reinstall requested" for name in ("basepkg", "corelib", "helper")]
