"""Every printed remedy converges:
two tiers that pin one package differently, with and without a declared conflict.

Each state is built with the real CLI and real uv in a real venv (offline), then
walked: the remedy printed by the state's command (human and ``--json``) is run
exactly as printed until the state is healthy, in at most three steps, and no
remedy is refused by tierlock itself (see tests/support/remedywalk.py).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.remedyscene import Parts, scene_for, walk_state
from tests.support.remedystates import State, by_layout, state_id


@pytest.mark.parametrize("state", by_layout("siblings", "exclusive"), ids=state_id)
def test_the_printed_remedy_reaches_the_healthy_state_in_three_steps(
    state: State, tmp_path: Path, walk_parts: Parts
) -> None:
    scene = scene_for(state, tmp_path, walk_parts)
    assert walk_state(state, scene) <= 3
