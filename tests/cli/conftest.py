"""Fixtures the end-to-end modules share: the remedy walker's session-wide wheels, locked layouts, venv and
uv cache (built once, copied by each state; see tests/support/remedyscene.py)."""

from __future__ import annotations

from tests.support.remedyscene import walk_cache, walk_layouts, walk_parts, walk_venv, walk_wheels

__all__ = ["walk_cache", "walk_layouts", "walk_parts", "walk_venv", "walk_wheels"]
