"""The plugin's remedy when the run's Python is outside the project's ``requires-python`` (``Gate.outside``): the
venv made again first, then the tiers armed, naming the venv's folder when the remedy names an interpreter at all
(the old interpreter's name is gone once the venv is made again). Read from the interpreter the plugin runs in,
which is the target: :func:`tierlock.pytest_plugin.project_state.outside_here`."""

from __future__ import annotations

import sys

import pytest

from tierlock.pytest_plugin.decision import Gate
from tierlock.pytest_plugin.project_state import outside_here

REMAKE = "rm -f /venv/bin/python && /usr/bin/python3.13 -m venv /venv"


def _gate(outside: list[str], python: str | None) -> Gate:
    return Gate(
        root="/proj",
        strict=True,
        why="CI detected",
        states={"brain": "absent"},
        gated={},
        install={"brain": "install-tier brain"},
        broken={"brain": []},
        python=python,
        outside=outside,
        layers={"brain": None},
    )


@pytest.mark.parametrize(
    ("outside", "python", "remedy"),
    [
        (["why", REMAKE, "/venv"], "/venv/bin/python", f"{REMAKE} && install-tier brain --python /venv"),
        (["why", REMAKE, "/venv"], None, f"{REMAKE} && install-tier brain"),
        (["why", "", "/venv"], "/venv/bin/python", "install-tier brain --python /venv/bin/python"),  # none found
        ([], "/venv/bin/python", "install-tier brain --python /venv/bin/python"),
    ],
)
def test_the_remedy_makes_the_venv_again_first_when_the_python_is_outside(
    outside: list[str], python: str | None, remedy: str
) -> None:
    assert _gate(outside, python).remedy(["brain"]) == remedy


def _pyproject(spec: str | None) -> str:
    line = "" if spec is None else f'requires-python = "{spec}"\n'
    return f'[project]\nname = "app"\nversion = "1"\n{line}'


def test_the_run_is_outside_only_when_requires_python_excludes_its_own_python() -> None:
    here = f"{sys.version_info[0]}.{sys.version_info[1]}.{sys.version_info[2]}"
    assert outside_here(_pyproject(f">={sys.version_info[0]}.{sys.version_info[1]}")) == []
    assert outside_here(_pyproject(None)) == []
    assert outside_here("[project\n") == []  # (not TOML: the project's own check says so)
    assert outside_here('project = "x"\n') == []
    assert outside_here(_pyproject("not a specifier")) == []
    found = outside_here(_pyproject(f"<{sys.version_info[0]}.{sys.version_info[1]}"))
    assert found[0] == (
        f"the target {sys.prefix} runs Python {here}, which the project's requires-python "
        f"'<{sys.version_info[0]}.{sys.version_info[1]}' excludes (its locks were resolved for other Pythons)"
    )
    assert found[2] == sys.prefix
