"""A kept entry whose bytes on disk are not the ones written (a disk error, a copy cut short, a hand edit, another
file in its place) is no entry, or an entry that does not hold: reading it never raises, whatever its bytes, and
it never gives an answer the command would not give."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.unit.core.test_kept_answers import ARGV, Scene, scene  # noqa: F401  (the fixture, used by name)
from tierlock import keptrun, keptseal

_HEAD = len(keptseal.SEAL2) + 32 + 8
_FUZZ = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


def _sealed(scene: Scene) -> tuple[Path, bytes]:  # noqa: F811
    entry = scene.record()
    assert entry is not None
    kept = scene.root / "runs-test.marshal"
    keptseal.seal(str(kept), entry)
    return kept, kept.read_bytes()


def _read_without_raising(kept: Path) -> None:
    entry = keptrun.load(str(kept), sealed=True)
    if entry is not None:
        keptrun.holds(entry, ARGV)  # (True or False: never an exception)
    keptrun.load(str(kept))  # (the reader of a lock's and an arming's entries too)


@pytest.mark.parametrize("length", [2**40, 2**62, 2**64 - 1])
def test_an_entry_whose_head_length_is_corrupted_to_a_huge_one_is_no_entry(
    scene: Scene,  # noqa: F811
    length: int,
) -> None:
    kept, data = _sealed(scene)
    start = len(keptseal.SEAL2) + 32
    kept.write_bytes(data[:start] + length.to_bytes(8, "little") + data[_HEAD:])
    assert keptrun.load(str(kept), sealed=True) is None


@_FUZZ
@given(flips=st.lists(st.tuples(st.integers(min_value=0), st.integers(min_value=1, max_value=255)), max_size=4))
def test_an_entry_with_bytes_changed_anywhere_is_read_without_raising(
    scene: Scene,  # noqa: F811
    flips: list[tuple[int, int]],
) -> None:
    kept, data = _sealed(scene)
    changed = bytearray(data)
    for at, mask in flips:
        changed[at % len(changed)] ^= mask
    kept.write_bytes(bytes(changed))
    _read_without_raising(kept)


@_FUZZ
@given(cut=st.integers(min_value=0), tail=st.binary(max_size=64))
def test_an_entry_cut_short_or_with_bytes_appended_is_read_without_raising(
    scene: Scene,  # noqa: F811
    cut: int,
    tail: bytes,
) -> None:
    kept, data = _sealed(scene)
    kept.write_bytes(data[: cut % (len(data) + 1)] + tail)
    _read_without_raising(kept)


@_FUZZ
@given(data=st.binary(max_size=256))
def test_any_bytes_in_an_entrys_place_are_read_without_raising(scene: Scene, data: bytes) -> None:  # noqa: F811
    kept = scene.root / "runs-test.marshal"
    for prefix in (b"", keptseal.SEAL, keptseal.SEAL2):
        kept.write_bytes(prefix + data)
        _read_without_raising(kept)
