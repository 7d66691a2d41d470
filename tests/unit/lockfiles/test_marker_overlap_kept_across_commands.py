# ruff: noqa: F811  (the cache folder fixture imported from tests/support/keptparses.py is redefined as a parameter)
"""Whether two markers overlap is kept across commands by the two markers' texts: a later command is given the
answer an earlier one worked out (the sibling check asks the same questions every time), and only that answer -
never for other texts, never from a damaged file or one kept by another tierlock."""

from __future__ import annotations

from pathlib import Path

import pytest
from packaging.markers import Marker

from tests.support.keptparses import cache, next_command  # noqa: F401
from tierlock.lockfiles import markers, overlapkept

APART = ("python_version < '3.11'", "python_full_version >= '3.11'")
TOGETHER = ("python_version < '3.12'", "sys_platform == 'linux'")


@pytest.fixture(autouse=True)
def _new_process(cache: Path) -> None:
    markers._OVERLAPS.clear()
    overlapkept.forget()


def _next_command() -> None:
    """This command ends (what it learnt written), and the next one starts with nothing in memory."""
    next_command()
    markers._OVERLAPS.clear()
    overlapkept.forget()


def _never_worked_out(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, str]]:
    worked: list[tuple[str, str]] = []
    real = markers._overlap

    def counted(first: Marker, second: Marker, texts: tuple[str, str]) -> bool:
        worked.append(texts)
        return real(first, second, texts)

    monkeypatch.setattr(markers, "_overlap", counted)
    return worked


def test_the_next_command_is_given_the_answers_an_earlier_one_worked_out(monkeypatch: pytest.MonkeyPatch) -> None:
    assert markers.overlap(Marker(APART[0]), Marker(APART[1])) is False
    assert markers.overlap(Marker(TOGETHER[0]), Marker(TOGETHER[1])) is True
    _next_command()
    worked = _never_worked_out(monkeypatch)
    assert markers.overlap(Marker(APART[0]), Marker(APART[1])) is False
    assert markers.overlap(Marker(TOGETHER[0]), Marker(TOGETHER[1])) is True
    assert worked == []


def test_a_kept_answer_is_given_only_for_the_same_two_texts(monkeypatch: pytest.MonkeyPatch) -> None:
    assert markers.overlap(Marker(APART[0]), Marker(APART[1])) is False
    _next_command()
    worked = _never_worked_out(monkeypatch)
    assert markers.overlap(Marker("python_version < '3.11'"), Marker("python_full_version >= '3.10'")) is True
    assert len(worked) == 1


def test_a_damaged_file_holds_no_answer(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert markers.overlap(Marker(APART[0]), Marker(APART[1])) is False
    _next_command()
    (kept,) = cache.glob("overlaps-*.marshal")
    data = bytearray(kept.read_bytes())
    data[-3] ^= 1  # (the answer's own byte or one beside it: the seal no longer matches)
    kept.write_bytes(bytes(data))
    worked = _never_worked_out(monkeypatch)
    assert markers.overlap(Marker(APART[0]), Marker(APART[1])) is False
    assert len(worked) == 1


def test_answers_kept_by_another_tierlock_are_not_given(monkeypatch: pytest.MonkeyPatch) -> None:
    assert markers.overlap(Marker(APART[0]), Marker(APART[1])) is False
    _next_command()
    monkeypatch.setattr(overlapkept, "key", lambda: ("another tierlock",))
    worked = _never_worked_out(monkeypatch)
    assert markers.overlap(Marker(APART[0]), Marker(APART[1])) is False
    assert len(worked) == 1


def test_a_kept_answer_that_is_wrong_is_not_given_by_other_code(
    cache: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The answers are kept under the lockfile readers' key (markers.py's identity among them): an answer written
    under another key - here a wrong one - is never given."""
    assert markers.overlap(Marker(APART[0]), Marker(APART[1])) is False
    _next_command()
    overlapkept._answers()[APART] = True  # a wrong answer, kept by "another" code
    overlapkept._CHANGED[:] = [True]
    with monkeypatch.context() as patch:
        patch.setattr(overlapkept, "key", lambda: ("old code",))
        overlapkept.save()
    _next_command()
    assert markers.overlap(Marker(APART[0]), Marker(APART[1])) is False


def test_nothing_is_written_when_nothing_was_learnt(cache: Path) -> None:
    assert markers.overlap(None, Marker(APART[0])) is True
    _next_command()
    assert list(cache.glob("overlaps-*.marshal")) == []
    assert markers.overlap(Marker(APART[0]), Marker(APART[1])) is False
    _next_command()
    (kept,) = cache.glob("overlaps-*.marshal")
    stamp = kept.stat().st_mtime_ns
    assert markers.overlap(Marker(APART[0]), Marker(APART[1])) is False  # given: nothing new to write
    _next_command()
    assert kept.stat().st_mtime_ns == stamp


def test_the_kept_answers_stay_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(overlapkept, "KEPT", 3)
    for version in range(10):
        assert (
            markers.overlap(Marker(f"python_version < '3.{version}'"), Marker(f"python_version >= '3.{version + 1}'"))
            is False
        )
        assert len(overlapkept._answers()) <= 3


def test_with_caching_off_every_answer_is_worked_out(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TIERLOCK_CACHE_DIR", "")
    assert markers.overlap(Marker(APART[0]), Marker(APART[1])) is False
    _next_command()
    worked = _never_worked_out(monkeypatch)
    assert markers.overlap(Marker(APART[0]), Marker(APART[1])) is False
    assert len(worked) == 1


def test_a_file_of_more_answers_than_kept_now_starts_afresh_at_the_next_one(monkeypatch: pytest.MonkeyPatch) -> None:
    for version in range(5):
        assert (
            markers.overlap(Marker(f"python_version < '3.{version}'"), Marker(f"python_version >= '3.{version + 1}'"))
            is False
        )
    _next_command()
    monkeypatch.setattr(overlapkept, "KEPT", 3)
    assert len(overlapkept._answers()) == 5  # (kept by a command that kept more)
    assert markers.overlap(Marker(APART[0]), Marker(APART[1])) is False
    assert len(overlapkept._answers()) <= 3
