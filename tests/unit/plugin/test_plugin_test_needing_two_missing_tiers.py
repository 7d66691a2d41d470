"""A test tierlock skips because two tiers are missing counts for each, and each tier's line arms what it needs.

The summary says, per missing tier, how many tests the run left out because of it and the command that runs them.
A test marked for ``brain`` and ``vision`` (both missing), or in a file both tiers' globs gate, is left out because
of either: it counts on both lines,
and the ``brain`` line's command arms ``vision`` too (arming ``brain`` alone would leave it skipped). Each line's
command is run exactly as printed, on the environment as the first run found it, and the next run skips nothing.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.support.lockproj import lock_offline
from tests.support.plugin_project import laptop, write_files
from tests.support.plugin_venv import locked_pyproject, offline, own_venv, run_printed
from tests.support.plugin_venv import run_pytest as run
from tests.support.wheels import build_wheel

PYPROJECT = locked_pyproject(
    {"brain": ["brainpkg"], "vision": ["visionpkg"]}, [], tests={"brain": "tests/ml/**", "vision": "tests/ml/**"}
)
"""Both tiers' globs gate ``tests/ml``: a file there needs both."""

TESTS = """\
import pytest


@pytest.mark.tier("brain")
@pytest.mark.tier("vision")
def test_both():
    import brainpkg, visionpkg


@pytest.mark.tier("vision")
def test_vision():
    import visionpkg
"""

FLAGGED = """import importlib.util

import pytest

HAS_BOTH = all(importlib.util.find_spec(name) for name in ("brain" + "pkg", "vision" + "pkg"))


@pytest.mark.skipif(not HAS_BOTH, reason="requires brainpkg and visionpkg")
def test_flagged():
    pass
"""


@pytest.fixture(scope="module")
def house(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("two-tier-wheels")
    build_wheel(folder, "brainpkg", "1.0")
    build_wheel(folder, "visionpkg", "1.0")
    return folder


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory, house: Path) -> Path:
    folder = lock_offline(tmp_path_factory.mktemp("two-tiers") / "inner", house, PYPROJECT)
    gated = "import brainpkg\nimport visionpkg\n\n\ndef test_model():\n    assert brainpkg and visionpkg\n"
    write_files(folder, {"tests/test_needs.py": TESTS, "tests/test_flagged.py": FLAGGED, "tests/ml/test_ml.py": gated})
    return folder


def _lines(output: str) -> dict[str, str]:
    """Each missing tier's summary line, by the tier it names."""
    out = {}
    for line in output.splitlines():
        if line.startswith("tierlock: ") and " because " in line and "; to run them: " in line:
            tier = line.split(" because ", 1)[1].split(" ", 1)[0]
            out[tier] = line
    return out


def test_a_test_skipped_for_two_missing_tiers_counts_on_both_lines_and_each_lines_command_runs_them(
    project: Path, tmp_path: Path, house: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    laptop(monkeypatch)
    python = own_venv(tmp_path)
    first = run(python, project, "-rs")
    assert first.returncode == 0, first.stdout + first.stderr
    assert "3 skipped" in first.stdout
    lines = _lines(first.stdout)
    assert "1 test file not collected and 2 tests skipped because brain absent" in lines["brain"], lines
    assert "1 test file not collected and 3 tests skipped because vision absent" in lines["vision"], lines
    pristine = tmp_path / "pristine"
    shutil.copytree(python.parent.parent, pristine, symlinks=True)
    for tier in ("brain", "vision"):  # either line's tests need both tiers: its command arms both
        venv = python.parent.parent
        shutil.rmtree(venv)
        shutil.copytree(pristine, venv, symlinks=True)  # (the venv as the first run found it)
        printed = lines[tier].split("; to run them: ", 1)[1]
        assert printed.startswith("install-tier "), printed
        armed = run_printed(printed, project, offline(house))
        assert armed.returncode == 0, armed.stdout + armed.stderr
        again = run(python, project, "-rs")
        assert again.returncode == 0, again.stdout + again.stderr
        assert "4 passed" in again.stdout, (tier, printed, again.stdout)
        assert "skipped" not in again.stdout, (tier, printed, again.stdout)
