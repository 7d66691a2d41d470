"""The thread that reads the ``.dist-info`` folders the backend finishes while it runs (``installer/ahead``).

It makes the facts of each finished folder of the packages being installed, and of no other; it waits for a
folder that is not finished yet; it stops and is joined when the backend's step ends; and it is not started
at all when a backend started early has ended already (tierlock's own start outlasted it: the thread would
only share the interpreter with the install).
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from tierlock import earlyarm
from tierlock.installer import ahead
from tierlock.probing import distinfo
from tierlock.spawning import spawn, watch

SUFFIXES = (".so",)


def _target(site: Path) -> Any:
    return SimpleNamespace(site_paths=(site,), ext_suffixes=SUFFIXES)


def _folder(site: Path, name: str, *, installer: bool = True, listed: bool = True) -> Path:
    """A ``.dist-info`` folder of *name*: with its INSTALLER (*installer*), which its RECORD lists (*listed*)."""
    info = site / f"{name}-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n")
    (site / f"{name}.py").write_text("")
    rows = [f"{name}.py,,0", f"{info.name}/METADATA,,", f"{info.name}/RECORD,,"]
    if installer:
        (info / "INSTALLER").write_text("uv\n")
    if listed:
        rows.append(f"{info.name}/INSTALLER,,")
    (info / "RECORD").write_text("\n".join(rows) + "\n")
    return info


def _until(test: Any, seconds: float = 10.0) -> bool:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if test():
            return True
        time.sleep(0.01)
    return False


@pytest.fixture(autouse=True)
def _nothing_made(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(distinfo, "_PREPARED", {})
    monkeypatch.setattr(earlyarm, "current", None)


def test_the_thread_makes_the_facts_of_each_folder_the_backend_finishes_of_the_packages_it_installs_only(
    tmp_path: Path,
) -> None:
    site = tmp_path / "site"
    site.mkdir()
    with ahead.Ahead(_target(site), ["Alpha", "gamma"]) as watching:
        assert watching.thread.is_alive()
        alpha = _folder(site, "alpha")  # written while the thread runs, as a backend does
        beta = _folder(site, "beta")  # not being installed
        gamma = _folder(site, "gamma", installer=False, listed=False)  # (unfinished)
        assert _until(lambda: (str(alpha), SUFFIXES) in distinfo._PREPARED)
        time.sleep(0.05)
        assert (str(gamma), SUFFIXES) not in distinfo._PREPARED  # not finished: waited for
        (gamma / "INSTALLER").write_text("uv\n")
        (gamma / "RECORD").write_text((gamma / "RECORD").read_text() + f"{gamma.name}/INSTALLER,,\n")
        assert _until(lambda: (str(gamma), SUFFIXES) in distinfo._PREPARED)
    assert not watching.thread.is_alive()
    assert set(distinfo._PREPARED) == {(str(alpha), SUFFIXES), (str(gamma), SUFFIXES)}
    assert (str(beta), SUFFIXES) not in distinfo._PREPARED
    assert watching.done == {str(alpha), str(gamma)}


def test_a_folder_made_once_is_not_read_again_by_later_looks_and_the_thread_never_keeps_the_process_alive(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    site = tmp_path / "site"
    info = _folder(site, "alpha")
    calls: list[str] = []
    real = distinfo.prepare

    def counting(found: Any, suffixes: tuple[str, ...]) -> bool:
        calls.append(found.path)
        return real(found, suffixes)

    monkeypatch.setattr(distinfo, "prepare", counting)
    watching = ahead.Ahead(_target(site), ["alpha"])
    assert watching.thread.daemon
    with watching:
        assert _until(lambda: (str(info), SUFFIXES) in distinfo._PREPARED)
        looked = len(calls)
        time.sleep(ahead.PAUSE * 10)
    assert calls == [str(info)] * looked == [str(info)]


def test_a_thread_that_fails_stops_quietly_and_leaves_the_folders_to_the_verification(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    site = tmp_path / "site"
    _folder(site, "alpha")

    def failing(found: Any, suffixes: tuple[str, ...]) -> bool:
        raise RuntimeError("a bug")

    monkeypatch.setattr(distinfo, "prepare", failing)
    with ahead.Ahead(_target(site), ["alpha"]) as watching:
        assert _until(lambda: not watching.thread.is_alive())
    assert distinfo._PREPARED == {}
    assert capsys.readouterr() == ("", "")


def test_a_backend_started_early_that_ended_already_gets_no_thread(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    site = tmp_path / "site"
    _folder(site, "alpha")
    spawned = spawn(["true"])
    watch(spawned)
    assert _until(lambda: spawned.ended is not None)
    monkeypatch.setattr(earlyarm, "current", SimpleNamespace(spawned=spawned))
    assert ahead.ended()
    with ahead.Ahead(_target(site), ["alpha"]) as watching:
        pass
    assert watching.thread.ident is None
    assert distinfo._PREPARED == {}
    os.waitpid(spawned.pid, 0)


def test_a_backend_started_early_that_still_runs_gets_the_thread(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    site = tmp_path / "site"
    info = _folder(site, "alpha")
    spawned = spawn(["sleep", "30"])
    watch(spawned)
    try:
        monkeypatch.setattr(earlyarm, "current", SimpleNamespace(spawned=spawned))
        assert not ahead.ended()
        with ahead.Ahead(_target(site), ["alpha"]) as watching:
            assert _until(lambda: (str(info), SUFFIXES) in distinfo._PREPARED)
        assert watching.thread.ident is not None
        assert not watching.thread.is_alive()
    finally:
        os.kill(spawned.pid, 9)
        os.waitpid(spawned.pid, 0)


def test_without_an_early_backend_the_thread_runs(tmp_path: Path) -> None:
    assert not ahead.ended()
    with ahead.Ahead(_target(tmp_path), ["alpha"]) as watching:
        assert watching.thread.is_alive()
    assert not watching.thread.is_alive()


def test_the_other_work_is_done_in_the_thread_once_the_install_is_no_longer_recorded_and_its_result_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The receipts' parts write (their folder): not while the part before the backend is recorded for a kept plan
    (a write there keeps no plan); from the backend step on, in the thread, its result handed to the install."""
    from tierlock import armrecord

    recorder = SimpleNamespace(noted=False)
    monkeypatch.setattr(armrecord, "_current", [recorder])
    done: list[str] = []

    def make() -> str:
        done.append("made")
        return "made"

    with ahead.Ahead(_target(tmp_path), ["alpha"], also=make) as watching:
        time.sleep(ahead.PAUSE * 5)
        assert done == [], "not while the install is recorded"
        recorder.noted = True  # the backend step: the facts of the part before it taken
        assert _until(lambda: done == ["made"])
    assert watching.made == "made"
    assert done == ["made"], "done once"


