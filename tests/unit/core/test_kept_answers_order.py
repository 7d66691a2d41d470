"""A kept answer is refused at the first thing it rests on that changed, and the files it read come first: after an
edit of one of them (pyproject.toml, a lockfile) the answer is refused without looking up again the thousands of
paths a probe looked up (a stat of every file of the closure), which are looked at only when everything else holds.
Whatever the order, the answer is the same: the entry holds exactly when everything it rests on is as it was."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.unit.core.test_kept_answers import ARGV, OLD, Scene, scene  # noqa: F401  (the fixture, used by name)
from tierlock import keptrun

MANY = 300


def _with_many_looked_up(scene: Scene) -> tuple[dict[str, object], list[Path]]:  # noqa: F811
    """An entry of a command that read the scene's files and looked up *MANY* more, each one dated back."""
    entry, paths = scene.record_many(MANY)
    assert all(str(path) in entry["stats"] for path in paths)
    return entry, paths


def _counted(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    looked: list[str] = []
    real = keptrun.identity

    def counted(path: str) -> tuple[int, ...]:
        looked.append(path)
        return real(path)

    monkeypatch.setattr(keptrun, "identity", counted)
    return looked


def test_a_file_read_that_changed_refuses_the_answer_before_the_look_ups(
    scene: Scene,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    entry, paths = _with_many_looked_up(scene)
    scene.data.write_text("two\n")  # a file the command read: its bytes changed
    looked = _counted(monkeypatch)
    assert not keptrun.holds(entry, ARGV)
    assert not {str(p) for p in paths} & set(looked)
    assert len(looked) < 10


def test_with_every_file_read_unchanged_every_look_up_is_still_compared(
    scene: Scene,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    entry, paths = _with_many_looked_up(scene)
    looked = _counted(monkeypatch)
    assert keptrun.holds(entry, ARGV)
    assert {str(p) for p in paths} <= set(looked)
    paths[-1].write_text("longer")  # the last look-up of thousands changed: refused
    assert not keptrun.holds(entry, ARGV)
    paths[-1].unlink()
    assert not keptrun.holds(entry, ARGV)


def test_a_file_read_replaced_by_a_fifo_refuses_the_answer_without_waiting_on_it(scene: Scene) -> None:  # noqa: F811
    entry, _paths = _with_many_looked_up(scene)
    scene.data.unlink()
    os.mkfifo(scene.data)  # (opened for its bytes, it would wait for a writer for ever)
    assert not keptrun.holds(entry, ARGV)
