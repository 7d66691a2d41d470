"""A kept entry on disk is read in two parts: its head (the command line, the environment, the files the run read)
first, and its look-ups (thousands for a probe), folders, census files and answer only when the head holds. An entry
refused at a file read costs its head alone; whatever is read, the entry holds exactly when everything it rests on is
as it was, and a part whose bytes changed is no part."""

from __future__ import annotations

import marshal
import os
from pathlib import Path
from typing import Any

import pytest

from tests.unit.core.test_kept_answers import ARGV, OLD, Scene, scene  # noqa: F401  (the fixture, used by name)
from tierlock import keptrun, keptseal

MANY = 200


def _sealed(scene: Scene) -> tuple[str, list[Path]]:  # noqa: F811
    """The entry of a command that read the scene's files and looked up *MANY* more, sealed on disk."""
    entry, paths = scene.record_many(MANY)
    kept = str(scene.root / "runs-test.marshal")
    keptseal.seal(kept, entry)
    return kept, paths


def _loaded(kept: str) -> dict[str, Any]:
    entry = keptrun.load(kept, sealed=True)
    assert entry is not None
    return entry


def test_an_entry_refused_at_a_file_read_never_reads_its_look_ups(scene: Scene) -> None:  # noqa: F811
    kept, _paths = _sealed(scene)
    entry = _loaded(kept)
    assert "stats" not in entry  # the head alone was read (dict.__contains__: no look-up loads it)
    scene.data.write_text("two\n")  # a file the command read: changed
    assert not keptrun.holds(entry, ARGV)
    assert not {"stats", "summaries", "scans", "out"} & entry.keys()


def test_the_head_read_is_a_small_part_of_the_file(scene: Scene, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    kept, _paths = _sealed(scene)
    read: list[int] = []
    real = marshal.loads

    def counted(data: bytes) -> Any:
        read.append(len(data))
        return real(data)

    monkeypatch.setattr(marshal, "loads", counted)
    _loaded(kept)
    assert len(read) == 1
    assert read[0] * 4 < os.path.getsize(kept)


def test_an_entry_whose_files_hold_reads_its_look_ups_and_holds_as_before(scene: Scene) -> None:  # noqa: F811
    kept, paths = _sealed(scene)
    entry = _loaded(kept)
    assert keptrun.holds(entry, ARGV)
    assert {str(p) for p in paths} <= entry["stats"].keys()
    assert entry["code"] == 1
    assert "".join(text for fd, text in entry["out"] if fd == 1).startswith("one v1")
    paths[-1].write_text("longer")  # the last look-up changed: refused
    assert not keptrun.holds(_loaded(kept), ARGV)


def test_a_rest_whose_bytes_changed_is_no_rest_and_the_entry_does_not_hold(scene: Scene) -> None:  # noqa: F811
    kept, _paths = _sealed(scene)
    data = bytearray(Path(kept).read_bytes())
    data[-3] ^= 0x01  # a byte of the look-ups' part
    Path(kept).write_bytes(bytes(data))
    entry = keptrun.load(kept, sealed=True)
    assert entry is None or not keptrun.holds(entry, ARGV)
    if entry is not None:
        with pytest.raises(KeyError):
            entry["stats"]
        assert entry.get("summaries") is None


def test_the_rest_of_another_entry_does_not_hold(scene: Scene) -> None:  # noqa: F811
    kept, _paths = _sealed(scene)
    head = Path(kept).read_bytes()
    length = int.from_bytes(head[len(keptseal.SEAL2) + 32 : len(keptseal.SEAL2) + 40], "little")
    other = scene.record()  # the same command without the look-ups: another rest
    assert other is not None
    elsewhere = str(scene.root / "runs-other.marshal")
    keptseal.seal(elsewhere, other)
    theirs = Path(elsewhere).read_bytes()
    their_length = int.from_bytes(theirs[len(keptseal.SEAL2) + 32 : len(keptseal.SEAL2) + 40], "little")
    start, their_start = len(keptseal.SEAL2) + 40 + length, len(keptseal.SEAL2) + 40 + their_length
    Path(kept).write_bytes(head[:start] + theirs[their_start:])
    entry = _loaded(kept)
    assert not keptrun.holds(entry, ARGV)


def test_a_head_whose_bytes_changed_is_no_entry(scene: Scene) -> None:  # noqa: F811
    kept, _paths = _sealed(scene)
    data = bytearray(Path(kept).read_bytes())
    data[len(keptseal.SEAL2) + 40 + 2] ^= 0x01
    Path(kept).write_bytes(bytes(data))
    assert keptrun.load(kept, sealed=True) is None


def test_an_entry_sealed_again_after_it_was_read_keeps_every_table(scene: Scene) -> None:  # noqa: F811
    kept, paths = _sealed(scene)
    entry = _loaded(kept)
    assert keptrun.holds(entry, ARGV)
    keptseal.seal(kept, entry)  # (as a kept answer refreshed after a rewrite is)
    again = _loaded(kept)
    assert keptrun.holds(again, ARGV)
    assert {str(p) for p in paths} <= again["stats"].keys()
    assert again["out"] == entry["out"]


def test_an_entry_sealed_whole_by_an_earlier_tierlock_is_still_read(scene: Scene) -> None:  # noqa: F811
    kept, _paths = _sealed(scene)
    entry = _loaded(kept)
    assert keptrun.holds(entry, ARGV)
    whole = marshal.dumps(dict(entry))
    Path(kept).write_bytes(keptseal.SEAL + keptseal._sha(whole) + whole)
    assert keptrun.holds(_loaded(kept), ARGV)


def test_asking_for_a_table_by_get_first_reads_the_rest(scene: Scene) -> None:  # noqa: F811
    kept, paths = _sealed(scene)
    entry = _loaded(kept)
    stats = entry.get("stats")
    assert stats is not None
    assert {str(p) for p in paths} <= stats.keys()
    assert entry.get("summaries") == {}
    assert entry.get("no such table", "none") == "none"


def test_an_entry_marshal_cannot_write_is_not_written(scene: Scene) -> None:  # noqa: F811
    kept, _paths = _sealed(scene)
    before = Path(kept).read_bytes()
    entry = _loaded(kept)
    assert keptrun.holds(entry, ARGV)
    entry["env"] = {"X": object()}  # (no value a run reads is of such a type)
    keptseal.seal(kept, entry)
    assert Path(kept).read_bytes() == before
