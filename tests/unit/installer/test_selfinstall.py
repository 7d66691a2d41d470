"""The tool-install remedy names this tierlock's own source, so it installs what runs now."""

from __future__ import annotations

import shlex
from pathlib import Path

from tierlock.selfinstall import tool_install_command, tool_requirement

ROOT = Path(__file__).resolve().parents[3]


def test_the_tool_install_remedy_names_the_source_this_tierlock_was_installed_from() -> None:
    # The test environment holds an editable install of this checkout (make venv: pip install -e .).
    assert tool_requirement() == f"tierlock[uv] @ {ROOT.as_uri()}"
    assert shlex.split(tool_install_command()) == ["uv", "tool", "install", f"tierlock[uv] @ {ROOT.as_uri()}"]
