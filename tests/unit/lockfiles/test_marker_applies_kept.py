"""Whether a marker holds in an environment is kept for the process by the marker, the environment's items and the
extras and groups: the tiers of a project ask the same questions of the entries they share, and each is evaluated
once; any other question (another environment, one changed in place, other extras or groups) is evaluated."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from packaging.markers import Marker, default_environment

from tierlock.lockfiles import markers

LINUX = {k: str(v) for k, v in default_environment().items()} | {"sys_platform": "linux", "python_version": "3.12"}


@pytest.fixture
def evaluated(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    getattr(markers, "_APPLIES", {}).clear()  # (none on code without the memo)
    calls: list[str] = []
    real = Marker.evaluate

    def counted(self: Marker, *args: object, **kwargs: object) -> bool:
        calls.append(str(self))
        return real(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(Marker, "evaluate", counted)
    yield calls
    getattr(markers, "_APPLIES", {}).clear()  # (none on code without the memo)


def test_a_question_asked_again_is_not_evaluated_again(evaluated: list[str]) -> None:
    marker = Marker("sys_platform == 'linux' and python_version >= '3.11'")
    assert markers.applies(marker, LINUX) is True
    assert markers.applies(marker, dict(LINUX)) is True  # the same items: the same question
    assert len(evaluated) == 1
    assert markers.applies(marker, LINUX | {"python_version": "3.10"}) is False
    assert len(evaluated) == 2


def test_an_environment_changed_in_place_is_asked_again(evaluated: list[str]) -> None:
    marker = Marker("sys_platform == 'win32'")
    env = dict(LINUX)
    assert markers.applies(marker, env) is False
    env["sys_platform"] = "win32"
    assert markers.applies(marker, env) is True


def test_other_extras_or_groups_are_other_questions(evaluated: list[str]) -> None:
    marker = Marker("extra == 'gpu' or 'dev' in dependency_groups")
    assert markers.applies(marker, LINUX) is False
    assert markers.applies(marker, LINUX, extras=iter(["GPU"])) is True  # (any iterable, names normalized)
    assert markers.applies(marker, LINUX, groups=("dev",)) is True
    assert markers.applies(marker, LINUX, extras=("gpu",)) is True
    assert len(evaluated) == 1 + 2 + 1  # (each extra evaluated once more, as without the memo: "" then "gpu")


def test_another_marker_object_of_the_same_text_gets_the_same_answer(evaluated: list[str]) -> None:
    assert markers.applies(Marker("python_version < '3.11'"), LINUX) is False
    assert markers.applies(Marker("python_version < '3.11'"), LINUX) is False
    assert markers.applies(Marker("python_version < '3.13'"), LINUX) is True


def test_an_environment_that_cannot_be_hashed_is_evaluated_every_time(evaluated: list[str]) -> None:
    marker = Marker("sys_platform == 'linux'")
    odd: dict[str, object] = {**LINUX, "unhashable": ["x"]}
    assert markers.applies(marker, odd) is True  # type: ignore[arg-type]
    assert markers.applies(marker, odd) is True  # type: ignore[arg-type]
    assert len(evaluated) == 2
    assert markers._APPLIES == {}


def test_the_kept_answers_stay_bounded(evaluated: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(markers, "_KEPT", 3)
    for minor in range(10):
        assert markers.applies(Marker(f"python_version >= '3.{minor}'"), LINUX) is True
        assert len(markers._APPLIES) <= 3