def test_other_work_that_fails_in_the_thread_leaves_it_to_the_install_and_the_folders_are_still_read(
    tmp_path: Path,
) -> None:
    site = tmp_path / "site"
    info = _folder(site, "alpha")

    def fails() -> str:
        raise OSError("no receipts folder")

    with ahead.Ahead(_target(site), ["alpha"], also=fails) as watching:
        assert _until(lambda: (str(info), SUFFIXES) in distinfo._PREPARED)
    assert watching.made is None


def test_an_install_counts_as_recorded_until_the_backend_step_took_its_facts_even_when_it_kept_none(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The facts are taken at the backend step (:func:`tierlock.armrecord.capture`), after the recording stopped: a
    receipts folder the thread made in between would be in the plan (and no fresh venv would match it)."""
    from tierlock import armrecord

    recorder = SimpleNamespace(noted=False, captured=False, stop=lambda: None, facts=lambda prefix: None)
    monkeypatch.setattr(armrecord, "_current", [recorder])
    assert armrecord.watching()
    armrecord.pause()
    assert armrecord.watching(), "stopped, but its facts not taken yet"
    assert ahead.recorded()
    armrecord.capture(
        ["uv", "pip", "install"], "r.txt", b"a==1\n", "/nowhere", fresh=True, backend="uv"
    )  # (no plan kept: None)
    assert not armrecord.watching()
    assert not ahead.recorded()


def test_an_install_that_stops_on_an_interrupt_is_not_held_by_a_thread_stuck_for_good(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Leaving the block on an interrupt (or an error), nothing the thread makes is used: a thread stuck for good (on
    an import lock the interrupt left taken) is waited for a while only; before, the exit waited for it forever."""
    import threading

    monkeypatch.setattr(ahead, "GIVE_UP", 0.2)
    release = threading.Event()
    left: list[str] = []

    def stuck() -> None:
        release.wait()

    def install() -> None:
        try:
            with ahead.Ahead(_target(tmp_path), ["alpha"], also=stuck) as watching:
                assert _until(lambda: watching.also is None)  # the thread is in it
                raise KeyboardInterrupt
        except KeyboardInterrupt:
            left.append("left")

    waiter = threading.Thread(target=install, daemon=True)
    try:
        waiter.start()
        waiter.join(10)
        assert not waiter.is_alive(), "the interrupted install waited for the stuck thread"
        assert left == ["left"]
    finally:
        release.set()
        waiter.join(10)


def test_an_install_that_ends_normally_waits_for_the_thread_it_takes_the_work_of(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On the normal way out the thread's work is used: it is waited for to its end, however long it takes (longer
    than an interrupted install waits)."""
    import threading

    monkeypatch.setattr(ahead, "GIVE_UP", 0.05)
    release = threading.Event()

    def slow() -> str:
        release.wait()
        return "made"

    threading.Timer(0.5, release.set).start()
    with ahead.Ahead(_target(tmp_path), ["alpha"], also=slow) as watching:
        assert _until(lambda: watching.also is None)
    assert watching.made == "made"
