"""The backend's version, asked in a thread beside the install, never holds an install that has finished."""

from __future__ import annotations

import threading

import pytest

from tierlock.installer import backendrun


def test_a_backend_version_that_never_comes_is_none_after_the_wait_not_a_hang(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A version thread stuck for good (a backend that never answers ``--version``, an import lock an interrupt
    left taken) gives None once the wait is over; before, the install that had finished waited for it forever."""
    monkeypatch.setattr(backendrun, "VERSION_WAIT", 0.2)
    release = threading.Event()

    def stuck() -> str:
        release.wait()
        return "0.0.1"

    result = backendrun.background(stuck)
    answers: list[str | None] = []
    waiter = threading.Thread(target=lambda: answers.append(result()), daemon=True)
    try:
        waiter.start()
        waiter.join(10)
        assert not waiter.is_alive(), "the install waited for the version thread past its wait"
        assert answers == [None]
    finally:
        release.set()
        waiter.join(10)


def test_a_backend_version_that_comes_within_the_wait_is_given() -> None:
    """The usual case is unchanged: the version asked beside the backend is what the install records."""
    assert backendrun.background(lambda: "0.9.9")() == "0.9.9"


def test_a_backend_version_that_fails_is_none() -> None:
    def failing() -> str:
        raise OSError("no such file")

    assert backendrun.background(failing)() is None
