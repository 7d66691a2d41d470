"""Fixtures the end-to-end modules share: the remedy walker's session-wide wheels, locked layouts, venv and
uv cache (built once, copied by each state; see tests/support/remedyscene.py), and every process tierlock
starts while a test runs in-process."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import pytest

from tests.support.remedyscene import walk_cache, walk_layouts, walk_parts, walk_venv, walk_wheels
from tierlock import subproc

__all__ = ["started", "walk_cache", "walk_layouts", "walk_parts", "walk_venv", "walk_wheels"]


@pytest.fixture
def started() -> Iterator[list[tuple[str, ...]]]:
    """Every argv tierlock starts (through :mod:`tierlock.subproc`) while the test runs in this process."""
    seen: list[tuple[str, ...]] = []

    def observe(argv: Sequence[str]) -> None:
        seen.append(tuple(argv))

    subproc.observers.append(observe)
    try:
        yield seen
    finally:
        subproc.observers.remove(observe)
