"""``collector.Paused`` gives the cyclic garbage collector back however the work inside it ends (an exception, an
interrupt, an exit), keeps it off inside a pause within a pause, and leaves it off when it was off before."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from tierlock.collector import Paused


@pytest.fixture(autouse=True)
def _collecting() -> Iterator[None]:
    gc.enable()
    yield
    gc.enable()


@pytest.mark.parametrize("raised", [ValueError, KeyboardInterrupt, SystemExit, MemoryError])
def test_the_collector_is_on_again_after_the_work_raised(raised: type[BaseException]) -> None:
    inside: list[bool] = []

    def work() -> None:
        with Paused():
            inside.append(gc.isenabled())
            raise raised

    with pytest.raises(raised):
        work()
    assert inside == [False]
    assert gc.isenabled()


def test_a_pause_within_a_pause_keeps_the_collector_off_until_the_outer_one_ends() -> None:
    with Paused():
        with Paused():
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert gc.isenabled()


def test_a_pause_of_a_collector_that_was_off_leaves_it_off() -> None:
    gc.disable()
    with Paused():
        pass
    assert not gc.isenabled()


def test_objects_made_during_the_pause_are_collected_after_it() -> None:
    with Paused():
        cycle: list[object] = []
        cycle.append(cycle)
        del cycle
    assert gc.collect() >= 1
