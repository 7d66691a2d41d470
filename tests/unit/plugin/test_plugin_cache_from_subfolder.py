"""The plugin's cached tier model is found from wherever pytest is started inside the project.

pytest keeps its cache in the rootdir (``cache_dir`` is relative to it), not in the folder pytest was started
from; the plugin reads the cache before pytest's cacheprovider is configured, so it must look in the same place.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.support.env import clean_env
from tests.support.plugin_project import inner_pyproject, laptop

RECORD_MODULES = """\
import json, sys
from pathlib import Path


def test_record_modules():
    loaded = [m for m in ("tierlock.tiers.loader", "tierlock.probing.facts") if m in sys.modules]
    Path(__file__).with_name("modules.json").write_text(json.dumps(loaded))
"""


def test_a_run_from_a_subfolder_reads_the_cache_a_run_from_the_rootdir_wrote(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    laptop(monkeypatch)
    pytester.makefile(".toml", pyproject=inner_pyproject(cacheprovider=True))
    (pytester.path / "tests" / "brain").mkdir(parents=True)
    (pytester.path / "tests" / "brain" / "test_brain.py").write_text("import brainpkg\n")
    (pytester.path / "tests" / "test_modules.py").write_text(RECORD_MODULES)
    pytester.runpytest("-p", "no:randomly").assert_outcomes(passed=1)  # cold: writes the cache entry
    assert list((pytester.path / ".pytest_cache" / "v" / "tierlock").glob("tiers-*"))
    argv = [sys.executable, "-m", "pytest", "-p", "no:xdist", "-p", "no:randomly"]
    proc = subprocess.run(
        argv, cwd=pytester.path / "tests", capture_output=True, text=True, check=False, env=clean_env()
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "tierlock: brain absent — 1 test file not collected; " in proc.stdout
    assert json.loads((pytester.path / "tests" / "modules.json").read_text()) == ["tierlock.probing.facts"]
    assert not (pytester.path / "tests" / ".pytest_cache").exists()
